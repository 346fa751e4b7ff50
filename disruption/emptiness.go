package disruption

// emptiness is Karpenter's emptiness: every empty node consolidatable now, within the Empty
// budgets, deleted in one command.
type emptiness struct{}

func (emptiness) kind() Method        { return MethodEmptiness }
func (emptiness) reason() ReasonCode  { return ReasonEmpty }
func (emptiness) eventual() bool      { return false }
func (emptiness) covers(n *node) bool { return n.empty() }

func (emptiness) shouldDisrupt(s *state, n *node) bool { return s.consolidatable(n) && n.empty() }

func (emptiness) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	sortByRatio(cands)
	var take []*node
	for _, c := range cands {
		if b.left[c.poolName] <= 0 {
			s.keep(c, b.why[c.poolName])
			continue
		}
		b.left[c.poolName]--
		take = append(take, c)
	}
	if len(take) == 0 {
		return nil, nil
	}
	return &proposal{cmd: Command{Method: MethodEmptiness, Reason: ReasonEmpty, SavingsPerHour: totalPrice(take)}, cands: take}, nil
}
