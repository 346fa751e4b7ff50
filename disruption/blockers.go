package disruption

import (
	"fmt"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// BlockReason is a machine-readable code for one thing that keeps a node out of every
// command. A kept node lists all that apply (Blocked.Blockers); Blocked.Reason is the
// English of the first.
type BlockReason string

// Block reasons. Blocker.Object names what each one concerns.
const (
	BlockNodePoolNotFound     BlockReason = "NodePoolNotFound"     // Object: the NodePool
	BlockNoNode               BlockReason = "NoNode"               // the NodeClaim has no Node yet
	BlockDeleting             BlockReason = "Deleting"             // already deleting
	BlockUninitialized        BlockReason = "Uninitialized"        // not initialized
	BlockDoNotDisruptNode     BlockReason = "DoNotDisruptNode"     // Object: the node
	BlockNoInstanceTypes      BlockReason = "NoInstanceTypes"      // Object: the NodePool
	BlockNominated            BlockReason = "Nominated"            // pods are planned onto it
	BlockBudget               BlockReason = "Budget"               // Object: the NodePool; Budget: the disruption reason
	BlockStatic               BlockReason = "Static"               // Object: the static NodePool
	BlockDoNotDisruptPod      BlockReason = "DoNotDisruptPod"      // Object: namespace/pod
	BlockPDB                  BlockReason = "PDB"                  // Object: namespace/PDB
	BlockPDBConflict          BlockReason = "PDBConflict"          // Object: namespace/pod selected by several PDBs
	BlockConsolidateAfter     BlockReason = "ConsolidateAfter"     // Object: the NodePool (not elapsed yet)
	BlockConsolidateNever     BlockReason = "ConsolidateNever"     // Object: the NodePool (consolidateAfter Never)
	BlockWhenEmpty            BlockReason = "WhenEmpty"            // Object: the NodePool (policy WhenEmpty, node not empty)
	BlockNotConsolidatable    BlockReason = "NotConsolidatable"    // Object: the instance type not offered, or the missing zone/capacity-type label
	BlockPodUnschedulable     BlockReason = "PodUnschedulable"     // Object: namespace/pod the simulation cannot place
	BlockTooManyReplacements  BlockReason = "TooManyReplacements"  // consolidation would need several new nodes
	BlockNoCheaperReplacement BlockReason = "NoCheaperReplacement" // no acceptable cheaper replacement
	BlockBalanced             BlockReason = "Balanced"             // a Balanced NodePool's score rejects the move
	BlockRepairPending        BlockReason = "RepairPending"        // unhealthy, toleration not over yet
	BlockRepairLimited        BlockReason = "RepairLimited"        // unhealthy, too many unhealthy nodes to repair
	BlockNoDisruption         BlockReason = "NoDisruption"         // nothing blocks it: no method gains by disrupting it
)

// Blocker is one reason a node is kept, with the object it concerns.
type Blocker struct {
	Code   BlockReason
	Object string
	// Budget is the budget's disruption reason (Empty, Drifted, Underutilized), for BlockBudget.
	Budget string
}

// block is a Blocker with its English, as Blocked.Reason shows it when it comes first.
type block struct {
	Blocker
	text string
}

func newBlock(code BlockReason, object, text string) block {
	return block{Blocker: Blocker{Code: code, Object: object}, text: text}
}

// blocks lists, in the order Blocked.Reason picks its first, every reason n is kept.
func (s *state) blocks(n *node, left map[v1.DisruptionReason]budgetLeft) []block {
	var out []block
	add := func(b block) {
		if !hasBlocker(out, b.Blocker) {
			out = append(out, b)
		}
	}
	notCand := newBlock(n.notCandidateCode, n.notCandidateObject, n.notCandidate)
	if n.notCandidate != "" && n.unavailable {
		add(notCand)
	}
	if s.nominated[n.name] {
		add(newBlock(BlockNominated, "", nominatedReason))
	}
	if n.notCandidate != "" && !n.unavailable {
		add(notCand)
	}
	if r, ok := s.reasons[n]; ok {
		add(r)
	}
	if n.static() {
		add(newBlock(BlockStatic, n.poolName, "static NodePool (static drift is not modelled)"))
	}
	for i, b := range n.podBlockers {
		if i == 0 && n.drift != "" && !n.hasTGP {
			b.text = "drifted (" + n.drift + "), but " + b.text
		}
		add(b)
	}
	if n.pool == nil {
		return s.withRepair(n, out)
	}
	if n.pool.Spec.Disruption.ConsolidateAfter.IsNever() {
		add(newBlock(BlockConsolidateNever, n.poolName, "consolidateAfter is Never"))
	} else if s.now.Before(n.consolidatableAt) {
		add(newBlock(BlockConsolidateAfter, n.poolName, fmt.Sprintf("not consolidatable yet: consolidateAfter %s elapses at %s",
			n.pool.Spec.Disruption.ConsolidateAfter.String(), n.consolidatableAt.UTC().Format(time.RFC3339))))
	}
	if !n.empty() && n.policy() == v1.ConsolidationPolicyWhenEmpty {
		add(newBlock(BlockWhenEmpty, n.poolName, "consolidationPolicy is WhenEmpty and the node is not empty"))
	}
	if !n.empty() {
		if b := consolidationUnfit(n); b.Code != "" {
			add(b)
		}
	}
	if len(out) == 0 {
		add(newBlock(BlockNoDisruption, "", "no disruption found: the node is needed as it is"))
	} else if !n.unavailable { // an unavailable node is outside the budgets' node count
		out = append(out, s.budgetBlocks(n, out, left)...)
	}
	return s.withRepair(n, out)
}

// budgetBlocks are the budgets, as the plan leaves them, that would stop n for the reasons
// that apply to it (Empty or Underutilized, and Drifted when it drifted), unless listed in
// have already: a node another blocker kept from every method still shows its exhausted budget.
func (s *state) budgetBlocks(n *node, have []block, left map[v1.DisruptionReason]budgetLeft) []block {
	reasons := []v1.DisruptionReason{v1.DisruptionReasonUnderutilized}
	if n.empty() {
		reasons[0] = v1.DisruptionReasonEmpty
	}
	if n.drift != "" {
		reasons = append(reasons, v1.DisruptionReasonDrifted)
	}
	var out []block
	for _, r := range reasons {
		l := left[r]
		if l.left[n.poolName] > 0 {
			continue
		}
		b := l.why[n.poolName]
		if !hasBlocker(have, b.Blocker) {
			out = append(out, b)
		}
	}
	return out
}

func hasBlocker(bs []block, b Blocker) bool {
	for _, x := range bs {
		if x.Blocker == b {
			return true
		}
	}
	return false
}

// budgetLeft is budgets' answer for one disruption reason.
type budgetLeft struct {
	left map[string]int
	why  map[string]block
}

// budgetsLeft is every disruption reason's budgets as the plan leaves them.
func (s *state) budgetsLeft() map[v1.DisruptionReason]budgetLeft {
	out := map[v1.DisruptionReason]budgetLeft{}
	for _, r := range []v1.DisruptionReason{v1.DisruptionReasonEmpty, v1.DisruptionReasonDrifted, v1.DisruptionReasonUnderutilized} {
		l, why := s.budgets(r)
		out[r] = budgetLeft{left: l, why: why}
	}
	return out
}

// withRepair puts why an unhealthy node is not repaired (yet) before its other blocks.
func (s *state) withRepair(n *node, bs []block) []block {
	if code, ok := s.mech.repairCode[n]; ok {
		return append([]block{newBlock(code, "", s.mech.repair[n])}, bs...)
	}
	return bs
}

// blocked is n's Blocked entry: the first block's English (after any repair note) and all codes.
func (s *state) blocked(n *node, left map[v1.DisruptionReason]budgetLeft) Blocked {
	bs := s.blocks(n, left)
	b := Blocked{Node: n.name, Blockers: make([]Blocker, 0, len(bs))}
	for _, x := range bs {
		b.Blockers = append(b.Blockers, x.Blocker)
	}
	first := bs[0]
	if _, ok := s.mech.repairCode[n]; ok && len(bs) > 1 {
		b.Reason = first.text + "; " + bs[1].text
	} else {
		b.Reason = first.text
	}
	return b
}
