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

// TestKarpenterModeAffinityStartsBesideMatchesOnOpenClaims: a self-affinity whose only match
// is on an open NodeClaim whose zone is not decided yet finds no domain counting a match in
// Karpenter (Topology.Record counts a pod only in a single domain), so it starts the group
// in the same round. db-0 (family r, 3 CPU) opens an r5-4x32 NodeClaim that may launch in
// zone a or b; web-0 (1.5 CPU, zone affinity to every pod with a version label) does not fit
// beside it and opens a second NodeClaim in round 1 (karpenter-plan: 3 of 3 runs). Karpenter
// mode waited for round 2, when db-0's node counts in its zone, and so left a pod out of
// difftest plan:964343 that a later NodeClaim under the limit took instead.
func TestKarpenterModeAffinityStartsBesideMatchesOnOpenClaims(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "affinity-match-on-open-claim"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 2)
	for _, c := range res.NewNodeClaims {
		require.Len(t, c.Pods, 1)
		assert.Equal(t, 1, c.Round, "%s", c.Pods[0].Name)
	}
}

// TestKarpenterModeAffinityCountsMatchesInDomainsItsGroupDidNotKnow: a pod affinity group
// knows the domains of the NodePools its creator tolerates, and Karpenter's Record adds the
// domain of any match it counts. db-0 opens a NodeClaim on the tainted spot NodePool, which
// web-0 (capacity-type affinity to every pod with a version label) does not tolerate; the
// match holds spot, within web-0's reach, so web-0 starts nothing on the on-demand NodePool
// and stays pending (karpenter-plan: 3 of 3 runs). Karpenter mode saw no match in its
// group's domains and started the group on demand (difftest plan:964991: four app-1 pods).
func TestKarpenterModeAffinityCountsMatchesInDomainsItsGroupDidNotKnow(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "affinity-match-in-untolerated-pool"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "spot", res.NewNodeClaims[0].NodePool)
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "web-0", res.PodErrors[0].Pod.Name)
}
