package cluster

import (
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// What time writes on a cluster's objects. disruption.Plan reads times from the objects
// (lastPodEventTime for consolidateAfter, creation for expireAfter, pod start times for
// do-not-disrupt durations, pod readiness for PodDisruptionBudgets), which a real cluster's
// controllers keep current. A host that simulates its cluster (the fake cloud, package
// simulate) keeps them current with these forks after each change, or Plan judges stale
// times: without WithPodEvents a node whose pods just left is consolidated at once, whatever
// its consolidateAfter.

// PodEventDedupe is Karpenter's podevents dedupe window: a NodeClaim whose lastPodEventTime
// is younger than this is not stamped again (the event is dropped, not deferred).
const PodEventDedupe = 10 * time.Second

// WithPodEvents is the snapshot with status.lastPodEventTime set to now on the NodeClaim of
// every registered node (a Node with its NodeClaim) that had a pod event since before, as
// Karpenter's podevents controller writes it: a pod that is not a DaemonSet's was bound to the
// node (it was not there in before, or the node had no Node yet), went terminal or
// terminating there, or left it (deleted or moved). A NodeClaim stamped less than
// PodEventDedupe before now keeps its time. Nodes are matched with before by their
// NodeClaim's name; the NodeClaims stamped are copies, everything else is shared. A nil
// before counts every pod of a registered node as just bound.
func (s *Snapshot) WithPodEvents(before *Snapshot, now time.Time) *Snapshot {
	var prev map[string]*Node
	if before != nil {
		prev = make(map[string]*Node, len(before.nodes))
		for _, n := range before.nodes {
			if n.NodeClaim != nil {
				prev[n.NodeClaim.Name] = n
			}
		}
	}
	return s.editNodes(func(n *Node) *Node {
		if n.Node == nil || n.NodeClaim == nil {
			return nil
		}
		if last := n.NodeClaim.Status.LastPodEventTime.Time; !last.IsZero() && now.Sub(last) < PodEventDedupe {
			return nil
		}
		if !podEvent(prev[n.NodeClaim.Name], n) {
			return nil
		}
		nc := n.NodeClaim.DeepCopy()
		nc.Status.LastPodEventTime = metav1.NewTime(now)
		c := *n
		c.NodeClaim = nc
		return &c
	})
}

// podEvent reports whether a pod (not a DaemonSet's) was bound to n, went terminal or
// terminating on it, or left it since b (n's node as it was; nil or without a Node: every pod
// of n was just bound).
func podEvent(b, n *Node) bool {
	if b != nil && b.Node != nil && slices.Equal(b.Pods, n.Pods) {
		return false
	}
	was := map[string]*corev1.Pod{}
	if b != nil && b.Node != nil {
		for _, p := range b.Pods {
			if !IsDaemonSetPod(p) {
				was[PodKey(p)] = p
			}
		}
	}
	for _, p := range n.Pods {
		if IsDaemonSetPod(p) {
			continue
		}
		k := PodKey(p)
		q, ok := was[k]
		if !ok || (!IsTerminal(q) && IsTerminal(p)) || (q.DeletionTimestamp == nil && p.DeletionTimestamp != nil) {
			return true
		}
		delete(was, k)
	}
	return len(was) > 0
}

// WithPodsRunning is the snapshot with every pod that waits on a node ready for pods started
// at now: status.phase Running, status.startTime now and the PodScheduled and Ready
// conditions True (a copy of each pod started; the PodDisruptionBudgets are read again, as
// those pods now count as healthy). A pod waits when it is bound and neither finished,
// terminating nor running; a node is ready for pods when it has a Node whose Ready condition
// is not False or Unknown and, if Karpenter manages it (a NodeClaim or a NodePool label), that
// is initialized (karpenter.sh/initialized=true): pods planned onto an in-flight NodeClaim or
// an uninitialized node wait, as kube-scheduler binds them only once the node is ready.
func (s *Snapshot) WithPodsRunning(now time.Time) *Snapshot {
	started := false
	c := s.editNodes(func(n *Node) *Node {
		if !readyForPods(n) {
			return nil
		}
		var pods []*corev1.Pod
		for i, p := range n.Pods {
			if !waiting(p) {
				continue
			}
			if pods == nil {
				pods = append([]*corev1.Pod(nil), n.Pods...)
			}
			pods[i] = runningAt(p, now)
		}
		if pods == nil {
			return nil
		}
		started = true
		e := *n
		e.Pods = pods
		return &e
	})
	if started {
		c.readPDBs()
	}
	return c
}

// readyForPods: a registered Node, Ready, initialized when Karpenter manages it.
func readyForPods(n *Node) bool {
	if n.Node == nil || nodeNotReady(n.Node) {
		return false
	}
	managed := n.NodeClaim != nil || n.Node.Labels[v1.NodePoolLabelKey] != ""
	return !managed || n.Node.Labels[v1.NodeInitializedLabelKey] == "true"
}

func nodeNotReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false
}

