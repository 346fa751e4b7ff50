package scheduling_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCostAwarePackingCutsTheBenchmarkPrice: on Karpenter's own benchmark workload the
// default packing launches no more nodes than Karpenter's rule and a cheaper plan (README,
// "deliberately does better": 28 % at 5,000 pods).
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
	karpNodes, karpPrice := plan(scheduling.PackingKarpenter)
	t.Logf("CostAware: %d nodes $%.2f/h; Karpenter: %d nodes $%.2f/h", costNodes, costPrice, karpNodes, karpPrice)
	if costNodes > karpNodes || costPrice > 0.8*karpPrice {
		t.Fatalf("CostAware: %d nodes $%.2f/h, not below Karpenter's %d nodes $%.2f/h by a fifth", costNodes, costPrice, karpNodes, karpPrice)
	}
}
