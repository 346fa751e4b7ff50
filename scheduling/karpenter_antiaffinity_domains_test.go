package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeAntiAffinityDomains: Karpenter gives a pod anti-affinity group only the
// domains it registered, and registers them as its TopologyDomainGroup does: a NodePool's
// domains (those of every ready NodePool and its instance types, whether or not it can
// launch, as buildDomainGroups reads them) only when the pod that made the group tolerates
// every taint of the NodePool, PreferNoSchedule included, and, for the group of the pods a required anti-affinity keeps
// away (Karpenter's inverse group, which it builds without counting the cluster), no
// domain of an existing node. A pod the group admits to no empty domain stays pending
// (difftest plan:510007, 510120, 510126: profile-anti-zone with a PreferNoSchedule NodePool;
// both rows are karpenter-plan's answer in 3 of 3 runs; the old Karpenter mode placed every
// pod, the first row on NodeClaims after relaxing the taint, the second on node-0). The
// default mode places every pod, as kube-scheduler would bind them.
func TestKarpenterModeAntiAffinityDomains(t *testing.T) {
	cases := []struct {
		name    string
		claims  map[string]string // pod -> zone of its NodeClaim
		pending []string
	}{
		// pool-0 has a PreferNoSchedule taint: plain does not tolerate it, so its
		// zonal self anti-affinity has no domain; tolerant does.
		{"antiaffinity-untolerated-pool",
			map[string]string{"tolerant-0": "test-zone-a", "tolerant-1": "test-zone-b"},
			[]string{"plain-0", "plain-1"}},
		// pool-1 has no taint but can launch nothing (instance-type minValues 2, one
		// type): Karpenter still registers the zones its types name, so plain finds free
		// zones and launches on pool-0 after relaxing the taint (difftest plan:530100).
		{"antiaffinity-unlaunchable-pool",
			map[string]string{"plain-0": "test-zone-a", "plain-1": "test-zone-b"},
			nil},
		// node-0 is the only node in zone c: zone-c-0 (selecting zone c) finds no domain,
		// and the third of anywhere none once zones a and b hold one each.
		{"antiaffinity-existing-zone",
			map[string]string{"anywhere-0": "test-zone-a", "anywhere-1": "test-zone-b"},
			[]string{"anywhere-2", "zone-c-0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", tc.name))
			res := fidelityInput(t, manifests, types, scheduling.PackingKarpenter).solve(t)
			claims := map[string]string{}
			for _, c := range res.NewNodeClaims {
				for _, p := range c.Pods {
					claims[p.Name] = c.Offering.Zone()
				}
			}
			assert.Equal(t, tc.claims, claims)
			assert.Empty(t, res.Bindings)
			var pending []string
			for _, e := range res.PodErrors {
				pending = append(pending, e.Pod.Name)
				assert.Equal(t, scheduling.ReasonPodAntiAffinity, e.Code, e.Pod.Name)
			}
			assert.ElementsMatch(t, tc.pending, pending)

			def := fidelityInput(t, manifests, types, scheduling.PackingCostAware).solve(t)
			assert.Empty(t, def.PodErrors)
		})
	}
}

// TestKarpenterModeEmptyNamespaceSelectorListsNamespaces: Karpenter resolves an affinity
// term's empty namespaceSelector to the namespaces it lists, so app-1-0's preferred
// anti-affinity (app=app-0, every namespace) is the same group as app-0-0's required one
// (app=app-0 in team-b and default, the only namespaces). app-0-0 does not tolerate pool-0's
// PreferNoSchedule taint and made the group, which so has only node-0's zone b, where an
// app-0 pod runs: app-1-0's preference finds no free zone, is dropped, and the pod joins
// node-0 (difftest plan:957251 minimised; karpenter-plan 8 of 8). The old Karpenter mode
// kept every namespace apart and launched a NodeClaim in zone a.
func TestKarpenterModeEmptyNamespaceSelectorListsNamespaces(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "antiaffinity-empty-namespace-selector"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	assert.Empty(t, res.NewNodeClaims)
	require.Len(t, res.Bindings, 1)
	assert.Equal(t, "app-1-0", res.Bindings[0].Pod.Name)
	assert.Equal(t, "node-0", res.Bindings[0].To)
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "app-0-0", res.PodErrors[0].Pod.Name)
}
