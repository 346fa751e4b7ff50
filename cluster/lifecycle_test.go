package cluster_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/verify"
)

// webNodes is twoNodes with NodePool default's consolidateAfter after and pdbs: a running
// web-0 and web-1 on a, web-2 on b, a DaemonSet pod on each.
func webNodes(t *testing.T, after time.Duration, pdbs ...*policyv1.PodDisruptionBudget) *cluster.Snapshot {
	t.Helper()
	pool := fake.NodePool("default").Disruption(v1.Disruption{ConsolidateAfter: v1.NewNillableDuration(after)}).Obj()
	running := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &metav1.Time{Time: t0}
		return p
	}
	web := func(name, node string) *corev1.Pod {
		return running(fake.Pod(name).Label("app", "web").Requests("500m", "256Mi").NodeName(node).Obj())
	}
	ds := func(node string) *corev1.Pod {
		p := fake.Pod("ds-"+node).Requests("100m", "64Mi").NodeName(node).Obj()
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds"}}
		return running(p)
	}
	return twoNodesOf(t, pool, pdbs, nil, web("web-0", "a"), web("web-1", "a"), web("web-2", "b"), ds("a"), ds("b"))
}

// lastPodEvent is the named node's NodeClaim's lastPodEventTime.
func lastPodEvent(s *cluster.Snapshot, node string) time.Time {
	return s.Node(node).NodeClaim.Status.LastPodEventTime.Time
}

