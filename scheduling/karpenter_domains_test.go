package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeLaunchedNodesRegisterDomains: Karpenter builds its topology again every
// round, and a node an earlier round launched adds its label on a group's key to the
// group's domains, even where the NodePools gave the group none. app-0-0's required
// anti-affinity (to app-3, which has no pods) is on the NodePool label team; pool-1, the only
// NodePool, has a PreferNoSchedule taint app-0-0 does not tolerate, so round 1 registers no
// team domain for the group and refuses the pod (TestKarpenterModeAntiAffinityDomains). Round
// 1 launches pool-1 for app-5-0; round 2 finds team=pool-1 on that node and binds app-0-0 to
// it (difftest plan:810021 minimised; karpenter-plan 5 of 5: one pool-1 NodeClaim with both
// pods, 2 rounds). The old Karpenter mode kept the group's round-1 domains and left app-0-0
// pending.
func TestKarpenterModeLaunchedNodesRegisterDomains(t *testing.T) {
	res := solveCase(t, filepath.Join("karpmode", "antiaffinity-launched-domain"), scheduling.PackingKarpenter)
	assert.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1)
	c := res.NewNodeClaims[0]
	assert.Equal(t, "pool-1", c.NodePool)
	var pods []string
	for _, p := range c.Pods {
		pods = append(pods, p.Name)
	}
	assert.ElementsMatch(t, []string{"app-0-0", "app-5-0"}, pods)
}

// TestKarpenterModeBootstrapsAffinityOnlyInItsDomains: a pod whose required pod affinity
// selects itself and finds no match starts its group only in one of the group's domains, as
// Karpenter's nextDomainAffinity picks among them. app-2-0's affinity is on the NodePool label
// team; pool-2, the only NodePool, has a PreferNoSchedule taint app-2-0 does not tolerate,
// so the group has no team domain and Karpenter leaves the pod pending (difftest plan:870214
// minimised; karpenter-plan 3 of 3). The old Karpenter mode took the NodeClaim's single
// value team=pool-2 and launched it.
func TestKarpenterModeBootstrapsAffinityOnlyInItsDomains(t *testing.T) {
	res := solveCase(t, filepath.Join("karpmode", "affinity-unregistered-domain"), scheduling.PackingKarpenter)
	assert.Empty(t, res.NewNodeClaims)
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "app-2-0", res.PodErrors[0].Pod.Name)
	assert.Equal(t, scheduling.ReasonPodAffinity, res.PodErrors[0].Code)

}
