package scheduling_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCostAwarePackingCutsTheBenchmarkPrice: on Karpenter's own benchmark workload the
// default packing's plan is cheaper than Karpenter's rule by more than a fifth, with at most
// 2 % more nodes (its repair trades a few more, smaller nodes for price) (README,
// "deliberately does better": 30 % at 5,000 pods), and within 1.13 times the lower bound
// (1.11; 1.16 when the repair priced the resources by one degenerate program alone).
func TestCostAwarePackingCutsTheBenchmarkPrice(t *testing.T) {
	snap := snapOf(t, benchmarkObjects(1000))
	plan := func(p scheduling.Packing) (int, float64) {
		opts := scheduling.Options{Packing: p}
		res, err := scheduling.Solve(snap, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyErr(snap, opts, res); err != nil {
			t.Fatal(err)
		}
		if len(res.PodErrors) > 0 {
			t.Fatalf("%s: %d pods not scheduled", p, len(res.PodErrors))
		}
		return len(res.NewNodeClaims), res.Price()
	}
	costNodes, costPrice := plan(scheduling.PackingCostAware)
	bound, err := scheduling.LowerBound(snap, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ratio := costPrice / bound.PerHour; ratio > 1.13 {
		t.Errorf("CostAware: $%.2f/h, %.3f times the lower bound $%.2f/h", costPrice, ratio, bound.PerHour)
	}
	karpNodes, karpPrice := plan(scheduling.PackingKarpenter)
	t.Logf("CostAware: %d nodes $%.2f/h; Karpenter: %d nodes $%.2f/h", costNodes, costPrice, karpNodes, karpPrice)
	if costNodes > karpNodes+karpNodes/50 || costPrice > 0.8*karpPrice {
		t.Fatalf("CostAware: %d nodes $%.2f/h, not below Karpenter's %d nodes $%.2f/h by a fifth with at most 2 %% more nodes", costNodes, costPrice, karpNodes, karpPrice)
	}
}
