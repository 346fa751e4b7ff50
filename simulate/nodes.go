package simulate

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
)

// lifecycle runs a node's timed step: its Node registers, it initializes, its drained
// instance is gone, or its interrupted instance ends.
func (s *sim) lifecycle(kind itemKind, name string) error {
	switch kind {
	case kindRegister:
		return s.register(name)
	case kindInitialize:
		return s.initialize(name)
	case kindTerminate:
		return s.terminate(name, false)
	default:
		return s.terminate(name, true)
	}
}

// register: the launched NodeClaim's Node joins, uninitialized (its startup taints on, its
// pods not running yet); the NodeClaim gets status.nodeName and Registered=True.
func (s *sim) register(claim string) error {
	n := s.inFlight(claim)
	if n == nil {
		return nil // gone before it registered
	}
	nc := n.NodeClaim.DeepCopy()
	nc.Status.NodeName = nc.Name
	setCondition(nc, v1.ConditionTypeRegistered, s.now)
	next, err := s.state.WithUpdatedNodeClaims(nc)
	if err != nil {
		return err
	}
	if s.state, err = next.WithNodes(cluster.NodeFor(nc, s.now, false)); err != nil {
		return err
	}
	s.registeredAt[claim] = s.now
	s.queue.push(s.now.Add(s.set.InitializationLatency), kindInitialize, claim)
	s.trace.event(Event{Kind: EventRegistered, NodeClaims: []string{claim}})
	return nil
}

// initialize: the node is ready, its startup taints gone, karpenter.sh/initialized=true; the
// NodeClaim gets Initialized=True. Its pods start (settle), and commands waiting for it as a
// replacement go on.
func (s *sim) initialize(claim string) error {
	n := s.registered(claim)
	if n == nil {
		return nil
	}
	nc := n.NodeClaim.DeepCopy()
	setCondition(nc, v1.ConditionTypeInitialized, s.now)
	node := cluster.NodeFor(nc, s.registeredAt[claim], true)
	node.Spec.Taints = n.Node.Spec.Taints[:0:0]
	for _, t := range n.Node.Spec.Taints {
		if !slices.ContainsFunc(nc.Spec.StartupTaints, func(st corev1.Taint) bool { return st.MatchTaint(&t) }) {
			node.Spec.Taints = append(node.Spec.Taints, t)
		}
	}
	node.DeletionTimestamp = n.Node.DeletionTimestamp
	next, err := s.state.WithUpdatedNodeClaims(nc)
	if err != nil {
		return err
	}
	if s.state, err = next.WithUpdatedNodes(node); err != nil {
		return err
	}
	s.trace.event(Event{Kind: EventInitialized, NodeClaims: []string{claim}})
	s.unconsolidate()
	return s.replacementsReady()
}

// inFlight is the NodeClaim of that name without a Node yet, or nil.
func (s *sim) inFlight(claim string) *cluster.Node {
	n := s.state.Find(claim)
	if n == nil || n.Node != nil || n.NodeClaim == nil || n.NodeClaim.Name != claim {
		return nil
	}
	return n
}

// registered is the registered node of the NodeClaim of that name, or nil.
func (s *sim) registered(claim string) *cluster.Node {
	n := s.state.Find(claim)
	if n == nil || n.Node == nil || n.NodeClaim == nil || n.NodeClaim.Name != claim {
		return nil
	}
	return n
}

func setCondition(nc *v1.NodeClaim, typ string, at time.Time) {
	c := metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: typ, LastTransitionTime: metav1.NewTime(at)}
	for i := range nc.Status.Conditions {
		if nc.Status.Conditions[i].Type == typ {
			nc.Status.Conditions[i] = c
			return
		}
	}
	nc.Status.Conditions = append(nc.Status.Conditions, c)
}

// replacementsReady starts deleting the candidates of every command whose replacements are
// all initialized (Karpenter's orchestration queue waits for that before it deletes them).
func (s *sim) replacementsReady() error {
	var waiting []*carrying
	for _, c := range s.carrying {
		ready := true
		for _, r := range c.replacements {
			n := s.state.Find(r)
			if n == nil {
				// A replacement that vanished fails the command: its candidates are freed.
				ready = false
				s.unmark(c)
				s.trace.event(Event{Kind: EventAbandoned, Reason: string(c.cmd.Reason), Method: string(c.cmd.Method),
					Nodes: sortedNames(c.cmd.Candidates), Detail: fmt.Sprintf("replacement %s is gone", r)})
				c = nil
				break
			}
			if n.Node == nil || n.Node.Labels[v1.NodeInitializedLabelKey] != "true" {
				ready = false
			}
		}
		switch {
		case c == nil:
		case ready:
			for _, name := range c.cmd.Candidates {
				if err := s.startDeletion(name, string(c.cmd.Reason), false); err != nil {
					return err
				}
			}
		default:
			waiting = append(waiting, c)
		}
	}
	s.carrying = waiting
	return nil
}

// unmark frees a failed command's candidates: no longer marked, the disrupted taint off.
func (s *sim) unmark(c *carrying) {
	var names []string
	for _, name := range c.cmd.Candidates {
		if s.marked[name] {
			delete(s.marked, name)
			names = append(names, name)
		}
	}
	s.state = s.state.WithoutDisruptedTaint(names...)
	s.unconsolidate()
}

