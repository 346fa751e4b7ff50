package scheduling_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeSpreadTakesALaunchableDomain: when a spread's least populated domains tie,
// Karpenter picks one in map order and retries the pod until its NodeClaim can launch there,
// so Karpenter mode takes the first discovered tied domain the NodeClaim can launch in, not
// one the NodePool has no offering in (difftest plan:400005, plan:400030 and
// plan:400039, minimised).
func TestKarpenterModeSpreadTakesALaunchableDomain(t *testing.T) {
	type launch struct{ pool, zone, capacityType string }
	cases := []struct {
		name   string
		placed int
		claims []launch // sorted
	}{
		// A spot-only NodePool whose one type has spot only in zones b and c: zone a (first
		// discovered, on-demand only) is tied but unlaunchable. Karpenter: claims in b and c.
		{"spread-unoffered-zone", 2, []launch{{"pool-0", "test-zone-b", "spot"}, {"pool-0", "test-zone-c", "spot"}}},
		// pool-1 (on-demand or reserved) has no offering in zone a (spot only there): app-3-0's
		// spread took a and was refused; Karpenter places it (in b). app-2-2 fits no type.
		{"spread-reserved-zone", 10, []launch{{"pool-1", "test-zone-b", "reserved"}, {"pool-1", "test-zone-c", "reserved"}}},
		// A capacity-type spread: on-demand (first discovered) is tied with spot, which pool-2
		// (the heavier) lists first; pool-2 has no on-demand offering in the preferred zone b.
		// Karpenter launches pool-2 spot rather than falling to pool-1 on-demand.
		{"capacity-type-spread-tie", 1, []launch{{"pool-2", "test-zone-b", "spot"}}},
		// A capacity-type spread ties reserved (first discovered) and spot on pool-0; only an
		// amd64 type is reserved and the pod selects arm64, so reserved cannot launch it:
		// Karpenter launches spot (difftest plan:640052, minimised; karpenter-plan 5 of 5).
		// The old probe ignored the pod's own arch and took reserved.
		{"spread-tie-pod-requirements", 1, []launch{{"pool-0", "test-zone-c", "spot"}}},
		// Zone and capacity-type spreads under family minValues 2: in zone b neither capacity
		// type offers both families. The second pod's zone spread ties b and c; its
		// capacity-type spread takes spot, and spot in b has one family, so Karpenter
		// launches it in c (difftest plan:640110 minimised; karpenter-plan: zones a and c in
		// 8 of 8 runs, this capacity-type split in 3). The old probe read neither minValues
		// nor the capacity type the pod's other spread took, took b and refused the pod.
		{"spread-tie-min-values", 2, []launch{{"pool-1", "test-zone-a", "on-demand"}, {"pool-1", "test-zone-c", "spot"}}},
		// A zone spread ties a and c on pool-0 (zones a and c, instance-type minValues 2),
		// which lists a first; in a only one type is on-demand. Karpenter takes a, pool-0
		// refuses the pod and pool-1 (spot, lower weight) launches it: it redraws a tie only
		// when every NodePool refuses (difftest plan:800084 minimised; karpenter-plan 6 of
		// 6). Taking the first launchable tie at once launched a second pool-0 NodeClaim in c.
		{"spread-tie-next-pool", 2, []launch{{"pool-1", "test-zone-b", "spot"}, {"pool-0", "test-zone-c", "on-demand"}}},
		// A zone spread ties a (first discovered) and b for web-0, and guard's zone
		// anti-affinity keeps web out of a: Karpenter intersects the draw with the
		// anti-affinity, refuses the NodePool and redraws on the pod's retries until it lands
		// in b (difftest plan:956005 minimised; karpenter-plan: web-0 in b in 9 of 12 runs,
		// no web pod in 3). Taking a every time left every web pod pending.
		{"spread-tie-anti-affinity", 2, []launch{{"pool-ac", "test-zone-a", "on-demand"}, {"pool-any", "test-zone-b", "on-demand"}}},
		// The same refusal, for a pod with a preference: web prefers family r, so its first
		// attempt opens a NodeClaim, draws a and is refused; Karpenter relaxes the preference
		// and web joins filler's open NodeClaim in b, redrawing only a pod every relaxation
		// fails (difftest plan:956594 minimised; karpenter-plan: 9 of 11 runs; an r5 NodeClaim
		// in b in 2). Redrawing at once opened the r5.
		{"spread-tie-anti-affinity-relaxed", 3, []launch{{"pool-any", "test-zone-a", "on-demand"}, {"pool-any", "test-zone-b", "on-demand"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", tc.name))
			res := fidelityInput(t, manifests, types, scheduling.PackingKarpenter).solve(t)
			placed := 0
			var got []launch
			for _, c := range res.NewNodeClaims {
				placed += len(c.Pods)
				require.NotNil(t, c.Offering)
				got = append(got, launch{c.NodePool, c.Offering.Zone(), c.Offering.CapacityType()})
			}
			sort.Slice(got, func(i, j int) bool { return got[i].zone+got[i].pool < got[j].zone+got[j].pool })
			assert.Equal(t, tc.placed, placed)
			assert.Equal(t, tc.claims, got)
		})
	}
}

// TestKarpenterModeAffinityStartTakesALaunchableDomain: a self-affinity that starts its group
// takes, in Karpenter, the first domain of the group's map and is retried when its NodeClaim
// cannot launch there, as a spread's tie is. web (2 cpu, zone self-affinity) finds zone a
// first, where the only type has 1 cpu; Karpenter retries it into zone b (difftest
// plan:956029 minimised; karpenter-plan: all three web pods in b in 12 of 20 runs, none
// placed in 8). Taking a every time left every web pod pending.
func TestKarpenterModeAffinityStartTakesALaunchableDomain(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "affinity-start-unlaunchable"))
	res := fidelityInput(t, manifests, types, scheduling.PackingKarpenter).solve(t)
	assert.Empty(t, res.PodErrors)
	placed := 0
	for _, c := range res.NewNodeClaims {
		require.NotNil(t, c.Offering)
		assert.Equal(t, "test-zone-b", c.Offering.Zone())
		placed += len(c.Pods)
	}
	assert.Equal(t, 3, placed)
}

