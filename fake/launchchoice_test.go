package fake_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// The fake cloud launches what the plan chose: for every claim Solve plans, Create picks the
// same instance type, zone and capacity type as the claim's InstanceType and Offering, also
// when offerings tie on price (the default fake types price spot and on-demand alike: Solve
// takes spot, and so must the launch, or the capacity model never sees the planned offering).
func TestCreateLaunchesThePlannedOffering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := fake.InstanceTypes(rapid.IntRange(1, 6).Draw(t, "types"))
		if rapid.Bool().Draw(t, "generated") {
			types = fake.SchedulableInstanceTypesGenerator(6).Draw(t, "generatedTypes")
		}
		pool := fake.NodePool("default").Obj()
		if rapid.Bool().Draw(t, "onDemandOnly") {
			pool = fake.NodePool("default").Requirement(v1.CapacityTypeLabelKey, "In", v1.CapacityTypeOnDemand).Obj()
		}
		pods := fake.PodsGeneratorWith(12, "p", fake.SchedulablePodSettings()).Draw(t, "pods")
		snap := oneNodePool(t, pool, types, pods)
		res, err := scheduling.Solve(snap, scheduling.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
			t.Fatalf("%v", vs)
		}
		var names fake.Names
		launched, err := cloudprovider.Launch(context.Background(), fake.NewCloudProvider(types), scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next))
		if err != nil {
			t.Fatal(err)
		}
		for i, nc := range launched {
			planned := res.NewNodeClaims[i]
			if nc == nil {
				t.Fatalf("claim %d (%s) refused", i, planned.InstanceType.Name)
			}
			want := map[string]string{
				v1.LabelInstanceType:    planned.InstanceType.Name,
				v1.LabelTopologyZone:    planned.Offering.Zone(),
				v1.CapacityTypeLabelKey: planned.Offering.CapacityType(),
			}
			for k, v := range want {
				if got := nc.Labels[k]; got != v {
					t.Fatalf("claim %d: launched %s=%q, the plan chose %q (offering %s/%s at %v)", i, k, got, v,
						planned.Offering.Zone(), planned.Offering.CapacityType(), planned.Offering.Price)
				}
			}
		}
	})
}
