package scheduling_test

import (
	"math"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// mustBound is scheduling.LowerBound failing the test on an error.
func mustBound(t tb, snap *cluster.Snapshot) *scheduling.Bound {
	t.Helper()
	b, err := scheduling.LowerBound(snap, scheduling.Options{})
	if err != nil {
		t.Fatalf("LowerBound: %v", err)
	}
	return b
}

// unplaced are the pods a result left unplaced.
func unplaced(res *scheduling.Result) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(res.PodErrors))
	for _, e := range res.PodErrors {
		out = append(out, e.Pod)
	}
	return out
}

// atMost reports a ≤ b up to the rounding of summed prices.
func atMost(a, b float64) bool { return a <= b*(1+1e-9)+1e-9 }

// planOf solves snap with packing: verified under the default packing; Karpenter mode may
// break a required constraint as Karpenter would (scheduling.PackingKarpenter), which the
// bound, ignoring such constraints, still holds against.
func planOf(t tb, snap *cluster.Snapshot, packing scheduling.Packing) *scheduling.Result {
	t.Helper()
	if packing != scheduling.PackingKarpenter {
		return mustSolve(t, snap, scheduling.Options{Packing: packing})
	}
	res, err := scheduling.Solve(snap, scheduling.Options{Packing: packing})
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return res
}

// TestPropBoundBelowEveryPlan: under either packing, no plan costs less than the bound of the
// pods it places, and every pod the bound leaves out is one no plan launches a
// node for.
func TestPropBoundBelowEveryPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		packing := rapid.SampledFrom([]scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter}).Draw(t, "packing")
		snap := snapOf(t, sc.build())
		res := planOf(t, snap, packing)
		b := mustBound(t, snap.WithoutPods(unplaced(res)...))
		if !atMost(b.PerHour, res.Price()) {
			t.Fatalf("bound $%.6f/h above a %s plan of the same pods at $%.6f/h (%d claims)", b.PerHour, packing, res.Price(), len(res.NewNodeClaims))
		}
		left := map[*corev1.Pod]bool{}
		for _, p := range b.LeftOut {
			left[p] = true
		}
		for _, c := range res.NewNodeClaims {
			for _, p := range c.Pods {
				if left[p] {
					t.Fatalf("pod %s/%s left out of the bound, but the plan launches %s for it", p.Namespace, p.Name, c.InstanceType.Name)
				}
			}
		}
		if b.Pods+len(b.LeftOut) != len(snap.WithoutPods(unplaced(res)...).Pending()) {
			t.Fatalf("bound counts %d pods and leaves out %d, of %d", b.Pods, len(b.LeftOut), len(snap.Pending())-len(res.PodErrors))
		}
	})
}

// TestPropBoundMonotone: more pods never lower the bound.
func TestPropBoundMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		all := mustBound(t, snapOf(t, sc.build()))
		fewer := *sc
		fewer.pods = sc.pods[:rapid.IntRange(0, len(sc.pods)).Draw(t, "kept")]
		some := mustBound(t, snapOf(t, fewer.build()))
		if !atMost(some.PerHour, all.PerHour) {
			t.Fatalf("bound of %d pods $%.9f/h above the bound of all %d pods $%.9f/h", len(fewer.pods), some.PerHour, len(sc.pods), all.PerHour)
		}
	})
}

// TestPropBoundDeterministicAndPure: the same input twice, a deep copy, or a Cache that
// Solved it before gives the same bound, and LowerBound never modifies its input.
func TestPropBoundDeterministicAndPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, ref := sc.build(), sc.build()
		warm(in)
		warm(ref)
		snap := snapOf(t, in)
		first := mustBound(t, snap)
		if !reflect.DeepEqual(in, ref) {
			t.Fatalf("LowerBound modified its input: %s", firstDiff(in, ref))
		}
		if again := mustBound(t, snap); !reflect.DeepEqual(first, again) {
			t.Fatalf("second LowerBound differs: %+v vs %+v", first, again)
		}
		other := mustBound(t, snapOf(t, ref))
		if math.Float64bits(other.PerHour) != math.Float64bits(first.PerHour) || !reflect.DeepEqual(first.Mix, other.Mix) {
			t.Fatalf("LowerBound of a deep copy differs: %v vs %v", first.PerHour, other.PerHour)
		}
		cache := scheduling.NewCache()
		if _, err := cache.Solve(snap, scheduling.Options{}); err != nil {
			t.Fatal(err)
		}
		cached, err := cache.LowerBound(snap, scheduling.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, cached) {
			t.Fatalf("LowerBound with a Cache after Solve differs: %+v vs %+v", first, cached)
		}
	})
}
