package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeReadsAClaimlessNodeAsUnmanaged: Karpenter's state reads a Node without a
// NodeClaim as unmanaged, so a managed Node given without its claim and without
// karpenter.sh/initialized is, to Karpenter, an initialized node, tried among the initialized
// nodes by name (its taints: TestStartupTaintsOfNodesWithoutClaims). The default reads its
// taints as if the claim were there but tries it where Karpenter does: tried after the
// initialized nodes, it left their room to pods Karpenter puts on it, and the default
// launched a NodeClaim Karpenter does not (difftest default plan:954002, $0.05/h against none).
func TestKarpenterModeReadsAClaimlessNodeAsUnmanaged(t *testing.T) {
	cases := []struct {
		name string
		// where each pod goes (an existing node's name, or a new claim's NodePool), per mode.
		karpenter, dflt map[string]string
	}{
		// node-0 (uninitialized, no claim) and node-1 (initialized) both have room for app-5's
		// two pods and app-4-0; app-2-0 must go to zone c (its volume), node-1's. Karpenter
		// tries node-0 first by name and binds app-2-0 to node-1: no new node (difftest
		// plan:810075 minimised; karpenter-plan 5 of 5). Karpenter mode used to try node-0 last,
		// filled node-1 and launched a NodeClaim for app-2-0.
		{"claimless-node-order",
			map[string]string{"app-5-0": "node-0", "app-5-1": "node-0", "app-4-0": "node-0", "app-2-0": "node-1"},
			map[string]string{"app-5-0": "node-0", "app-5-1": "node-0", "app-4-0": "node-0", "app-2-0": "node-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", tc.name))
			for packing, want := range map[scheduling.Packing]map[string]string{scheduling.PackingKarpenter: tc.karpenter, scheduling.PackingCostAware: tc.dflt} {
				res := fidelityInput(t, manifests, types, packing).solve(t)
				assert.Empty(t, res.PodErrors, packing)
				got := map[string]string{}
				for _, b := range res.Bindings {
					got[b.Pod.Name] = b.To
				}
				for _, c := range res.NewNodeClaims {
					for _, p := range c.Pods {
						got[p.Name] = c.NodePool
					}
				}
				assert.Equal(t, want, got, packing)
			}
		})
	}
}
