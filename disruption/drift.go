package disruption

import "sort"

// drift is Karpenter's drift: the first drifted node (empty ones first, then oldest drift)
// whose pods can all be rescheduled, within the Drifted budgets, replaced by as many new
// nodes as they need. It is eventual: pods that forbid a graceful disruption do not stop it
// when a terminationGracePeriod ends their wait (they stay until then).
type drift struct {
	// failed candidates could not be replaced: the state only gets tighter within a Plan
	// (see givesUp).
	failed map[*node]bool
}

func (m *drift) givenUp() map[*node]bool { return m.failed }

func (*drift) kind() Method        { return MethodDrift }
func (*drift) reason() ReasonCode  { return ReasonDrifted }
func (*drift) eventual() bool      { return true }
func (*drift) covers(n *node) bool { return n.drifted() }

func (m *drift) shouldDisrupt(_ *state, n *node) bool { return n.drifted() && !m.failed[n] }

func (m *drift) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
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
	for _, c := range cands {
		if b.left[c.poolName] <= 0 {
			s.keep(c, driftBlock(c, b.why[c.poolName]))
			continue
		}
		sim, err := s.simulate([]*node{c}, driftPods)
		if err != nil {
			return nil, err
		}
		if sim.fail.Code != "" {
			s.keep(c, driftBlock(c, sim.fail))
			m.failed[c] = true
			continue
		}
		repl := sim.res.NewNodeClaims
		return &proposal{cmd: Command{Method: MethodDrift, Reason: ReasonDrifted, Replacements: repl, Drift: c.drift,
			SavingsPerHour: c.price - claimsPrice(repl)}, cands: []*node{c}, sim: sim}, nil
	}
	return nil, nil
}

// driftBlock says a drifted node is kept for b.
func driftBlock(n *node, b Blocker) Blocker {
	b.Drift = n.drift
	return b
}