// waiting: bound, not finished, not terminating, not running.
func waiting(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && !IsTerminal(p) && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodRunning
}

// runningAt is a copy of p started at now (its spec and metadata shared).
func runningAt(p *corev1.Pod, now time.Time) *corev1.Pod {
	c := *p
	c.Status = *p.Status.DeepCopy()
	c.Status.Phase = corev1.PodRunning
	t := metav1.NewTime(now)
	c.Status.StartTime = &t
	c.Status.Conditions = nil
	for _, cond := range p.Status.Conditions {
		if cond.Type != corev1.PodScheduled && cond.Type != corev1.PodReady {
			c.Status.Conditions = append(c.Status.Conditions, cond)
		}
	}
	c.Status.Conditions = append(c.Status.Conditions,
		corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: t},
		corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t})
	return &c
}

// WithUpdatedNodes is the snapshot with these Nodes in place of the Nodes of the same name
// (a new label, taint, condition or deletionTimestamp): each keeps its NodeClaim and pods. A
// name the snapshot holds no Node of is an *InvalidInputError (as is a nil Node).
func (s *Snapshot) WithUpdatedNodes(nodes ...*corev1.Node) (*Snapshot, error) {
	const op = "cluster.WithUpdatedNodes"
	byName := make(map[string]*corev1.Node, len(nodes))
	for i, n := range nodes {
		if n == nil {
			return nil, nilObject(op, "Node", fmt.Sprintf("nodes[%d]", i))
		}
		byName[n.Name] = n
	}
	c := s.editNodes(func(n *Node) *Node {
		if n.Node == nil || byName[n.Node.Name] == nil {
			return nil
		}
		e := *n
		e.Node = byName[n.Node.Name]
		delete(byName, n.Node.Name)
		return &e
	})
	if len(byName) > 0 {
		return nil, notInSnapshot(op, "Node", slices.Sorted(maps.Keys(byName)))
	}
	return c, nil
}

// WithUpdatedNodeClaims is the snapshot with these NodeClaims in place of the NodeClaims of
// the same name (new status, conditions, annotations or deletionTimestamp): each keeps its
// Node and pods, an in-flight one stays in flight. A name the snapshot holds no NodeClaim of
// is an *InvalidInputError (as is a nil NodeClaim).
func (s *Snapshot) WithUpdatedNodeClaims(claims ...*v1.NodeClaim) (*Snapshot, error) {
	const op = "cluster.WithUpdatedNodeClaims"
	byName := make(map[string]*v1.NodeClaim, len(claims))
	for i, nc := range claims {
		if nc == nil {
			return nil, nilObject(op, "NodeClaim", fmt.Sprintf("claims[%d]", i))
		}
		byName[nc.Name] = nc
	}
	c := s.editNodes(func(n *Node) *Node {
		if n.NodeClaim == nil || byName[n.NodeClaim.Name] == nil {
			return nil
		}
		e := *n
		e.NodeClaim = byName[n.NodeClaim.Name]
		delete(byName, n.NodeClaim.Name)
		return &e
	})
	if len(byName) > 0 {
		return nil, notInSnapshot(op, "NodeClaim", slices.Sorted(maps.Keys(byName)))
	}
	return c, nil
}

// editNodes is the snapshot with node i replaced by edit(node i) wherever that is not nil
// (s itself when edit changes nothing). edit must keep the name pods bind to, so the index
// of those is shared.
func (s *Snapshot) editNodes(edit func(*Node) *Node) *Snapshot {
	var nodes []*Node
	renamed := false
	for i, n := range s.nodes {
		e := edit(n)
		if e == nil {
			continue
		}
		if nodes == nil {
			nodes = append([]*Node(nil), s.nodes...)
		}
		nodes[i] = e
		renamed = renamed || e.Name() != n.Name()
	}
	if nodes == nil {
		return s
	}
	c := *s
	c.nodes = nodes
	if renamed { // a claim's status.nodeName set: the index of both names is another
		c.idx = builtIndex(s.byName())
	}
	return &c
}

// notInSnapshot is the error for objects of kind, by name, that the snapshot does not hold
// (names sorted; the first is the error's object).
func notInSnapshot(op, kind string, names []string) *InvalidInputError {
	if len(names) > 1 {
		return invalid(op, InputNotFound, kind, names[0], "", "not in the snapshot (nor are %q)", names[1:])
	}
	return invalid(op, InputNotFound, kind, names[0], "", "not in the snapshot")
}
