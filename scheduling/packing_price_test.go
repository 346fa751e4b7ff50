package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCostAwarePackingCutsTheBenchmarkPrice: on Karpenter's own benchmark workload the
// default packing's plan is cheaper than Karpenter's rule by more than a fifth (README,
// "deliberately does better": 30 % at 5,000 pods) and close to the lower bound, with at most
// 2 % more nodes (its repair may trade a few more, smaller nodes for price). The bounds on
// price/bound hold only with the repair's row prices averaged over the perturbed programs
// (1,000 pods: 1.111, 1.162 by the one degenerate program) and with a bucket that no pod
// leaves keeping its first pass when the repair is dearer there (500 pods: 1.135 and 100
// nodes, 1.147 and 105 nodes when the NodePool's buckets were kept together).
func TestCostAwarePackingCutsTheBenchmarkPrice(t *testing.T) {
	for _, tc := range []struct {
		pods       int
		maxRatio   float64
		extraNodes int
	}{{500, 1.14, 0}, {1000, 1.13, 4}} {
		t.Run(fmt.Sprintf("pods=%d", tc.pods), func(t *testing.T) {
			snap := snapOf(t, benchmarkObjects(tc.pods))
			plan := func(p scheduling.Packing) (int, float64) {
				res := mustSolve(t, snap, scheduling.Options{Packing: p})
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
			if ratio := costPrice / bound.PerHour; ratio > tc.maxRatio {
				t.Errorf("CostAware: $%.2f/h, %.3f times the lower bound $%.2f/h", costPrice, ratio, bound.PerHour)
			}
			karpNodes, karpPrice := plan(scheduling.PackingKarpenter)
			t.Logf("CostAware: %d nodes $%.2f/h; Karpenter: %d nodes $%.2f/h", costNodes, costPrice, karpNodes, karpPrice)
			if costNodes > karpNodes+tc.extraNodes || costPrice > 0.8*karpPrice {
				t.Fatalf("CostAware: %d nodes $%.2f/h, not below Karpenter's %d nodes $%.2f/h by a fifth with at most %d more nodes",
					costNodes, costPrice, karpNodes, karpPrice, tc.extraNodes)
			}
		})
	}
}