func podOf(s *cluster.Snapshot, node, name string) *corev1.Pod {
	for _, p := range s.Node(node).Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func TestWithPodEvents(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, s *cluster.Snapshot) *cluster.Snapshot
		stamped []string // the nodes whose lastPodEventTime becomes at
	}{
		{name: "nothing changed", change: func(_ *testing.T, s *cluster.Snapshot) *cluster.Snapshot { return s }},
		{name: "a pod leaves", stamped: []string{"a"}, change: func(_ *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			return s.WithoutPods(podOf(s, "a", "web-0"))
		}},
		{name: "a pod binds", stamped: []string{"b"}, change: func(t *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			next, err := s.WithPods(fake.Pod("web-3").NodeName("b").Obj())
			require.NoError(t, err)
			return next
		}},
		{name: "a pod moves", stamped: []string{"a", "b"}, change: func(t *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			next, err := s.Carry(nil, []cluster.Move{{Pod: podOf(s, "a", "web-1"), To: "b"}}, nil)
			require.NoError(t, err)
			return next
		}},
		{name: "a pod goes terminal", stamped: []string{"b"}, change: func(t *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			done := podOf(s, "b", "web-2").DeepCopy()
			done.Status.Phase = corev1.PodSucceeded
			next, err := s.WithoutPods(done).WithPods(done)
			require.NoError(t, err)
			return next
		}},
		{name: "a pod starts terminating", stamped: []string{"a"}, change: func(t *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			gone := podOf(s, "a", "web-0").DeepCopy()
			gone.DeletionTimestamp = &metav1.Time{Time: at}
			next, err := s.WithoutPods(gone).WithPods(gone)
			require.NoError(t, err)
			return next
		}},
		{name: "a DaemonSet pod leaves: no event", change: func(_ *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			return s.WithoutPods(podOf(s, "a", "ds-a"))
		}},
		{name: "a pod starts running: no event", change: func(_ *testing.T, s *cluster.Snapshot) *cluster.Snapshot {
			p := podOf(s, "b", "web-2").DeepCopy()
			p.Status.Phase = corev1.PodPending
			next, err := s.WithoutPods(p).WithPods(p)
			require.NoError(t, err)
			return next.WithPodsRunning(at)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := webNodes(t, 5*time.Minute)
			after := tc.change(t, before)
			stamped := after.WithPodEvents(before, at)
			for _, name := range []string{"a", "b"} {
				want := time.Time{}
				if contains(tc.stamped, name) {
					want = at
				}
				assert.Equal(t, want, lastPodEvent(stamped, name), "node %s", name)
				assert.True(t, lastPodEvent(before, name).IsZero(), "node %s: the parent keeps its NodeClaim", name)
			}
			if len(tc.stamped) == 0 {
				assert.Same(t, after, stamped, "nothing to stamp: the same snapshot")
			}
		})
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Karpenter drops a pod event within PodEventDedupe of the last stamp (it does not defer it).
func TestWithPodEventsDedupes(t *testing.T) {
	s := webNodes(t, 5*time.Minute)
	at := t0.Add(time.Hour)
	one := s.WithoutPods(podOf(s, "a", "web-0"))
	one = one.WithPodEvents(s, at)
	require.Equal(t, at, lastPodEvent(one, "a"))
	two := one.WithoutPods(podOf(one, "a", "web-1"))
	assert.Equal(t, at, lastPodEvent(two.WithPodEvents(one, at.Add(cluster.PodEventDedupe-time.Second)), "a"), "within the window: dropped")
	assert.Equal(t, at.Add(cluster.PodEventDedupe), lastPodEvent(two.WithPodEvents(one, at.Add(cluster.PodEventDedupe)), "a"), "after it: stamped")
}

// A node registering with the pods planned onto its claim: they bind then, which is a pod
// event (before, the claim had no Node: Karpenter ignores pods of a node it cannot get).
func TestWithPodEventsOnRegistration(t *testing.T) {
	s, launched := applied(t, 4, -1, nil)
	for _, n := range s.Nodes() {
		assert.Nil(t, n.Node, "in flight")
	}
	assert.Same(t, s, s.WithPodEvents(nil, t0), "in-flight claims are never stamped")
	registered, err := s.WithNodesFor(launched, t0, true)
	require.NoError(t, err)
	stamped := registered.WithPodEvents(s, t0.Add(time.Minute))
	for _, nc := range launched {
		assert.Equal(t, t0.Add(time.Minute), lastPodEvent(stamped, nc.Name), "node %s", nc.Name)
	}
}

// The defect of issue #21: a host loop that never stamped lastPodEventTime had its nodes
// consolidated the instant their pods left, whatever consolidateAfter said. With the stamp,
// Plan waits consolidateAfter from the pods' leaving.
func TestConsolidateAfterCountsFromThePodsLeaving(t *testing.T) {
	const after = 5 * time.Minute
	s := webNodes(t, after)
	left := t0.Add(time.Hour)
	// web-2 leaves b; b is now empty but for its DaemonSet pod.
	next := s.WithoutPods(podOf(s, "b", "web-2")).WithPodEvents(s, left)
	plan := func(at time.Time) *disruption.Result {
		res, err := disruption.Plan(next, at, disruption.Options{})
		require.NoError(t, err)
		require.Empty(t, verify.Plan(next, at, disruption.Options{}, res))
		return res
	}
	res := plan(left)
	for _, cmd := range res.Commands {
		assert.NotContains(t, cmd.Candidates, "b", "b is within consolidateAfter")
	}
	blocked := map[string][]disruption.BlockCode{}
	for _, b := range res.Blocked {
		for _, x := range b.Blockers {
			blocked[b.Node] = append(blocked[b.Node], x.Code)
		}
	}
	assert.Contains(t, blocked["b"], disruption.BlockConsolidateAfter)

	res = plan(left.Add(after))
	require.NotEmpty(t, res.Commands)
	assert.Equal(t, disruption.ReasonEmpty, res.Commands[0].Reason)
	assert.Equal(t, []string{"b"}, res.Commands[0].Candidates)
}

func TestWithPodsRunning(t *testing.T) {
	s, launched := applied(t, 4, -1, nil)
	at := t0.Add(time.Minute)
	assert.Same(t, s, s.WithPodsRunning(at), "pods planned onto in-flight claims wait")
	uninit, err := s.WithNodesFor(launched, t0, false)
	require.NoError(t, err)
	assert.Same(t, uninit, uninit.WithPodsRunning(at), "pods bound to an uninitialized node wait")
	ready, err := s.WithNodesFor(launched, t0, true)
	require.NoError(t, err)
	running := ready.WithPodsRunning(at)
	started := 0
	for i, n := range running.Nodes() {
		for j, p := range n.Pods {
			started++
			assert.Equal(t, corev1.PodRunning, p.Status.Phase)
			require.NotNil(t, p.Status.StartTime)
			assert.Equal(t, at, p.Status.StartTime.Time)
			assert.NotEqual(t, corev1.PodRunning, ready.Nodes()[i].Pods[j].Status.Phase, "the parent's pod is not touched")
		}
	}
	assert.Equal(t, 4, started)
	assert.Same(t, running, running.WithPodsRunning(at.Add(time.Minute)), "running pods stay as they are")
}

// A PodDisruptionBudget counts a pod as healthy once it runs: the reading follows the start.
func TestWithPodsRunningRecountsPDBs(t *testing.T) {
	s := webNodes(t, 0, fake.PDB("web", "default", map[string]string{"app": "web"}, 1))
	pending := podOf(s, "b", "web-2").DeepCopy()
	pending.Status = corev1.PodStatus{Phase: corev1.PodPending}
	s, err := s.WithoutPods(pending).WithPods(pending)
	require.NoError(t, err)
	web0 := podOf(s, "a", "web-0")
	_, before := s.PDBLimits().Allowance(web0)
	_, after := s.WithPodsRunning(t0).PDBLimits().Allowance(web0)
	assert.Equal(t, int32(0), before, "3 expected, 2 healthy, 1 may be unavailable")
	assert.Equal(t, int32(1), after, "web-2 is healthy once it runs")
}

func TestWithUpdatedNodesAndClaims(t *testing.T) {
	s := webNodes(t, 0)
	tainted := s.Node("a").Node.DeepCopy()
	tainted.Spec.Taints = append(tainted.Spec.Taints, corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule})
	next, err := s.WithUpdatedNodes(tainted)
	require.NoError(t, err)
	assert.Same(t, tainted, next.Node("a").Node)
	assert.Same(t, s.Node("a").NodeClaim, next.Node("a").NodeClaim, "the claim stays paired")
	assert.Equal(t, s.Node("a").Pods, next.Node("a").Pods)
	assert.Empty(t, s.Node("a").Node.Spec.Taints, "the parent keeps its Node")

	deleting := s.Node("b").NodeClaim.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	next, err = next.WithUpdatedNodeClaims(deleting)
	require.NoError(t, err)
	assert.True(t, next.Node("b").Deleting())
	assert.False(t, s.Node("b").Deleting())

	var invalid *cluster.InvalidInputError
	_, err = s.WithUpdatedNodes(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, [3]string{string(cluster.InputNotFound), "Node", "c"}, [3]string{string(invalid.Code), invalid.Kind, invalid.Name})
	_, err = s.WithUpdatedNodeClaims(&v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, [3]string{string(cluster.InputNotFound), "NodeClaim", "c"}, [3]string{string(invalid.Code), invalid.Kind, invalid.Name})
}
