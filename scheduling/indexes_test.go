package scheduling_test

import (
	"flag"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// indexesProp runs TestPropIndexesChangeNothing as a rapid property (about 25 s of CPU), not on
// its fixed inputs alone.
var indexesProp = flag.Bool("indexes.prop", false, "TestPropIndexesChangeNothing: draw inputs with rapid")

// TestPropIndexesChangeNothing: Solve's indexes over the open NodeClaims (runs with their
// room per domain, the domain pre-check) and over the instance types (by allocatable) only
// skip what the full tests refuse, so Solve answers exactly as it does visiting every claim
// and testing every type: generic workloads (spreads, affinities, sizes, zones) and
// Karpenter's benchmark mix, in both packings.
func TestPropIndexesChangeNothing(t *testing.T) {
	check := func(t tb, snap *cluster.Snapshot) {
		for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
			opts := scheduling.Options{Packing: packing}
			res := mustSolve(t, snap, opts)
			plain, err := scheduling.SolveWithoutIndexes(snap, opts)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if got, want := render(res), render(plain); got != want {
				t.Fatalf("packing %s: Solve with its indexes differs from Solve without them:\n%s\nwithout:\n%s", packing, got, want)
			}
		}
	}
	if !*indexesProp {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("generic/seed=%d", seed), func(t *testing.T) { check(t, genericSnapshot(t, 150, seed)) })
		}
		t.Run("benchmark/pods=1500", func(t *testing.T) { check(t, snapOf(t, benchmarkObjects(1500))) })
		return
	}
	t.Run("generic", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			check(t, genericSnapshot(t, rapid.IntRange(10, 300).Draw(t, "pods"), rapid.Uint64().Draw(t, "seed")))
		})
	})
	t.Run("benchmark", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			check(t, snapOf(t, benchmarkObjects(rapid.IntRange(50, 1500).Draw(t, "pods"))))
		})
	})
}
