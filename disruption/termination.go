package disruption

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Drain is the termination plan Karpenter's termination finalizer runs for one node being
// deleted: taint it, evict its pods group by group, wait for what may not go yet, force the
// rest at the terminationGracePeriod deadline, then terminate the instance.
type Drain struct {
	Node string
	// Command is the 1-based index in Result.Commands of the command deleting the node, 0
	// when the input already deletes it (deletionTimestamp, or marked for deletion).
	Command int
	// Since is when the deletion started: the deletionTimestamp (else the InstanceTerminating
	// condition's transition), or Now for a new command.
	Since time.Time
	// Taint is put on the node first (karpenter.sh/disrupted:NoSchedule).
	Taint corev1.Taint
	// Deadline is when the terminationGracePeriod ends (the NodeClaim's termination
	// timestamp): whatever is left is deleted then. Nil: no terminationGracePeriod.
	Deadline *time.Time
	// Forceful: the deadline has passed (node repair sets it to now), so no pod is evicted;
	// every pod is deleted at once.
	Forceful bool
	// Groups are the eviction groups in Karpenter's order (non-critical before critical,
	// DaemonSet pods after the others); a group starts once the one before it is gone. Empty
	// groups are left out.
	Groups []DrainGroup
	// LeftAlone are pods the drain never touches: they tolerate the disrupted taint, are
	// static (mirror) pods, or have finished. They end with the instance.
	LeftAlone []PodDrain
	// Terminates says when the instance is terminated: TerminationAfterDrain,
	// TerminationAtDeadline (TerminatesAt) or TerminationBlocked.
	Terminates   TerminationCode
	TerminatesAt *time.Time
	// StallCode says why the drain cannot finish before the deadline ("" when it can);
	// Waiting are the pods it waits for (namespace/name, in drain order), each with its
	// Code. StallMessage is StallCode's English.
	StallCode StallCode
	Waiting   []string
}

// StallCode says why a drain cannot finish before its deadline. The set is closed.
type StallCode string

// Stall codes.
const (
	// StallUntilDeadline: pods wait for their PodDisruptionBudget or do-not-disrupt until
	// the terminationGracePeriod deadline deletes them.
	StallUntilDeadline StallCode = "UntilDeadline"
	// StallNoDeadline: pods wait for their PodDisruptionBudget or do-not-disrupt and no
	// terminationGracePeriod forces them (Terminates is TerminationBlocked).
	StallNoDeadline StallCode = "NoDeadline"
)

// DrainGroup is one eviction group.
type DrainGroup struct {
	Class PodClass
	Pods  []PodDrain
}

// PodClass is an eviction group of Karpenter's terminator.
type PodClass string

// Eviction groups, in the order the terminator empties them.
const (
	PodNonCritical          PodClass = "non-critical"
	PodNonCriticalDaemonSet PodClass = "non-critical-daemonset"
	PodCritical             PodClass = "critical"
	PodCriticalDaemonSet    PodClass = "critical-daemonset"
)

var podClasses = []PodClass{PodNonCritical, PodNonCriticalDaemonSet, PodCritical, PodCriticalDaemonSet}

// DrainAction is what the drain does with one pod.
type DrainAction string

// Drain actions.
const (
	// DrainEvict: evicted through the eviction API when its group's turn comes.
	DrainEvict DrainAction = "Evict"
	// DrainWaitPDB: its PodDisruptionBudget refuses the eviction now; retried, and deleted at
	// DeleteAt if the node has a deadline.
	DrainWaitPDB DrainAction = "WaitPDB"
	// DrainWaitDoNotDisrupt: karpenter.sh/do-not-disrupt keeps it; deleted at DeleteAt if
	// the node has a deadline.
	DrainWaitDoNotDisrupt DrainAction = "WaitDoNotDisrupt"
	// DrainDelete: deleted without eviction (the deadline has passed).
	DrainDelete DrainAction = "Delete"
	// DrainTerminating: already terminating; the drain waits for it.
	DrainTerminating DrainAction = "Terminating"
	// DrainLeaveAlone: never evicted (see Drain.LeftAlone).
	DrainLeaveAlone DrainAction = "LeaveAlone"
)

// TerminationCode says when a drained node's instance is terminated.
type TerminationCode string

