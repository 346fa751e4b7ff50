package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestRefusesATopologyKeyTheNodePoolDoesNotDefine: Karpenter holds a new NodeClaim to its
// topology requirements as to a pod's, so a pod affinity on a custom key (team) cannot put
// the pod on a NodePool that does not define team (difftest plan:400043, minimised:
// Karpenter launches one pool-1 claim for app-3 and app-2; the old Karpenter mode labelled a
// pool-0 claim team=pool-1). The default mode holds the same rule: the old default also
// labelled a pool-0 claim team=pool-1, a label pool-0's nodes never carry (difftest
// plan:520059, 520077, 520124).
func TestRefusesATopologyKeyTheNodePoolDoesNotDefine(t *testing.T) {
	cases := []struct {
		name    string
		packing scheduling.Packing
		where   map[string]string // pod -> NodePool of its NodeClaim
	}{
		{"custom-topology-key", scheduling.PackingKarpenter, map[string]string{"app-2-0": "pool-1", "app-3-0": "pool-1"}},
		{"custom-topology-key", scheduling.PackingCostAware, map[string]string{"app-2-0": "pool-1", "app-3-0": "pool-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+string(tc.packing), func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", tc.name))
			res := fidelityInput(t, manifests, types, tc.packing).solve(t)
			require.Empty(t, res.PodErrors)
			assert.Equal(t, tc.where, wherePlaced(res))
		})
	}
}
