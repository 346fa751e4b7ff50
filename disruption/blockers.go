package disruption

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/scheduling"
)

// BlockCode is a machine-readable code for one thing that keeps a node out of every
// command. The set is closed. A kept node lists all that apply (Blocked.Blockers);
// Blocked.Message is the English of the first (Blocker.String).
type BlockCode string

// Block reasons. Blocker.Object names what each one concerns.
const (
	BlockNodePoolNotFound     BlockCode = "NodePoolNotFound"     // Object: the NodePool
	BlockNoNode               BlockCode = "NoNode"               // the NodeClaim has no Node yet
	BlockDeleting             BlockCode = "Deleting"             // already deleting
	BlockUninitialized        BlockCode = "Uninitialized"        // not initialized
	BlockDoNotDisruptNode     BlockCode = "DoNotDisruptNode"     // Object: the node
	BlockNoInstanceTypes      BlockCode = "NoInstanceTypes"      // Object: the NodePool
	BlockNominated            BlockCode = "Nominated"            // pods are planned onto it
	BlockBudget               BlockCode = "Budget"               // Object: the NodePool; Budget: the disruption reason
	BlockStatic               BlockCode = "Static"               // Object: the static NodePool
	BlockDoNotDisruptPod      BlockCode = "DoNotDisruptPod"      // Object: namespace/pod
	BlockPDB                  BlockCode = "PDB"                  // Object: namespace/PDB
	BlockPDBConflict          BlockCode = "PDBConflict"          // Object: namespace/pod selected by several PDBs
	BlockConsolidateAfter     BlockCode = "ConsolidateAfter"     // Object: the NodePool (not elapsed yet)
	BlockConsolidateNever     BlockCode = "ConsolidateNever"     // Object: the NodePool (consolidateAfter Never)
	BlockWhenEmpty            BlockCode = "WhenEmpty"            // Object: the NodePool (policy WhenEmpty, node not empty)
	BlockNotConsolidatable    BlockCode = "NotConsolidatable"    // Object: the instance type not offered, or the missing zone/capacity-type label
	BlockPodUnschedulable     BlockCode = "PodUnschedulable"     // Object: namespace/pod the simulation cannot place (PodError), or places only on an uninitialized Node
	BlockTooManyReplacements  BlockCode = "TooManyReplacements"  // consolidation would need several new nodes
	BlockNoCheaperReplacement BlockCode = "NoCheaperReplacement" // no acceptable cheaper replacement
	BlockBalanced             BlockCode = "Balanced"             // a Balanced NodePool's score rejects the move
	BlockRepairPending        BlockCode = "RepairPending"        // unhealthy, toleration not over yet
	BlockRepairLimited        BlockCode = "RepairLimited"        // unhealthy, too many unhealthy nodes to repair
	BlockNoDisruption         BlockCode = "NoDisruption"         // nothing blocks it: no method gains by disrupting it
)

