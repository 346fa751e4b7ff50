package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestAffinityGroupStartsBesideAMatchOnANodeWithoutTheKey: kube-scheduler counts the pods a
// required pod affinity selects only on nodes that have the term's topology key, so a match
// running on a node without it leaves the group's first pod free to start the group (its own
// term's exception). verify read that match as a group already running and reported the new
// group's domain (difftest plan:870214, Karpenter mode; plan:910059 in the harness's checker).
func TestAffinityGroupStartsBesideAMatchOnANodeWithoutTheKey(t *testing.T) {
	app := map[string]string{"app": "app-1"}
	running := fake.Pod("running").Requests("100m", "100Mi").Labels(app).Obj()
	running.Status.Phase = corev1.PodRunning
	member := func(name string) *corev1.Pod {
		return fake.Pod(name).Requests("100m", "100Mi").Labels(app).PodAffinity("team", app).Obj()
	}
	w := &world{Objects: cluster.Objects{
		Pods:            []*corev1.Pod{member("app-1-0"), member("app-1-1")},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Label("team", "pool-1").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(5)},
		WellKnownLabels: fake.WellKnownLabels()}}
	w.addNode("node-0", "", fake.TestZone1, 4, running) // no team label
	snap := w.snap(t)

	res, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1, "both pods start the group on one NodeClaim of team pool-1")
	assert.Empty(t, verify.Solve(snap, scheduling.Options{}, res))
}

// TestAffinityGroupStartsWithOneSelfSelectingMember: the members of a group (alike terms)
// in its one unseeded domain need not all select themselves: one that does binds first,
// with no match anywhere, and the others then find it. difftest plan:971646: app-4-0's zone
// affinity selects app-4 (itself), app-1's selects app-4 too; verify reported both app-1
// pods beside app-4-0 as a second domain of the group.
func TestAffinityGroupStartsWithOneSelfSelectingMember(t *testing.T) {
	db := map[string]string{"app": "db"}
	starter := fake.Pod("db-0").Requests("100m", "100Mi").Labels(db).PodAffinity(corev1.LabelTopologyZone, db).Obj()
	follower := func(name string) *corev1.Pod {
		return fake.Pod(name).Requests("100m", "100Mi").Labels(map[string]string{"app": "web"}).PodAffinity(corev1.LabelTopologyZone, db).Obj()
	}
	w := &world{Objects: cluster.Objects{
		Pods:            []*corev1.Pod{starter, follower("web-0"), follower("web-1")},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(5)},
		WellKnownLabels: fake.WellKnownLabels()}}
	snap := w.snap(t)

	res, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	zones := map[string]bool{}
	for _, c := range res.NewNodeClaims {
		zones[c.Offering.Zone()] = true
	}
	require.Len(t, zones, 1, "db-0 starts the group and both web pods join its zone")
	assert.Empty(t, verify.Solve(snap, scheduling.Options{}, res))
}
