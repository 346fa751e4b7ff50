package disruption

import (
	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// method is one of Karpenter's disruption methods (its disruption.Method): Plan asks each in
// turn for a command over the nodes it may take, within the budget its reason names, and
// starts again from the first after every command (try, in Plan). Its budget and the
// blockers a kept node lists key off it; a new method is a new type in methods.
type method interface {
	// kind and reason are what its commands carry; reason also names the disruption budget
	// they count against.
	kind() Method
	reason() ReasonCode
	// eventual is Karpenter's disruption class: an eventual method (drift) also takes a node
	// whose pods forbid a graceful disruption when a terminationGracePeriod will end their
	// wait; a graceful one (emptiness, consolidation) never does.
	eventual() bool
	// covers reports whether n is the kind of node the method disrupts (empty, not empty,
	// drifted), whatever else keeps it: the method's budget, when exhausted, is listed among
	// the blockers of such a node.
	covers(n *node) bool
	// shouldDisrupt is Karpenter's ShouldDisrupt: whether n, a node available to the
	// method's class (available), is its candidate now.
	shouldDisrupt(s *state, n *node) bool
	// compute is the command the method starts now over its candidates (in node order; it
	// may reorder them) within the budget left (b.left, which it may use up), nil when none;
	// it records with s.keep why it kept the candidates it gave up.
	compute(s *state, cands []*node, b budgetLeft) (*proposal, error)
}

// methods are the disruption methods in the order Plan tries them: Karpenter's, and with
// opts.Repack the moves it cannot make (repack before multi-node consolidation, as its
// commands may take what the budget allows at once; split in single-node's place, trying
// Karpenter's move first).
func methods(opts Options) []method {
	if opts.Repack {
		return []method{emptiness{}, &drift{failed: map[*node]bool{}}, &repack{}, multiNode{}, &split{singleNode: singleNode{failed: map[*node]bool{}}}}
	}
	return []method{emptiness{}, &drift{failed: map[*node]bool{}}, multiNode{}, &singleNode{failed: map[*node]bool{}}}
}

// givesUp is a method that does not try again, within a Plan, the candidates it gave up on:
// the state only gets tighter from one command to the next, except under NodePool limits
// (state.retryLimited) and when leftover disrupted taints are cleared (clearLeftoverTaints).
type givesUp interface {
	method
	// givenUp are the candidates it gave up on; state.retry takes some out.
	givenUp() map[*node]bool
}

var _, _, _ givesUp = (*drift)(nil), (*singleNode)(nil), (*split)(nil)

// proposal is a command a method would start: its candidates and the simulation that
// justified it (nil: none ran).
type proposal struct {
	cmd   Command
	cands []*node
	sim   *simulation
}

// try asks m for a command: its candidates are the nodes available to its class that it
// should disrupt, its budget that of its reason.
func (s *state) try(m method) (*proposal, error) {
	var cands []*node
	for _, n := range s.nodes {
		if s.available(n, m.eventual()) && m.shouldDisrupt(s, n) {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	return m.compute(s, cands, s.budgets(v1.DisruptionReason(m.reason())))
}

// available reports whether n may be a candidate of a method of its class at all: no
// command or nomination holds it, nothing about the node itself forbids it (notCandidate,
// a static NodePool), and its pods allow it (a graceful method: none blocks; an eventual
// one: none blocks, or a terminationGracePeriod ends their wait).
func (s *state) available(n *node, eventual bool) bool {
	return !s.taken[n] && !s.isNominated(n) && n.notCandidate == "" && !n.static() &&
		(!n.podBlocked() || eventual && n.hasTGP)
}

// consolidatable reports whether n's NodePool lets it consolidate now: consolidateAfter is
// not Never and has elapsed since its last pod event (emptiness and consolidation).
func (s *state) consolidatable(n *node) bool {
	return !n.pool.Spec.Disruption.ConsolidateAfter.IsNever() && !s.now.Before(n.consolidatableAt)
}

// keep records why a method kept n (the blocker Blocked lists after those of the node
// itself); a later method's reason replaces an earlier one's.
func (s *state) keep(n *node, b Blocker) { s.reasons[n] = b }