// Blocker is one reason a node is kept, as data: its code, the object it concerns and the
// facts behind it. Which fields a code sets is documented at the field; the rest are zero.
// String is its English, the only place that text is built.
type Blocker struct {
	Code   BlockCode
	Object string
	// Budget is the budget's disruption reason (Empty, Drifted, Underutilized), for BlockBudget.
	Budget string
	// Drift is why the node drifted when this blocker is what keeps the drifted node from
	// drift (the first pod blocker of a node without terminationGracePeriod, the Budget or
	// PodUnschedulable of its drift attempt); the zero Drift otherwise.
	Drift Drift

	// Pod is the pod (namespace/name) of DoNotDisruptPod, PDB (the node's first pod it
	// blocks), PDBConflict and PodUnschedulable.
	Pod string
	// Annotation is DoNotDisruptPod's karpenter.sh/do-not-disrupt value ("true" or a
	// duration).
	Annotation string
	// PDBs are the PodDisruptionBudgets (namespace/name) selecting PDBConflict's pod, in input
	// order.
	PDBs []string
	// PodError is why PodUnschedulable's pod cannot be rescheduled, from the simulation; nil
	// when the simulation placed it only on Node, which is not initialized yet.
	PodError *scheduling.PodError
	// Node is the uninitialized node or in-flight NodeClaim PodUnschedulable's pod would go to
	// (PodError nil); a NodeClaim this Plan launched is named as in Command.Destinations.
	Node string
	// Command is the command whose simulation nominated the node (Nominated; 0: the
	// provisioner's pass, for the pending pods and those of deleting and expired nodes).
	Command int

	// At is when a DoNotDisruptPod duration ends (nil for "true" or a pod without start
	// time), when ConsolidateAfter's consolidateAfter elapses, and when RepairPending's node is
	// repaired.
	At *time.Time
	// Duration is ConsolidateAfter's consolidateAfter and RepairPending's toleration.
	Duration time.Duration

	// Allowed, Nodes and Disrupting are Budget's numbers: the disruptions it allows, the
	// NodePool's counted nodes, and those already disrupting. For RepairLimited, Allowed is how
	// many unhealthy nodes still allow repair (maxUnhealthyPercent of Nodes, rounded up) and
	// Nodes the nodes of NodePool (of the cluster when NodePool is ""), Unhealthy of them
	// unhealthy.
	Allowed, Nodes, Disrupting, Unhealthy int
	// Detail is the text of an input error a blocker passes on: an invalid budget (Budget), the
	// minValues error of a price-filtered replacement (NoCheaperReplacement, ReplacementMinValues).
	Detail string

	// NodePool is the NodePool that does not offer NotConsolidatable's instance type, the
	// Balanced NodePool whose Score rejects the move, RepairLimited's NodePool.
	NodePool string
	// Label is the label NotConsolidatable's node lacks (zone or capacity type; "" when it is
	// the instance type, Object, that NodePool does not offer).
	Label string
	// NewNodes is how many new nodes TooManyReplacements' consolidation would need.
	NewNodes int
	// Replacement says why NoCheaperReplacement found none (see ReplacementCode). Price is the
	// candidates' price per hour; for ReplacementNotCheaper CheapestType and CheapestPrice are
	// the cheapest instance type that fits and its price ("" when none has an offering);
	// InstanceTypes are the cheaper spot types found for ReplacementTooFewSpotTypes.
	Replacement   ReplacementCode
	Price         float64
	CheapestType  string
	CheapestPrice float64
	InstanceTypes int
	// Score is Balanced's score of the move (below 1/balancedK).
	Score float64
	// Condition is the unhealthy node condition of RepairPending and RepairLimited.
	Condition *corev1.NodeCondition
}

// ReplacementCode says why consolidation found no acceptable cheaper replacement.
type ReplacementCode string

// Replacement codes (Blocker.Replacement of BlockNoCheaperReplacement).
const (
	// ReplacementNotCheaper: no launchable instance type is cheaper than Price.
	ReplacementNotCheaper ReplacementCode = "NotCheaper"
	// ReplacementSpotToSpotDisabled: every candidate is spot and Options.SpotToSpotConsolidation
	// is off.
	ReplacementSpotToSpotDisabled ReplacementCode = "SpotToSpotDisabled"
	// ReplacementTooFewSpotTypes: single-node spot-to-spot consolidation needs
	// minSpotToSpotTypes cheaper spot types, InstanceTypes were found.
	ReplacementTooFewSpotTypes ReplacementCode = "TooFewSpotTypes"
	// ReplacementMinValues: the cheaper instance types break the replacement's minValues
	// (Detail).
	ReplacementMinValues ReplacementCode = "MinValues"
	// ReplacementSameInstanceType: multi-node consolidation would replace candidates by the instance
	// type of one of them, at no lower price.
	ReplacementSameInstanceType ReplacementCode = "SameInstanceType"
)

// key is what makes two blockers the same blocker: one PDB blocking many pods, or one budget
// found exhausted by several methods, is listed once.
type blockerKey struct {
	code           BlockCode
	object, budget string
}

func (b Blocker) key() blockerKey { return blockerKey{b.Code, b.Object, b.Budget} }

func newBlock(code BlockCode, object string) Blocker { return Blocker{Code: code, Object: object} }

