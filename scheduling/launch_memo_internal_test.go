package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestClaimCheapestLaunchAsScanned: a claim's remembered cheapest launch (claim.cheapestLaunch,
// as trackDeferred uses it) is cheapestLaunch's scan over the claim's types, whatever the
// claim's types do between calls (narrow, widen, lose the remembered type) and whatever its
// requirements do (the offerings change with the zone): types priced per zone, few prices
// (ties by name), some zones unavailable.
func TestClaimCheapestLaunchAsScanned(t *testing.T) {
	zones := []string{"test-zone-1", "test-zone-2", "test-zone-3"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 130).Draw(rt, "types")
		var types cloudprovider.InstanceTypes
		launchable := false
		for i := range n {
			var offers cloudprovider.Offerings
			for _, z := range zones {
				price := float64(rapid.IntRange(1, 6).Draw(rt, "price"))
				available := rapid.IntRange(0, 5).Draw(rt, "available") > 0
				launchable = launchable || available
				offers = append(offers, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, price, available))
			}
			types = append(types, fake.NewInstanceType(fake.InstanceTypeOptions{Name: fmt.Sprintf("t%03d", rapid.IntRange(0, 999).Draw(rt, "name")*1000+i), Offerings: offers}))
		}
		snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}, WellKnownLabels: fake.WellKnownLabels()})
		require.NoError(rt, err)
		s, _, err := prepare(snap, Options{}, nil, true)
		require.NoError(rt, err)
		if !launchable {
			// No offering anywhere: the NodePool has no template, so there is no claim to check.
			require.Empty(rt, s.templates)
			return
		}
		require.Len(rt, s.templates, 1)
		tmpl := s.templates[0]
		c := &claim{t: tmpl, types: newBitset(len(tmpl.types)), launchAt: -1}
		for i := range tmpl.types {
			c.types.set(i)
		}
		for step := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0: // narrow
				for range rapid.IntRange(1, 10).Draw(rt, "drop") {
					c.types.clear(rapid.IntRange(0, len(tmpl.types)-1).Draw(rt, "dropped"))
				}
			case 1: // widen (a round's undo restores types)
				c.types.set(rapid.IntRange(0, len(tmpl.types)-1).Draw(rt, "added"))
			case 2: // lose the remembered type
				if c.launchAt >= 0 {
					c.types.clear(c.launchAt)
				}
			}
			reqs := requirements.NewRequirements()
			if z := rapid.IntRange(-1, len(zones)-1).Draw(rt, "zone"); z >= 0 {
				reqs = requirements.NewRequirements(requirements.MustNew(v1.LabelTopologyZone, requirements.In, zones[z]))
			}
			want, wantOK := cheapestLaunch(tmpl, reqs, c.types, anyType)
			got, gotOK := c.cheapestLaunch(reqs)
			if gotOK != wantOK || gotOK && (got.i != want.i || got.o != want.o) {
				rt.Fatalf("step %d: remembered launch %v/%d, scanned %v/%d", step, gotOK, got.i, wantOK, want.i)
			}
			c.launchAt = -1
			if gotOK {
				c.launchAt = got.i
			}
		}
	})
}
