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

// TestKarpenterModeLaunchedNodeRunsOnlyItsDaemonSets: an open NodeClaim keeps room for every
// DaemonSet its NodePool may run on a type, but Karpenter's next round takes the launched
// node as an existing node and keeps room only for the DaemonSets its labels admit. od-agent
// runs on on-demand nodes; web-0 opens a c7-2x4 NodeClaim (1.9 CPU left for pods with the
// agent), web-1 neither fits beside it nor gets a second node under the 2-CPU limit, and the
// NodeClaim launches spot. The next round binds web-1 to that node, where no agent runs
// (karpenter-plan 3 of 3 runs: both pods on one spot c7-2x4). Karpenter mode kept the agent's
// 100m on the launched node and left web-1 pending (difftest plan:991104: app-4-2). The
// default mode still leaves it pending.
func TestKarpenterModeLaunchedNodeRunsOnlyItsDaemonSets(t *testing.T) {
	dir := filepath.Join("karpmode", "launched-node-daemonsets")
	res := solveCase(t, dir, scheduling.PackingKarpenter)
	assert.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1)
	c := res.NewNodeClaims[0]
	require.NotNil(t, c.Offering)
	assert.Equal(t, "spot", c.Offering.CapacityType())
	var pods []string
	for _, p := range c.Pods {
		pods = append(pods, p.Name)
	}
	assert.ElementsMatch(t, []string{"web-0", "web-1"}, pods)

	def := solveCase(t, dir, scheduling.PackingCostAware)
	require.Len(t, def.PodErrors, 1)
	assert.Equal(t, scheduling.ReasonNodePoolLimit, def.PodErrors[0].Code)
}
