package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

func TestNodeClaimsFor(t *testing.T) {
	snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("a").Obj(), fake.NodePool("b").Obj()}})
	require.NoError(t, err)
	planned := func(pools ...string) []*scheduling.NodeClaim {
		var out []*scheduling.NodeClaim
		for _, p := range pools {
			out = append(out, &scheduling.NodeClaim{NodePool: p, Labels: map[string]string{v1.NodePoolLabelKey: p},
				Requirements: requirements.Requirements{}, Requests: corev1.ResourceList{}})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		planned []*scheduling.NodeClaim
		asked   []string // the NodePools name is called with, in order
		classed []bool   // whether each claim got its NodePool's nodeClassRef and owner
	}{
		{name: "none", asked: nil, classed: []bool{}},
		{name: "one per planned claim, in order", planned: planned("b", "a", "b"), asked: []string{"b", "a", "b"}, classed: []bool{true, true, true}},
		{name: "a NodePool the snapshot does not hold", planned: planned("a", "gone"), asked: []string{"a", "gone"}, classed: []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			got := scheduling.NodeClaimsFor(snap, tc.planned, func(pool string) string {
				asked = append(asked, pool)
				return fmt.Sprintf("%s-%d", pool, len(asked))
			})
			assert.Equal(t, tc.asked, asked)
			require.Len(t, got, len(tc.planned))
			classed := []bool{}
			for i, nc := range got {
				want := scheduling.NodeClaimFor(tc.planned[i], fmt.Sprintf("%s-%d", tc.planned[i].NodePool, i+1), snap.NodePool(tc.planned[i].NodePool))
				assert.Equal(t, want, nc, "claim %d is NodeClaimFor its planned claim, named in order", i)
				classed = append(classed, nc.Spec.NodeClassRef != nil && len(nc.OwnerReferences) == 1 && nc.OwnerReferences[0].Name == tc.planned[i].NodePool)
			}
			assert.Equal(t, tc.classed, classed)
		})
	}
}

// NodeClaimsFor names each planned claim and makes it the NodeClaim CloudProvider.Create
// takes (cloudprovider.Launch creates them all).
func ExampleNodeClaimsFor() {
	var pods []*corev1.Pod
	for i := range 2 {
		pods = append(pods, fake.Pod(fmt.Sprintf("big-%d", i)).Requests("1500m", "1Gi").Obj())
	}
	snap, err := cluster.New(cluster.Objects{
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)}, // at most 2 vCPU
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            pods,
	})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	mustVerify(snap, res)
	var names fake.Names
	for _, nc := range scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next) {
		fmt.Println(nc.Name, nc.Spec.NodeClassRef.Kind, nc.Spec.Resources.Requests.Cpu())
	}
	// Output:
	// default-1 TestNodeClass 1500m
	// default-2 TestNodeClass 1500m
}