// Termination codes.
const (
	// TerminationAfterDrain: once the evicted pods are gone and their volumes detached.
	TerminationAfterDrain TerminationCode = "AfterDrain"
	// TerminationAtDeadline: at the latest when the terminationGracePeriod ends.
	TerminationAtDeadline TerminationCode = "AtDeadline"
	// TerminationBlocked: never, while a pod waits without a deadline to force it.
	TerminationBlocked TerminationCode = "Blocked"
)

// PodDrainCode says why a drained pod waits or is left alone. The set is closed; PodDrain's
// fields named at each code carry the object it concerns.
type PodDrainCode string

// Drain reasons.
const (
	// PodDrainFinished: the pod has finished (DrainLeaveAlone).
	PodDrainFinished PodDrainCode = "Finished"
	// PodDrainStaticPod: a static (mirror) pod, the kubelet's; it ends with the node (DrainLeaveAlone).
	PodDrainStaticPod PodDrainCode = "StaticPod"
	// PodDrainToleratesDisruptedTaint: it tolerates karpenter.sh/disrupted:NoSchedule (DrainLeaveAlone).
	PodDrainToleratesDisruptedTaint PodDrainCode = "ToleratesDisruptedTaint"
	// PodDrainDoNotDisrupt: its karpenter.sh/do-not-disrupt Annotation keeps it, Until when a
	// duration ends (DrainWaitDoNotDisrupt).
	PodDrainDoNotDisrupt PodDrainCode = "DoNotDisrupt"
	// PodDrainPDB: PodDisruptionBudget PDB allows no disruption (DrainWaitPDB).
	PodDrainPDB PodDrainCode = "PDB"
	// PodDrainPDBConflict: several PodDisruptionBudgets (PDBs) select it, which the eviction API
	// refuses (DrainWaitPDB).
	PodDrainPDBConflict PodDrainCode = "PDBConflict"
	// PodDrainPDBGranted: PDB allows Allowed disruptions, all granted to pods this Plan evicts
	// before it (DrainWaitPDB).
	PodDrainPDBGranted PodDrainCode = "PDBGranted"
)

// PendingCode says why a drained pod waits in the pending set instead of landing. The set
// is closed.
type PendingCode string

// Pending codes.
const (
	// PendingNewNodeClaim: it needs a new NodeClaim from NodePool, which the next Solve
	// launches.
	PendingNewNodeClaim PendingCode = "NewNodeClaim"
	// PendingUnschedulable: it cannot be scheduled at all (PodError).
	PendingUnschedulable PendingCode = "Unschedulable"
)

// PodDrain is one pod of a drained node.
type PodDrain struct {
	Pod    *corev1.Pod
	Action DrainAction
	// Code says why the pod waits or is left alone ("" for the other actions); Message is
	// its English.
	Code PodDrainCode
	// PDB (namespace/name) is the PodDisruptionBudget of PodDrainPDB and PodDrainPDBGranted,
	// Allowed its disruptions for PodDrainPDBGranted; PDBs those of PodDrainPDBConflict.
	PDB     string
	PDBs    []string
	Allowed int
	// Annotation and Until are PodDrainDoNotDisrupt's annotation value and, for a duration,
	// when it ends (nil for "true" or a pod without start time).
	Annotation string
	Until      *time.Time
	// DeleteAt is when a waiting pod is deleted to meet the deadline: the deadline minus the
	// pod's own terminationGracePeriodSeconds, not before the deletion started.
	DeleteAt *time.Time
	// Destination is where the pod lands once it leaves: an existing node, or an in-flight
	// NodeClaim ("provisioned-N" for Result.Provisioned[N-1], "command-C-replacement-R" for
	// Commands[C-1].Replacements[R-1]). Empty when Pending is set or the pod does not move
	// (DaemonSet, static, finished pods).
	Destination string
	// PendingCode is why the pod waits in the pending set for the next Solve ("" when it
	// lands): it needs a new NodeClaim from NodePool, or cannot be scheduled at all (PodError,
	// the landing simulation's). PendingMessage is its English.
	PendingCode PendingCode
	NodePool    string
	PodError    *scheduling.PodError
}

// defaultPodGracePeriod is the API server's default terminationGracePeriodSeconds.
const defaultPodGracePeriod = 30 * time.Second

