package disruption

import (
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// split is single-node consolidation that may also replace its node by several NodeClaims
// cheaper together (Options.Repack; kubernetes-sigs/karpenter#1442). Each candidate first
// gets Karpenter's move (delete, or one cheaper node: a single-node command). When that finds
// no single cheaper node, a second simulation offers new NodeClaims only the instance types
// with an offering below the node's price, so the pods that need new capacity go to several
// smaller ones rather than to one as large as the node; the command stands when their
// worst-case launch prices together are below the node's (severalCheaper). That simulation
// may also place the pods differently enough for one cheaper NodeClaim to do (a split
// command of one replacement, seen on cluster-workload). A candidate kept keeps Karpenter's
// reason.
type split struct {
	singleNode
	// below are, per price, the NodePools' instance types with an offering below it (the
	// same slices for the same price, so the scheduling cache prepares each set once).
	below map[float64]map[string]cloudprovider.InstanceTypes
}

func (*split) kind() Method { return MethodSplit }

func (*split) replace(s *state, claims []*scheduling.NodeClaim, cands []*node, candPrice float64) ([]*scheduling.NodeClaim, float64, Blocker) {
	return s.severalCheaper(claims, cands, candPrice, replacementRules{minSpotTypes: minSpotToSpotTypes})
}

func (m *split) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	return m.oneByOne(s, cands, b, func(c *node) (*proposal, Blocker, error) {
		p, why, err := s.consolidate(&m.singleNode, []*node{c})
		if err != nil || p != nil || !splittable(why) {
			return p, why, err
		}
		base, err := s.base.WithInstanceTypes(m.typesBelow(s, c.price))
		if err != nil {
			return nil, Blocker{}, err
		}
		if p, _, err := s.consolidateIn(base, m, []*node{c}); err != nil || p != nil {
			return p, Blocker{}, err
		}
		return nil, why, nil
	})
}

// splittable reports whether a single-node consolidation that failed for why may succeed
// with several smaller replacements: it needed several new nodes, or none of the types that
// fit its pods together was cheaper. (Pods that cannot be placed, spot rules and Balanced
// scores stay as they are with fewer types.)
func splittable(why Blocker) bool {
	return why.Code == BlockTooManyReplacements || why.Code == BlockNoCheaperReplacement && why.Replacement == ReplacementNotCheaper
}

// typesBelow are, per NodePool, the instance types of s.base with an available offering its
// requirements allow (zone, capacity type) priced below price.
func (m *split) typesBelow(s *state, price float64) map[string]cloudprovider.InstanceTypes {
	if types, ok := m.below[price]; ok {
		return types
	}
	if m.below == nil {
		m.below = map[float64]map[string]cloudprovider.InstanceTypes{}
	}
	types := map[string]cloudprovider.InstanceTypes{}
	for pool, its := range s.base.InstanceTypes() {
		var reqs requirements.Requirements
		if np := s.pools[pool]; np != nil {
			// An error leaves the offerings unfiltered: the simulation's Solve refuses the NodePool.
			reqs, _ = requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
		}
		var keep cloudprovider.InstanceTypes
		for _, it := range its {
			if it == nil {
				continue
			}
			if o := it.Offerings.Available().Compatible(reqs).Cheapest(); o != nil && o.Price < price {
				keep = append(keep, it)
			}
		}
		types[pool] = keep
	}
	m.below[price] = types
	return types
}
