package disruption

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// pricesOf plans f and prices the result.
func pricesOf(t tb, f *fixture) (*Result, Prices) {
	t.Helper()
	res, err := plan(t, f)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	snap, err := f.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	p, err := PricesOf(snap, res, f.Options)
	if err != nil {
		t.Fatalf("PricesOf: %v", err)
	}
	return res, p
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }

// TestPricesHandSolved: now, after and the from-scratch bound on small clusters worked out
// by hand (every test type costs $0.05 per on-demand vCPU, 2 GiB per vCPU, no overhead).
func TestPricesHandSolved(t *testing.T) {
	t.Run("two half-empty medium nodes consolidate; 1 vCPU of pods is bounded by $0.05", func(t *testing.T) {
		f := input([]*v1.NodePool{pool("default")},
			testNode("a", "default", "medium", "", bound("a1", "500m")),
			testNode("b", "default", "medium", "", bound("b1", "500m")))
		res, p := pricesOf(t, f)
		if len(res.Commands) == 0 {
			t.Fatal("no consolidation")
		}
		if !near(p.Now, 0.4) || !near(p.LowerBound, 0.05) {
			t.Fatalf("now %v, bound %v; want 0.4 and 0.05", p.Now, p.LowerBound)
		}
		want := p.Now
		for _, c := range res.Commands {
			for range c.Candidates {
				want -= 0.2
			}
			want += launchPrice(c.Replacements)
		}
		if !near(p.After, want) || p.After >= p.Now || p.After < p.LowerBound {
			t.Fatalf("after %v, want %v (now %v, bound %v)", p.After, want, p.Now, p.LowerBound)
		}
	})
	t.Run("a deleting node leaves, the provisioned claim for its pod comes", func(t *testing.T) {
		f := input([]*v1.NodePool{pool("default")},
			testNode("a", "default", "large", "", bound("a1", "3")),
			testNode("b", "default", "small", "", bound("b1", "1")))
		f.Deleting = []string{"a"}
		res, p := pricesOf(t, f)
		if len(res.Provisioned) != 1 {
			t.Fatalf("%d claims provisioned, want 1 for the deleting node's pod", len(res.Provisioned))
		}
		// Now: large 0.4 + small 0.1. After: the large goes, a medium (3 vCPU fit 4) comes:
		// 0.1 + 0.2 unless a command changes more. Bound: 4 vCPU at $0.05.
		if !near(p.Now, 0.5) || !near(p.LowerBound, 0.2) {
			t.Fatalf("now %v, bound %v; want 0.5 and 0.2", p.Now, p.LowerBound)
		}
		if len(res.Commands) == 0 && !near(p.After, 0.1+launchPrice(res.Provisioned)) {
			t.Fatalf("after %v, want 0.1 + %v", p.After, launchPrice(res.Provisioned))
		}
	})
}

// plannable reports whether f's cluster is one of the plans the bound is a bound of: every
// node of an offering its NodePool allows now (a spot node of a NodePool that allows only
// on-demand now may be cheaper than any plan it could launch), holding its pods' cpu.
func plannable(f *fixture) bool {
	for _, n := range f.Nodes {
		allowed := false
		for _, np := range f.NodePools {
			if np.Name == n.Node.Labels[v1.NodePoolLabelKey] {
				allowed = slices.Contains(np.Spec.Template.Spec.Requirements[0].Values, n.Node.Labels[v1.CapacityTypeLabelKey])
			}
		}
		requested := int64(0)
		for _, p := range n.Pods {
			requested += p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		}
		if !allowed || requested > n.Node.Status.Allocatable.Cpu().MilliValue() {
			return false
		}
	}
	return true
}

// TestPropPricesOrdered: on random clusters (every pod bound to a priced node) that are plans
// of their NodePools (nothing drifted or overcommitted), the commands never make the cluster
// dearer, and the bound of its pods from scratch is no more than what it costs now or
// after the commands, both of which place every pod.
func TestPropPricesOrdered(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := drawCluster(t)
		_, p := pricesOf(t, f)
		if len(p.Unpriced) > 0 {
			t.Fatalf("unpriced nodes %v in a cluster of NodePool nodes", p.Unpriced)
		}
		if !plannable(f) {
			return // drift may replace a node by a dearer one, and an overcommitted node is cheaper than any plan
		}
		if p.LowerBound > p.Now*(1+1e-9)+1e-9 || p.LowerBound > p.After*(1+1e-9)+1e-9 {
			t.Fatalf("bound %v above now %v or after %v", p.LowerBound, p.Now, p.After)
		}
		if p.After > p.Now*(1+1e-9)+1e-9 {
			t.Fatalf("after %v above now %v: consolidation made the cluster dearer", p.After, p.Now)
		}
	})
}
