package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestKarpenterModeAffinityStartsBesideOutOfReachMatches: a self-affinity whose only matches
// are in domains the pod cannot reach starts the group anew in Karpenter
// (TopologyGroup.nextDomainAffinity: no compatible pod domain), though kube-scheduler would
// never bind the pod there. web requires spot and capacity-type affinity to web; the one
// running web pod is on the on-demand node-od. karpenter-plan binds both web pods to
// node-spot (3 of 3 runs). Karpenter mode does the same and verify reports the broken
// affinity; the default mode leaves them pending (difftest plan:956396, minimised).
func TestKarpenterModeAffinityStartsBesideOutOfReachMatches(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "affinity-bootstrap-out-of-reach"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	assert.Empty(t, res.PodErrors)
	assert.Empty(t, res.NewNodeClaims)
	var bound []string
	for _, b := range res.Bindings {
		assert.Equal(t, "node-spot", b.To)
		bound = append(bound, b.Pod.Name)
	}
	assert.ElementsMatch(t, []string{"web-0", "web-1"}, bound)
	vs := verify.Solve(in.snap, in.opts, res)
	require.NotEmpty(t, vs)
	for _, v := range vs {
		assert.Equal(t, verify.PodAffinityBootstrap, v.Code, v.String())
	}

	def := fidelityInput(t, manifests, types, scheduling.PackingCostAware).solve(t)
	var pending []string
	for _, e := range def.PodErrors {
		pending = append(pending, e.Pod.Name)
	}
	assert.ElementsMatch(t, []string{"web-0", "web-1"}, pending)
}