// blocks appends to out, in the order Blocked.Message picks its first, every reason n is kept.
func (s *state) blocks(n *node, left map[v1.DisruptionReason]budgetLeft, out []Blocker) []Blocker {
	add := func(b Blocker) { out = appendNew(out, b) }
	if n.notCandidate != "" && n.unavailable {
		add(newBlock(n.notCandidate, n.notCandidateObject))
	}
	if by, ok := s.nominated[n.Name()]; ok {
		b := newBlock(BlockNominated, "")
		b.Command = by
		add(b)
	}
	if n.notCandidate != "" && !n.unavailable {
		add(newBlock(n.notCandidate, n.notCandidateObject))
	}
	if r, ok := s.reasons[n]; ok {
		add(r)
	}
	if n.static() {
		add(newBlock(BlockStatic, n.poolName))
	}
	for i, b := range n.podBlockers {
		if i == 0 && n.drifted() && !n.hasTGP {
			b.Drift = n.drift
		}
		add(b)
	}
	if n.pool == nil {
		return s.withRepair(n, out)
	}
	if n.pool.Spec.Disruption.ConsolidateAfter.IsNever() {
		add(newBlock(BlockConsolidateNever, n.poolName))
	} else if s.now.Before(n.consolidatableAt) {
		b := newBlock(BlockConsolidateAfter, n.poolName)
		at := n.consolidatableAt.UTC()
		b.At = &at
		if d := n.pool.Spec.Disruption.ConsolidateAfter.Duration; d != nil {
			b.Duration = *d
		}
		add(b)
	}
	if !n.empty() && n.policy() == v1.ConsolidationPolicyWhenEmpty {
		add(newBlock(BlockWhenEmpty, n.poolName))
	}
	if !n.empty() {
		if b := consolidationUnfit(n); b.Code != "" {
			add(b)
		}
	}
	if len(out) == 0 {
		add(newBlock(BlockNoDisruption, ""))
	} else if !n.unavailable { // an unavailable node is outside the budgets' node count
		out = s.budgetBlocks(n, out, left)
	}
	return s.withRepair(n, out)
}

// budgetBlocks appends to have the budgets, as the plan leaves them, of the methods that
// cover n (graceful ones first, then eventual ones: Empty or Underutilized, then Drifted
// when it drifted) and would stop it, unless listed already: a node another blocker kept from
// every method still shows its exhausted budget.
func (s *state) budgetBlocks(n *node, have []Blocker, left map[v1.DisruptionReason]budgetLeft) []Blocker {
	for _, eventual := range []bool{false, true} {
		for _, m := range s.methods {
			if m.eventual() != eventual || !m.covers(n) {
				continue
			}
			l := left[v1.DisruptionReason(m.reason())]
			if l.left[n.poolName] > 0 {
				continue
			}
			if b := l.why[n.poolName]; !hasBlocker(have, b) {
				have = append(have, b)
			}
		}
	}
	return have
}

// appendNew appends b to bs unless bs lists it already (same code, object and budget).
func appendNew(bs []Blocker, b Blocker) []Blocker {
	if hasBlocker(bs, b) {
		return bs
	}
	return append(bs, b)
}

func hasBlocker(bs []Blocker, b Blocker) bool {
	for _, x := range bs {
		if x.key() == b.key() {
			return true
		}
	}
	return false
}

// budgetsLeft is the budget of every method's reason as the plan leaves them.
func (s *state) budgetsLeft() map[v1.DisruptionReason]budgetLeft {
	out := map[v1.DisruptionReason]budgetLeft{}
	for _, m := range s.methods {
		if r := v1.DisruptionReason(m.reason()); out[r].left == nil {
			out[r] = s.budgets(r)
		}
	}
	return out
}

// withRepair puts why an unhealthy node is not repaired (yet) before its other blocks.
func (s *state) withRepair(n *node, bs []Blocker) []Blocker {
	if b, ok := s.mech.repair[n]; ok {
		bs = append(bs, Blocker{})
		copy(bs[1:], bs)
		bs[0] = b
	}
	return bs
}

// blocked is n's Blocked entry: every blocker.
func (s *state) blocked(n *node, left map[v1.DisruptionReason]budgetLeft) Blocked {
	var buf [8]Blocker // most nodes have one or two blockers: one allocation of the right size
	b := Blocked{Node: n.Name(), Blockers: slices.Clone(s.blocks(n, left, buf[:0])), Drift: n.drift}
	if !n.expiresAt.IsZero() {
		at := n.expiresAt.UTC()
		b.ExpiresAt = &at
	}
	return b
}
