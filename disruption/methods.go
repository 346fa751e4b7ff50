package disruption

import (
	"sort"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// expiration deletes every node older than its expireAfter, one command per NodeClaim as
// Karpenter's expiration controller does: forceful, no budgets, no blockers, no simulation.
// The provisioner pass that follows plans their pods (Result.Provisioned).
func (s *state) expiration() {
	for _, n := range s.nodes {
		// Karpenter's expiration controller reads the NodeClaim: a Node being deleted whose
		// NodeClaim is not is still expired (and counted once against its budget). A
		// terminating instance's claim is being deleted (see cluster.Node.InstanceTerminating).
		claimDeleting := n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil || n.InstanceTerminating()
		if s.taken[n] || n.pool == nil || claimDeleting || n.MarkedDeleting() || n.expiresAt.IsZero() || s.now.Before(n.expiresAt) {
			continue
		}
		s.commit(Command{Method: MethodExpiration, Reason: ReasonExpired}, []*node{n}, nil)
	}
}

// graceful reports whether n may be a candidate of emptiness or consolidation at all.
func (s *state) graceful(n *node) bool {
	return !s.taken[n] && !s.isNominated(n) && n.notCandidate == "" && !n.podBlocked() && !n.static() &&
		!n.pool.Spec.Disruption.ConsolidateAfter.IsNever() && !s.now.Before(n.consolidatableAt)
}

// emptiness deletes, in one command, every empty consolidatable node within budgets.
func (s *state) emptiness() (bool, error) {
	var cands []*node
	for _, n := range s.nodes {
		if s.graceful(n) && n.empty() {
			cands = append(cands, n)
		}
	}
	sortByRatio(cands)
	budget, why := s.budgets(v1.DisruptionReasonEmpty)
	var take []*node
	for _, c := range cands {
		if budget[c.poolName] <= 0 {
			s.reasons[c] = why[c.poolName]
			continue
		}
		budget[c.poolName]--
		take = append(take, c)
	}
	if len(take) == 0 {
		return false, nil
	}
	s.commit(Command{Method: MethodEmptiness, Reason: ReasonEmpty, SavingsPerHour: totalPrice(take)}, take, nil)
	return true, nil
}

// drift replaces the first drifted node (empty ones first, then oldest drift) whose pods
// can all be rescheduled, with as many new nodes as they need.
func (s *state) drift() (bool, error) {
	var cands []*node
	for _, n := range s.nodes {
		if !s.taken[n] && !s.isNominated(n) && !s.failedDrift[n] && n.notCandidate == "" && !n.static() && n.drift != "" && (!n.podBlocked() || n.hasTGP) {
			cands = append(cands, n)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if ea, eb := len(a.driftPods) == 0, len(b.driftPods) == 0; ea != eb {
			return ea
		}
		if !a.driftTime.Equal(b.driftTime) {
			return a.driftTime.Before(b.driftTime)
		}
		return a.index < b.index
	})
	budget, why := s.budgets(v1.DisruptionReasonDrifted)
	for _, c := range cands {
		if budget[c.poolName] <= 0 {
			s.reasons[c] = driftBlock(c, why[c.poolName])
			continue
		}
		sim, err := s.simulate([]*node{c}, driftPods)
		if err != nil {
			return false, err
		}
		if sim.fail.Code != "" {
			s.reasons[c] = driftBlock(c, sim.fail)
			s.failedDrift[c] = true
			continue
		}
		repl := sim.res.NewNodeClaims
		s.commit(Command{Method: MethodDrift, Reason: ReasonDrifted, Replacements: repl, Detail: c.drift,
			SavingsPerHour: c.price - claimsPrice(repl)}, []*node{c}, sim)
		return true, nil
	}
	return false, nil
}

// driftBlock says a drifted node is kept for b.
func driftBlock(n *node, b Blocker) Blocker {
	b.Drift = n.drift
	return b
}

// consolidatable lists the candidates of multi- and single-node consolidation, sorted by
// SavingsRatio. Balanced NodePools are candidates too; their moves must pass the Balanced
// score (see balancedRejects).
func (s *state) consolidatable() []*node {
	var cands []*node
	for _, n := range s.nodes {
		if s.graceful(n) && !n.empty() && n.policy() != v1.ConsolidationPolicyWhenEmpty && consolidationUnfit(n).Code == "" {
			cands = append(cands, n)
		}
	}
	sortByRatio(cands)
	return cands
}

// multiNode finds, by binary search, the longest prefix of the candidates (within budgets,
// at most 100) that can be deleted or replaced by one cheaper node.
func (s *state) multiNode() (bool, error) {
	budget, _ := s.budgets(v1.DisruptionReasonUnderutilized)
	var kept []*node
	for _, c := range s.consolidatable() {
		if budget[c.poolName] <= 0 {
			continue // single-node consolidation says why, with the budget it sees
		}
		budget[c.poolName]--
		kept = append(kept, c)
	}
	if len(kept) < 2 {
		return false, nil
	}
	lo, hi := 1, min(len(kept), maxMultiNodeCandidates)
	if len(kept) <= maxMultiNodeCandidates {
		hi = len(kept) - 1
	}
	var best *Command
	var bestSim *simulation
	var bestCands []*node
	for lo <= hi {
		mid := (lo + hi) / 2
		prefix := kept[:mid+1]
		cmd, sim, _, err := s.consolidate(prefix, true)
		if err != nil {
			return false, err
		}
		if cmd != nil {
			best, bestSim, bestCands = cmd, sim, prefix
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best == nil {
		return false, nil
	}
	s.commit(*best, bestCands, bestSim)
	return true, nil
}

// singleNode tries the candidates one by one (SavingsRatio order, NodePools interleaved)
// and starts the first consolidation found.
func (s *state) singleNode() (bool, error) {
	budget, why := s.budgets(v1.DisruptionReasonUnderutilized)
	for _, c := range interleave(s.consolidatable()) {
		if s.failed[c] {
			continue
		}
		if budget[c.poolName] <= 0 {
			s.reasons[c] = why[c.poolName]
			continue
		}
		cmd, sim, reason, err := s.consolidate([]*node{c}, false)
		if err != nil {
			return false, err
		}
		if cmd == nil {
			s.reasons[c] = reason
			s.failed[c] = true
			continue
		}
		s.commit(*cmd, []*node{c}, sim)
		return true, nil
	}
	return false, nil
}

// interleave takes one candidate of each NodePool in turn (NodePools in order of their
// best candidate), keeping each NodePool's order.
func interleave(cands []*node) []*node {
	var order []string
	by := map[string][]*node{}
	for _, c := range cands {
		if _, ok := by[c.poolName]; !ok {
			order = append(order, c.poolName)
		}
		by[c.poolName] = append(by[c.poolName], c)
	}
	out := make([]*node, 0, len(cands))
	for i := 0; len(out) < len(cands); i++ {
		for _, p := range order {
			if i < len(by[p]) {
				out = append(out, by[p][i])
			}
		}
	}
	return out
}