// drains plans the termination of every node being deleted: taken by a command of this Plan,
// or deleting in the input. Only Karpenter's nodes (with a NodeClaim or a NodePool label) have
// its termination finalizer.
func (s *state) drains() ([]Drain, error) {
	var draining []*node
	for _, n := range s.nodes {
		managed := n.poolName != "" || n.NodeClaim != nil
		if s.taken[n] || (n.Deleting() && managed) {
			draining = append(draining, n)
		}
	}
	if len(draining) == 0 {
		return nil, nil
	}
	land, err := s.landing(draining)
	if err != nil {
		return nil, err
	}
	used := map[*policyv1.PodDisruptionBudget]int32{}
	out := make([]Drain, 0, len(draining))
	for _, n := range draining {
		out = append(out, s.drain(n, land, used))
	}
	return out, nil
}

// drain is one node's plan; used counts the evictions each PDB has granted so far.
func (s *state) drain(n *node, land map[*corev1.Pod]PodDrain, used map[*policyv1.PodDisruptionBudget]int32) Drain {
	d := Drain{Node: n.Name(), Command: s.commandOf(n), Since: s.now,
		Taint: corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule}}
	if t := deletionTime(n); !t.IsZero() && d.Command == 0 {
		d.Since = t
	}
	d.Deadline = s.deadline(n, d.Since)
	d.Forceful = d.Deadline != nil && !s.now.Before(*d.Deadline)
	groups := map[PodClass][]PodDrain{}
	waiting := false
	for _, p := range n.Pods {
		if p == nil {
			continue
		}
		pd := land[p]
		pd.Pod = p
		class := podClass(p)
		switch {
		case cluster.IsTerminal(p):
			pd.Action, pd.Code = DrainLeaveAlone, PodDrainFinished
		case cluster.IsMirrorPod(p):
			pd.Action, pd.Code = DrainLeaveAlone, PodDrainStaticPod
		case cluster.ToleratesDisruptedTaint(p):
			pd.Action, pd.Code = DrainLeaveAlone, PodDrainToleratesDisruptedTaint
		case p.DeletionTimestamp != nil:
			pd.Action = DrainTerminating
		case d.Forceful:
			pd.Action = DrainDelete
		default:
			if value, until, ok := doNotDisrupt(p, s.now); ok {
				pd.Action, pd.Code, pd.Annotation, pd.Until = DrainWaitDoNotDisrupt, PodDrainDoNotDisrupt, value, until
			} else if s.pdbRefuses(p, used, &pd) {
				pd.Action = DrainWaitPDB
			} else {
				pd.Action = DrainEvict
			}
		}
		if pd.Action == DrainLeaveAlone {
			pd.Destination, pd.PendingCode, pd.NodePool, pd.PodError = "", "", "", nil
			d.LeftAlone = append(d.LeftAlone, pd)
			continue
		}
		if pd.Action == DrainWaitPDB || pd.Action == DrainWaitDoNotDisrupt {
			waiting = true
			d.Waiting = append(d.Waiting, cluster.PodKey(p))
			if d.Deadline != nil {
				at := d.Deadline.Add(-podGracePeriod(p))
				if at.Before(d.Since) {
					at = d.Since
				}
				pd.DeleteAt = &at
			}
		}
		groups[class] = append(groups[class], pd)
	}
	for _, c := range podClasses {
		if len(groups[c]) > 0 {
			d.Groups = append(d.Groups, DrainGroup{Class: c, Pods: groups[c]})
		}
	}
	switch {
	case d.Forceful:
		d.Terminates, d.TerminatesAt = TerminationAtDeadline, d.Deadline
	case waiting && d.Deadline != nil:
		d.Terminates, d.TerminatesAt, d.StallCode = TerminationAtDeadline, d.Deadline, StallUntilDeadline
	case waiting:
		d.Terminates, d.StallCode = TerminationBlocked, StallNoDeadline
	default:
		d.Terminates = TerminationAfterDrain
	}
	return d
}

// podClass is the pod's eviction group: critical by priority class, DaemonSet by owner.
func podClass(p *corev1.Pod) PodClass {
	critical := p.Spec.PriorityClassName == "system-cluster-critical" || p.Spec.PriorityClassName == "system-node-critical"
	switch {
	case critical && cluster.IsDaemonSetPod(p):
		return PodCriticalDaemonSet
	case critical:
		return PodCritical
	case cluster.IsDaemonSetPod(p):
		return PodNonCriticalDaemonSet
	}
	return PodNonCritical
}

