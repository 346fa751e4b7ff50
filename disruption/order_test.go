package disruption

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropCandidateOrders: sortByRatio (which places many candidates at their ranks) orders
// as comparing ranks does, and interleave (which tells few NodePools apart by name) gives
// the plain definition's order: one candidate of each NodePool in turn, NodePools in order of
// their first candidate; with few and many NodePools, few and many candidates.
func TestPropCandidateOrders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.IntRange(0, 300).Draw(t, "nodes")
		pools := rapid.IntRange(1, 20).Draw(t, "pools")
		ranks := rapid.Permutation(seq(total)).Draw(t, "ranks")
		all := make([]*node, total)
		for i := range all {
			all[i] = &node{index: i, rank: ranks[i], poolName: fmt.Sprintf("pool-%d", rapid.IntRange(0, pools-1).Draw(t, fmt.Sprintf("pool-of-%d", i)))}
		}
		var cands []*node
		for i, n := range all {
			if rapid.Bool().Draw(t, fmt.Sprintf("candidate-%d", i)) {
				cands = append(cands, n)
			}
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, func(a, b *node) int { return cmp.Compare(a.rank, b.rank) })
		sortByRatio(cands)
		if !slices.Equal(cands, want) {
			t.Fatalf("sortByRatio: %v, want %v", ranksOf(cands), ranksOf(want))
		}
		if got, want := interleave(cands), interleaved(cands); !slices.Equal(got, want) {
			t.Fatalf("interleave: %v, want %v", ranksOf(got), ranksOf(want))
		}
	})
}

// interleaved is interleave by its definition.
func interleaved(cands []*node) []*node {
	var order []string
	by := map[string][]*node{}
	for _, c := range cands {
		if _, ok := by[c.poolName]; !ok {
			order = append(order, c.poolName)
		}
		by[c.poolName] = append(by[c.poolName], c)
	}
	out := []*node{}
	for i := 0; len(out) < len(cands); i++ {
		for _, p := range order {
			if i < len(by[p]) {
				out = append(out, by[p][i])
			}
		}
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func ranksOf(ns []*node) []int {
	out := make([]int, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.rank)
	}
	return out
}