// mark marks a graceful command's candidates for deletion (the engines see them Deleting:
// no pods land there, their pods are planned again) and taints them
// karpenter.sh/disrupted:NoSchedule.
func (s *sim) mark(names []string) error {
	s.unconsolidate()
	var tainted []*corev1.Node
	for _, name := range names {
		s.marked[name] = true
		if n := s.state.Find(name); n != nil && n.Node != nil {
			tainted = append(tainted, withDisruptedTaint(n.Node))
		}
	}
	var err error
	s.state, err = s.state.WithUpdatedNodes(tainted...)
	return err
}

// withDisruptedTaint is a copy of the Node with karpenter.sh/disrupted:NoSchedule.
func withDisruptedTaint(n *corev1.Node) *corev1.Node {
	if slices.ContainsFunc(n.Spec.Taints, cluster.IsDisruptedTaint) {
		return n
	}
	c := n.DeepCopy()
	c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule})
	return c
}

// startDeletion deletes the node's NodeClaim (its Node's, without one): deletionTimestamp now
// and the disrupted taint on the Node; the drain runs from the next disruption tick. A repair
// (forceNow) sets the termination deadline to now.
func (s *sim) startDeletion(name, reason string, forceNow bool) error {
	n := s.state.Find(name)
	if n == nil || s.deleting[name] != nil {
		return nil
	}
	delete(s.marked, name)
	at := metav1.NewTime(s.now)
	var err error
	next := s.state
	if n.NodeClaim != nil {
		nc := n.NodeClaim.DeepCopy()
		nc.DeletionTimestamp = &at
		if forceNow {
			if nc.Annotations == nil {
				nc.Annotations = map[string]string{}
			}
			nc.Annotations[v1.NodeClaimTerminationTimestampAnnotationKey] = s.now.UTC().Format(time.RFC3339)
		}
		if next, err = next.WithUpdatedNodeClaims(nc); err != nil {
			return err
		}
	}
	if n.Node != nil {
		node := withDisruptedTaint(n.Node)
		if n.NodeClaim == nil {
			node = node.DeepCopy()
			node.DeletionTimestamp = &at
		}
		if next, err = next.WithUpdatedNodes(node); err != nil {
			return err
		}
	}
	s.state = next
	s.unconsolidate()
	s.deleting[name] = &deletion{since: s.now, reason: reason}
	s.trace.totals.Disruptions[reason]++
	if n.Node == nil {
		// An in-flight claim has nothing to drain: its instance goes at once.
		return s.terminate(name, false)
	}
	s.arrive() // trigger.node: the provisioner plans the pods of a node being deleted
	return nil
}

// terminate ends the node's instance: it is no longer billed and leaves the cluster. Pods
// still on it are deleted (an instance that ended under them, ended=true, or that were
// left alone by the drain): their controllers make them anew, pending, unless they are
// DaemonSet, static or finished pods.
func (s *sim) terminate(name string, ended bool) error {
	n := s.state.Find(name)
	if n == nil {
		return nil
	}
	if ended {
		if _, ok := s.instanceEnds[name]; !ok {
			return nil
		}
	} else if _, drained := s.terminating[name]; !drained && s.deleting[name] != nil && n.Node != nil {
		return nil
	}
	delete(s.instanceEnds, name)
	delete(s.terminating, name)
	if n.NodeClaim != nil {
		if err := cloudprovider.Terminate(s.ctx, s.cloud, []*v1.NodeClaim{n.NodeClaim}); err != nil {
			return err
		}
	}
	var gone []*corev1.Pod
	for _, p := range n.Pods {
		if !cluster.IsTerminal(p) {
			gone = append(gone, p)
		}
	}
	s.state = s.state.Without(name)
	s.unconsolidate()
	delete(s.deleting, name)
	delete(s.marked, name)
	if err := s.recreate(gone, false); err != nil {
		return err
	}
	s.trace.event(Event{Kind: EventTerminated, Nodes: []string{name}, Pods: len(gone)})
	return nil
}

// recreate puts pods that left their node (evicted, or deleted with it) back as their
// controllers make them: pending again under the same name, unless they are DaemonSet or
// static pods (which vanish). The snapshot must no longer hold them on a node.
func (s *sim) recreate(pods []*corev1.Pod, evicted bool) error {
	if len(pods) == 0 {
		return nil
	}
	s.unconsolidate() // pods deleted
	if evicted {
		s.step.Evicted = append(s.step.Evicted, pods...)
		s.trace.totals.Evictions += len(pods)
	} else {
		s.step.Deleted = append(s.step.Deleted, pods...)
		s.trace.totals.Deleted += len(pods)
	}
	var again []*corev1.Pod
	for _, p := range pods {
		if cluster.IsReschedulable(p) {
			again = append(again, pendingCopy(p))
		}
	}
	if len(again) == 0 {
		return nil
	}
	next, err := s.state.WithPods(again...)
	if err != nil {
		return err
	}
	s.state = next
	s.arrive()
	return nil
}

// pendingCopy is the pod as its controller makes it again: unbound and pending.
func pendingCopy(p *corev1.Pod) *corev1.Pod {
	c := *p
	c.Spec.NodeName = ""
	c.DeletionTimestamp = nil
	c.Status = corev1.PodStatus{Phase: corev1.PodPending}
	return &c
}