// TestKarpenterModeSpreadTakesItsMinimumOverTheNodesDomains: Karpenter takes each of a
// pod's groups' domains over the NodeClaim's own domains and intersects them, so a spread
// picks its least populated domain even where another group of the pod just drew another
// one. app-1's ScheduleAnyway zone spread over every pod ties zones a and c for app-1-5;
// its DoNotSchedule zone spread over app-0 (one pod, in zone a) takes b or c. Drawn apart,
// the two leave no zone: the pod relaxes the ScheduleAnyway spread and binds to node-0 in
// zone b, and no NodeClaim opens in zone a (karpenter-plan: 6 of 6 runs; 4 of them one
// zone-c NodeClaim with two pods and three on node-0). Karpenter mode sought the second
// spread's minimum among the first one's draw and opened a zone-a NodeClaim (difftest
// plan:964651, minimised).
func TestKarpenterModeSpreadTakesItsMinimumOverTheNodesDomains(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "spread-min-over-node-domains"))
	in := fidelityInput(t, manifests, types, scheduling.PackingKarpenter)
	res, err := scheduling.Solve(in.snap, in.opts)
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	for _, c := range res.NewNodeClaims {
		assert.Equal(t, "test-zone-c", c.Offering.Zone(), "%v", c.Pods)
	}
	onNode0 := 0
	for _, b := range res.Bindings {
		if b.To == "node-0" {
			onNode0++
		}
	}
	assert.Equal(t, 3, onNode0)
}

// TestKarpenterModeSpreadMissRetriesRelaxed: a spread tie where most tied domains cannot
// launch the NodeClaim is most likely missed by Karpenter's draw, and its retry is the pod's
// relaxed attempt, whose relaxed spread group (PreferNoSchedule tolerated: a new node
// filter) is made before the pod lands and so counts it. app-0's zone spread ties zones a, b and c; only c keeps
// pool-0's minValues 3. The first app-0 pod lands in c on its relaxed attempt; the others
// then find c full in both groups and stay pending, and both app-3 pods join its NodeClaim
// (karpenter-plan: 9 of 12 runs). Karpenter mode retried the unrelaxed form, so the second
// app-0 pod's relaxed group was made after the first landed, found c empty and opened a
// second NodeClaim there (difftest plan:991064, reduced).
func TestKarpenterModeSpreadMissRetriesRelaxed(t *testing.T) {
	manifests, types := testdataCase(t, filepath.Join("karpmode", "spread-miss-relaxed-retry"))
	res := fidelityInput(t, manifests, types, scheduling.PackingKarpenter).solve(t)
	require.Len(t, res.NewNodeClaims, 1)
	c := res.NewNodeClaims[0]
	require.NotNil(t, c.Offering)
	assert.Equal(t, "test-zone-c", c.Offering.Zone())
	apps := map[string]int{}
	for _, p := range c.Pods {
		apps[p.Labels["app"]]++
	}
	assert.Equal(t, map[string]int{"app-0": 1, "app-3": 2}, apps)
	require.Len(t, res.PodErrors, 2)
	for _, e := range res.PodErrors {
		assert.Equal(t, "app-0", e.Pod.Labels["app"])
	}
}