func podGracePeriod(p *corev1.Pod) time.Duration {
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
		return time.Duration(*g) * time.Second
	}
	return defaultPodGracePeriod
}

// deletionTime is the node's deletionTimestamp (the NodeClaim's, else the Node's), else
// when its instance began terminating (a snapshot that lost the deletionTimestamp).
func deletionTime(n *node) time.Time {
	if c := n.NodeClaim; c != nil && c.DeletionTimestamp != nil {
		return c.DeletionTimestamp.Time
	}
	if nd := n.Node; nd != nil && nd.DeletionTimestamp != nil {
		return nd.DeletionTimestamp.Time
	}
	if n.InstanceTerminating() {
		if c := hasCondition(n.NodeClaim.Status.Conditions, v1.ConditionTypeInstanceTerminating); !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// deadline is when the node's terminationGracePeriod ends: now for a forceful repair, the
// NodeClaim's termination-timestamp annotation when it has one, else the deletion start plus
// the NodeClaim's (or, without one, its NodePool's) terminationGracePeriod.
func (s *state) deadline(n *node, since time.Time) *time.Time {
	if s.mech.forceful[n] {
		t := s.now
		return &t
	}
	if c := n.NodeClaim; c != nil {
		if v, ok := c.Annotations[v1.NodeClaimTerminationTimestampAnnotationKey]; ok {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				return &t
			}
		}
		if c.Spec.TerminationGracePeriod != nil {
			t := since.Add(c.Spec.TerminationGracePeriod.Duration)
			return &t
		}
		return nil
	}
	if n.pool != nil && n.pool.Spec.Template.Spec.TerminationGracePeriod != nil {
		t := since.Add(n.pool.Spec.Template.Spec.TerminationGracePeriod.Duration)
		return &t
	}
	return nil
}

// pdbRefuses reports whether the eviction API refuses p now, and sets pd's code and
// PodDisruptionBudgets: a PDB blocks it, or the evictions granted to earlier pods of this
// Plan used up what its PDB allows.
func (s *state) pdbRefuses(p *corev1.Pod, used map[*policyv1.PodDisruptionBudget]int32, pd *PodDrain) bool {
	if pdb, pdbs := s.pdbBlocking(p); pdb != "" {
		pd.Code, pd.PDB = PodDrainPDB, pdb
		return true
	} else if len(pdbs) > 0 {
		pd.Code, pd.PDBs = PodDrainPDBConflict, pdbs
		return true
	}
	pdb, allowed := s.pdbs.Allowance(p)
	if pdb == nil {
		return false
	}
	if used[pdb] >= allowed {
		pd.Code, pd.PDB, pd.Allowed = PodDrainPDBGranted, pdbKey(pdb), int(allowed)
		return true
	}
	used[pdb]++
	return false
}

// landing plans, in one simulation, where the pods of the draining nodes go once they leave
// (with the pending pods, on the nodes that stay and the NodeClaims in flight).
func (s *state) landing(draining []*node) (map[*corev1.Pod]PodDrain, error) {
	sim, err := s.simulateFor(draining, movable, false)
	if err != nil {
		return nil, err
	}
	out := map[*corev1.Pod]PodDrain{}
	for _, b := range sim.res.Bindings {
		out[b.Pod] = PodDrain{Destination: b.To}
	}
	for _, c := range sim.res.NewNodeClaims {
		for _, p := range c.Pods {
			out[p] = PodDrain{PendingCode: PendingNewNodeClaim, NodePool: c.NodePool}
		}
	}
	for i := range sim.res.PodErrors {
		e := &sim.res.PodErrors[i]
		out[e.Pod] = PodDrain{PendingCode: PendingUnschedulable, PodError: e}
	}
	return out, nil
}

// movable are the pods of a drained node that need a new home: the reschedulable ones, also
// those that must wait (they move at the deadline, or once their blocker goes).
func movable(n *node) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range n.Pods {
		if p != nil && cluster.IsReschedulable(p) && !cluster.ToleratesDisruptedTaint(p) {
			out = append(out, p)
		}
	}
	return out
}
