package scheduling

import (
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// TestClaimOrderMatchesStableSort checks the incremental fewest-pods-first chain against what
// Karpenter does: before each pod, a stable sort of the previous order by pod count.
func TestClaimOrderMatchesStableSort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := &solver{lastOfCount: map[int]*claim{}}
		var model []*claim
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			if len(model) == 0 || rapid.Bool().Draw(rt, "open") {
				c := &claim{pods: make([]*podData, 1)}
				s.insertClaim(c)
				model = append(model, c)
			} else {
				c := model[rapid.IntRange(0, len(model)-1).Draw(rt, "grow")]
				c.pods = append(c.pods, nil)
				s.bumpCount(c)
			}
			sort.SliceStable(model, func(a, b int) bool { return len(model[a].pods) < len(model[b].pods) })
			var chain []*claim
			for c := s.head; c != nil; c = c.next {
				chain = append(chain, c)
			}
			if len(chain) != len(model) {
				rt.Fatalf("chain has %d claims, want %d", len(chain), len(model))
			}
			for j := range chain {
				if chain[j] != model[j] {
					rt.Fatalf("step %d: position %d differs from a stable sort by pod count", i, j)
				}
			}
		}
	})
}
