package disruption

import (
	"math"
	"sort"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// maxMultiNodeCandidates caps the prefix multi-node consolidation searches.
const maxMultiNodeCandidates = 100

// consolidator is a consolidation method: it shares the consolidation candidates, the
// Underutilized budget, the simulation (with consolidateAfter closing destinations) and the
// Balanced check, and decides itself what replaces the candidates when their pods need new
// NodeClaims. A new kind of move (one node by several, m nodes by n) is a new consolidator.
type consolidator interface {
	method
	// replace is what replaces cands (priced candPrice) when the simulation placed their pods
	// on claims (at least one): the replacements and the savings, or why there are none.
	replace(s *state, claims []*scheduling.NodeClaim, cands []*node, candPrice float64) ([]*scheduling.NodeClaim, float64, Blocker)
}

// consolidation is what Karpenter's consolidation methods share.
type consolidation struct{}

func (consolidation) reason() ReasonCode  { return ReasonUnderutilized }
func (consolidation) eventual() bool      { return false }
func (consolidation) covers(n *node) bool { return !n.empty() }

// shouldDisrupt: a non-empty node, consolidatable now, of a NodePool that consolidates more
// than empty nodes, whose instance type its NodePool offers in its zone and capacity type
// (Balanced NodePools too; their moves must pass balancedRejects).
func (consolidation) shouldDisrupt(s *state, n *node) bool {
	return n.offeringKnown && s.consolidatable(n) && !n.empty() && n.policy() != v1.ConsolidationPolicyWhenEmpty
}

// consolidate is Karpenter's computeConsolidation: the command m starts over cands, or why
// there is none. A simulation that needs no new NodeClaim is a delete.
func (s *state) consolidate(m consolidator, cands []*node) (*proposal, Blocker, error) {
	return s.consolidateIn(s.base, m, cands)
}

// consolidateIn is consolidate with the simulation forking base (s.base or a variant of it).
func (s *state) consolidateIn(base *cluster.Snapshot, m consolidator, cands []*node) (*proposal, Blocker, error) {
	sim, err := s.simulateIn(base, cands, reschedulable, true)
	if err != nil {
		return nil, Blocker{}, err
	}
	if sim.fail.Code != "" {
		return nil, sim.fail, nil
	}
	candPrice := totalPrice(cands)
	cmd := Command{Method: m.kind(), Reason: m.reason(), SavingsPerHour: candPrice}
	if claims := sim.res.NewNodeClaims; len(claims) > 0 {
		repl, savings, why := m.replace(s, claims, cands, candPrice)
		if why.Code != "" {
			return nil, why, nil
		}
		cmd.Replacements, cmd.SavingsPerHour = repl, savings
	}
	if why := s.balancedRejects(cands, cmd.SavingsPerHour); why.Code != "" {
		return nil, why, nil
	}
	return &proposal{cmd: cmd, cands: cands, sim: sim}, Blocker{}, nil
}

// multiNode is Karpenter's multi-node consolidation: by binary search, the longest prefix of
// the candidates (within budgets, at most 100) that can be deleted or replaced by one
// cheaper node (of a candidate's own type only when cheaper than every candidate of it).
type multiNode struct{ consolidation }

func (multiNode) kind() Method { return MethodMultiNode }

func (multiNode) replace(s *state, claims []*scheduling.NodeClaim, cands []*node, candPrice float64) ([]*scheduling.NodeClaim, float64, Blocker) {
	return s.oneCheaper(claims, cands, candPrice, replacementRules{differentType: true})
}

func (m multiNode) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	sortByRatio(cands)
	kept := withinBudget(cands, b)
	if len(kept) < 2 {
		return nil, nil
	}
	lo, hi := 1, min(len(kept), maxMultiNodeCandidates)
	if len(kept) <= maxMultiNodeCandidates {
		hi = len(kept) - 1
	}
	var best *proposal
	for lo <= hi {
		mid := (lo + hi) / 2
		p, _, err := s.consolidate(m, kept[:mid+1])
		if err != nil {
			return nil, err
		}
		if p != nil {
			best = p
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return best, nil
}

// withinBudget is the candidates, in order, that the budget left allows (which it uses up);
// single-node consolidation says why the others are kept, with the budget it sees.
func withinBudget(cands []*node, b budgetLeft) []*node {
	var kept []*node
	for _, c := range cands {
		if b.left[c.poolName] <= 0 {
			continue
		}
		b.left[c.poolName]--
		kept = append(kept, c)
	}
	return kept
}

// singleNode is Karpenter's single-node consolidation: the candidates one by one
// (SavingsRatio order, NodePools interleaved), the first that can be deleted or replaced by
// one cheaper node (spot by one of at least 15 cheaper spot types).
type singleNode struct {
	consolidation
	// failed candidates found no consolidation: the state only gets tighter within a Plan
	// (see givesUp).
	failed map[*node]bool
}

func (m *singleNode) givenUp() map[*node]bool { return m.failed }

func (*singleNode) kind() Method { return MethodSingleNode }

func (*singleNode) replace(s *state, claims []*scheduling.NodeClaim, cands []*node, candPrice float64) ([]*scheduling.NodeClaim, float64, Blocker) {
	return s.oneCheaper(claims, cands, candPrice, replacementRules{minSpotTypes: minSpotToSpotTypes})
}

func (m *singleNode) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	return m.oneByOne(s, cands, b, func(c *node) (*proposal, Blocker, error) { return s.consolidate(m, []*node{c}) })
}

// oneByOne is single-node consolidation's walk over the candidates: in SavingsRatio order,
// NodePools interleaved, within budget, the first that try consolidates; a candidate that
// fails is kept with try's reason and not tried again in this Plan.
func (m *singleNode) oneByOne(s *state, cands []*node, b budgetLeft, try func(*node) (*proposal, Blocker, error)) (*proposal, error) {
	sortByRatio(cands)
	for _, c := range interleave(cands) {
		if m.failed[c] {
			continue
		}
		if b.left[c.poolName] <= 0 {
			s.keep(c, b.why[c.poolName])
			continue
		}
		p, why, err := try(c)
		if err != nil {
			return nil, err
		}
		if p == nil {
			s.keep(c, why)
			m.failed[c] = true
			continue
		}
		return p, nil
	}
	return nil, nil
}

// interleave takes one candidate of each NodePool in turn (NodePools in order of their
// best candidate), keeping each NodePool's order.
func interleave(cands []*node) []*node {
	// Each NodePool's candidates, in order of its first; found by name without hashing
	// while there are few NodePools (single-node consolidation interleaves every
	// candidate after every command).
	var pools [][]*node
	var index map[string]int
	last := -1
	for _, c := range cands {
		k := -1
		switch {
		case last >= 0 && pools[last][0].poolName == c.poolName:
			k = last
		case index != nil:
			if i, ok := index[c.poolName]; ok {
				k = i
			}
		default:
			for i, p := range pools {
				if p[0].poolName == c.poolName {
					k = i
					break
				}
			}
		}
		if k < 0 {
			k = len(pools)
			pools = append(pools, nil)
			if index == nil && len(pools) > fewPools {
				index = make(map[string]int, len(pools))
				for i, p := range pools[:k] {
					index[p[0].poolName] = i
				}
			}
			if index != nil {
				index[c.poolName] = k
			}
		}
		pools[k] = append(pools[k], c)
		last = k
	}
	out := make([]*node, 0, len(cands))
	for i := 0; len(out) < len(cands); i++ {
		for _, p := range pools {
			if i < len(p) {
				out = append(out, p[i])
			}
		}
	}
	return out
}

// fewPools is how many NodePools interleave tells apart by comparing names.
const fewPools = 8

// balancedK is Karpenter's BalancedK: a Balanced NodePool approves a move when its share of
// the savings is at least 1/k of its share of the disruption.
const balancedK = 2

// balancedRejects scores a consolidation for every Balanced NodePool among the candidates
// (reference §3.13): savings are attributed to each NodePool by its share of the candidates'
// price; score = (pool savings / pool cost) / (candidates' disruption cost / pool disruption
// cost). Every Balanced NodePool must reach 1/k; other policies always pass. A NodePool's
// cost is Karpenter's cluster cost: its nodes' and the NodeClaims launched so far.
func (s *state) balancedRejects(cands []*node, savings float64) Blocker {
	candPrice := totalPrice(cands)
	pools := map[string][]*node{}
	var names []string
	for _, c := range cands {
		if c.pool == nil || c.policy() != v1.ConsolidationPolicyBalanced {
			continue
		}
		if _, ok := pools[c.poolName]; !ok {
			names = append(names, c.poolName)
		}
		pools[c.poolName] = append(pools[c.poolName], c)
	}
	sort.Strings(names)
	for _, name := range names {
		totalCost, totalDisruption, poolPrice, poolDisruption := s.launchedPrice[name], 0.0, 0.0, 0.0
		for _, n := range s.nodes {
			if n.poolName == name && n.pool != nil {
				totalCost += n.price
				totalDisruption += n.cost
			}
		}
		for _, c := range pools[name] {
			poolPrice += c.price
			poolDisruption += c.cost
		}
		score := 0.0
		if savings > 0 && candPrice > 0 && totalCost > 0 && totalDisruption > 0 {
			share := savings * poolPrice / candPrice / totalCost
			if poolDisruption <= 0 {
				score = math.Inf(1)
			} else {
				score = share / (poolDisruption / totalDisruption)
			}
		}
		if score < 1.0/balancedK {
			return Blocker{Code: BlockBalanced, NodePool: name, Score: score}
		}
	}
	return Blocker{}
}
