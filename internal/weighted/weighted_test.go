package weighted

import (
	"math/rand/v2"
	"testing"
)

// TestDraw: each value comes up about as often as its weight says; a zero weight never.
func TestDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	choices := []Choice[string]{{"a", 1}, {"b", 3}, {"never", 0}}
	counts := map[string]int{}
	for range 4000 {
		counts[Draw(rng, choices)]++
	}
	if counts["never"] != 0 || counts["a"] < 800 || counts["a"] > 1200 || counts["b"] < 2800 || counts["b"] > 3200 {
		t.Fatalf("counts %v, want about 1000 a and 3000 b", counts)
	}
}
