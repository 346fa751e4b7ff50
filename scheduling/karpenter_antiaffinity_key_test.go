package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeAntiAffinityOnAKeyANodeDoesNotDefine: for a pod anti-affinity on a custom
// key (team, a label of pool-1 only) Karpenter requires the key In the group's free domains
// and holds a NodeClaim or node to that requirement, so a node without team (not a well-known
// key) cannot take the pod; and it records a pod the group selects in the values of its
// NodeClaim's requirement on team, none when the NodeClaim does not constrain it (difftest
// plan:510190). In custom-key-claim, big opens a pool-0 NodeClaim (no team) and is counted
// nowhere, so small's preferred anti-affinity keeps team=pool-1 free and puts small on
// pool-1; in custom-key-node, guard's required anti-affinity keeps it off node-0, which has
// no team label. Both are karpenter-plan's answer in 3 of 3 runs; the old Karpenter mode
// gave the default's plan. The default reads the rule as kube-scheduler does: a node
// without the key breaks no anti-affinity term.
func TestKarpenterModeAntiAffinityOnAKeyANodeDoesNotDefine(t *testing.T) {
	cases := []struct {
		name    string
		packing scheduling.Packing
		where   map[string]string // pod -> NodePool of its NodeClaim, or the existing node
	}{
		{"antiaffinity-custom-key-claim", scheduling.PackingKarpenter, map[string]string{"big-0": "pool-0", "small-0": "pool-1", "small-1": "pool-1"}},
		{"antiaffinity-custom-key-claim", scheduling.PackingCostAware, map[string]string{"big-0": "pool-0", "small-0": "pool-0", "small-1": "pool-0"}},
		{"antiaffinity-custom-key-node", scheduling.PackingKarpenter, map[string]string{"guard-0": "pool-1"}},
		{"antiaffinity-custom-key-node", scheduling.PackingCostAware, map[string]string{"guard-0": "node-0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+string(tc.packing), func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", tc.name))
			res := fidelityInput(t, manifests, types, tc.packing).solve(t)
			assert.Empty(t, res.PodErrors)
			assert.Equal(t, tc.where, wherePlaced(res))
		})
	}
}

// wherePlaced maps each placed pod's name to the NodePool of its NodeClaim or the existing
// node it binds to.
func wherePlaced(res *scheduling.Result) map[string]string {
	where := map[string]string{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			where[p.Name] = c.NodePool
		}
	}
	for _, b := range res.Bindings {
		where[b.Pod.Name] = b.To
	}
	return where
}
