package disruption

import (
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// repack replaces several nodes by a different, cheaper set of NodeClaims, or by none
// (Options.Repack; kubernetes-sigs/karpenter#1962, aws/karpenter-provider-aws#5944):
// Karpenter's multi-node consolidation with two changes. The candidates come in two orders,
// not in that of what they cost to disrupt: of what their idle capacity costs (waste: price ×
// the share of the node's scarcest resource its pods leave unused), the nodes that pay most
// for nothing first, and of their price, the dearest first (on cluster-workload the first
// saves more in the first round, the second in the rounds after it); and the simulation may
// open several NodeClaims, the command standing when their worst-case launch prices together
// are below the candidates' price (severalCheaper). In each order, within the budgets and up
// to maxMultiNodeCandidates, it tries the prefixes of 2, 4, 8, ... candidates and all of
// them, and starts the one that saves most (the first tried on a tie):
// unlike a deletion, a replacement need not get easier with fewer nodes (two nodes' pods may
// need a node as dear as both where three nodes' pods fit a cheaper set), so multi-node's
// binary search, which gives up at the first prefix that fails, would miss it.
type repack struct {
	consolidation
	waste map[*node]float64 // by node, computed once per Plan
}

func (*repack) kind() Method { return MethodRepack }

func (*repack) replace(s *state, claims []*scheduling.NodeClaim, cands []*node, candPrice float64) ([]*scheduling.NodeClaim, float64, Blocker) {
	return s.severalCheaper(claims, cands, candPrice, replacementRules{})
}

func (m *repack) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	var best *proposal
	tried := map[string]bool{} // the two orders may share a prefix
	for _, order := range []func([]*node){m.sortByWaste, sortByPrice} {
		order(cands)
		kept := withinBudget(cands, budgetLeft{left: maps.Clone(b.left), why: b.why})
		kept = kept[:min(len(kept), maxMultiNodeCandidates)]
		for _, n := range prefixSizes(len(kept)) {
			key := joinNames(kept[:n])
			if tried[key] {
				continue
			}
			tried[key] = true
			p, _, err := s.consolidate(m, kept[:n])
			if err != nil {
				return nil, err
			}
			if p != nil && (best == nil || p.cmd.SavingsPerHour > best.cmd.SavingsPerHour) {
				best = p
			}
		}
	}
	return best, nil
}

// prefixSizes are 2, 4, 8, ... below n, and n (none when n < 2).
func prefixSizes(n int) []int {
	var out []int
	for k := 2; k < n; k *= 2 {
		out = append(out, k)
	}
	if n >= 2 {
		out = append(out, n)
	}
	return out
}

// sortByWaste orders candidates by waste, highest first (ties: SavingsRatio order).
func (m *repack) sortByWaste(cands []*node) {
	if m.waste == nil {
		m.waste = map[*node]float64{}
	}
	for _, c := range cands {
		if _, ok := m.waste[c]; !ok {
			m.waste[c] = waste(c)
		}
	}
	sortByRatio(cands)
	sort.SliceStable(cands, func(i, j int) bool { return m.waste[cands[i]] > m.waste[cands[j]] })
}

// sortByPrice orders candidates by price, highest first (ties: SavingsRatio order).
func sortByPrice(cands []*node) {
	sortByRatio(cands)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].price > cands[j].price })
}

// waste is what n's idle capacity costs: its price times the share of its scarcest resource
// (cpu or memory, of what the Node can allocate) its reschedulable pods leave unused.
func waste(n *node) float64 {
	if n.Node == nil {
		return 0
	}
	alloc := n.Node.Status.Allocatable
	used := 0.0
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		a := alloc[r]
		if a.IsZero() {
			continue
		}
		var req float64
		for _, p := range n.reschedulable {
			q := scheduling.PodRequests(p)[r]
			req += q.AsApproximateFloat64()
		}
		used = max(used, req/a.AsApproximateFloat64())
	}
	return n.price * max(0, 1-used)
}
