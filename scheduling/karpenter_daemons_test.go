package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeCountsConflictingDaemonSet: a DaemonSet whose nodeSelector (team=pool-0)
// conflicts with its required node-affinity term (team DoesNotExist) runs on no node, but
// Karpenter's isDaemonPodCompatible merges the two into team DoesNotExist and counts its
// 128Mi on every NodePool without a team label. In daemonset-conflicting-term two 8Gi pods
// then need two m6g-4x16 NodeClaims of 8320Mi each (difftest plan:957007 minimised;
// karpenter-plan 8 of 8); the default mode counts no such DaemonSet and packs both on one.
func TestKarpenterModeCountsConflictingDaemonSet(t *testing.T) {
	cases := []struct {
		packing scheduling.Packing
		claims  int
	}{
		{scheduling.PackingKarpenter, 2},
		{scheduling.PackingCostAware, 1},
	}
	for _, tc := range cases {
		t.Run(string(tc.packing), func(t *testing.T) {
			res := solveCase(t, filepath.Join("karpmode", "daemonset-conflicting-term"), tc.packing)
			assert.Empty(t, res.PodErrors)
			require.Len(t, res.NewNodeClaims, tc.claims)
		})
	}
}
