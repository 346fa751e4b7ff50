package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestKarpenterModeHonoredTaintsReadAnUninitializedNodesOwnTaints: Karpenter counts the
// pods of existing nodes for a spread that honours taints by the Node's own taints
// (countDomains reads Node.Spec.Taints), so an uninitialized node still carrying its startup
// taint counts none of its pods, though pods may be placed on it. node-b (zone b, startup
// taint) runs two web pods: Karpenter sees zones a and b empty and puts one new web pod in
// each (karpenter-plan: 3 of 3 runs); Karpenter mode does too, and verify reports the spread
// broken as launched. The default mode counts them
// (the taint goes once the node is initialized) and puts both in zone a (difftest
// plan:956486, minimised).
func TestKarpenterModeHonoredTaintsReadAnUninitializedNodesOwnTaints(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "spread-honor-startup-taint"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	assert.Empty(t, res.PodErrors)
	assert.Equal(t, map[string]int{"test-zone-a": 1, "test-zone-b": 1}, podsPerZone(res))
	// As launched, zone b holds three web pods against zone a's one: verify reports it.
	vs := verify.Solve(in.snap, in.opts, res)
	require.Len(t, vs, 1)
	assert.Equal(t, verify.TopologySpread, vs[0].Code, vs[0].String())

	def := fidelityInput(t, manifests, types, scheduling.PackingCostAware).solve(t)
	assert.Empty(t, def.PodErrors)
	assert.Equal(t, map[string]int{"test-zone-a": 2}, podsPerZone(def))
}
