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

// TestHostSpreadCapCountsDeletingNodes is TestPropSolveIsValid/CostAware's failure, minimised.
// The carrier (a hostname spread over app cache, maxSkew 1) leaves Deleting node-1 for
// node-2; pod "cache" is only selected by the spread and fits nowhere else (node-3 is full,
// the NodePool's taint). kube-scheduler counts node-1 as a host with no cache pod until it is gone,
// so if "cache" binds to node-2 first the carrier finds node-2 at 1 against 0 and is
// refused: the plan holds only in one bind order. The default judges the plan as launched
// against the Deleting node too and leaves "cache" pending.
func TestHostSpreadCapCountsDeletingNodes(t *testing.T) {
	cache := map[string]string{"app": "cache"}
	running := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Phase = corev1.PodRunning
		return p
	}
	w := &world{Objects: cluster.Objects{
		Pods: []*corev1.Pod{fake.Pod("cache").Requests("500m", "100Mi").Labels(cache).Obj()},
		// A NodePool whose taint no pod tolerates: no new host.
		NodePools:       []*v1.NodePool{fake.NodePool("default").Taint("team", "a", corev1.TaintEffectNoSchedule).Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels()}}
	w.addNode("node-1", "", fake.TestZone1, 4,
		running(fake.Pod("carrier").Requests("700m", "100Mi").Labels(cache).TopologySpread(corev1.LabelHostname, 1, cache).Obj()))
	w.addNode("node-2", "", fake.TestZone1, 4)
	w.addNode("node-3", "", fake.TestZone2, 1, running(fake.Pod("cache-running").Requests("900m", "100Mi").Labels(cache).Obj()))
	w.deleting = []string{"node-1"}
	snap := w.snap(t)

	res := mustSolve(t, snap, scheduling.Options{})
	require.Len(t, res.Bindings, 1)
	assert.Equal(t, "carrier", res.Bindings[0].Pod.Name)
	assert.Equal(t, "node-2", res.Bindings[0].To)
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "cache", res.PodErrors[0].Pod.Name)

	// Both on node-2 is the plan that breaks the spread as launched.
	both := *res
	both.Bindings = append(append([]cluster.Move(nil), res.Bindings...), cluster.Move{Pod: res.PodErrors[0].Pod, To: "node-2"})
	both.PodErrors = nil
	vs := verify.Solve(snap, scheduling.Options{}, &both)
	require.Len(t, vs, 1, "%v", vs)
	assert.Equal(t, verify.TopologySpreadAsLaunched, vs[0].Code)
}
