package disruption

import (
	"testing"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Options.Consolidated is Karpenter's consolidated state: emptiness and consolidation do not
// run, drift (and the forceful methods) do.
func TestConsolidatedSkipsConsolidationOnly(t *testing.T) {
	consolidation := func(consolidated bool) *fixture {
		f := input([]*v1.NodePool{pool("p")},
			testNode("empty", "p", "medium", ""),               // emptiness deletes it
			testNode("big", "p", "large", "", bound("y", "1"))) // consolidation shrinks it
		f.Options.Consolidated = consolidated
		return f
	}
	planWithCommands(t, consolidation(false), []string{"emptiness Empty [empty] []", "single-node Underutilized [big] [small/on-demand]"})
	res := planWithCommands(t, consolidation(true), nil)
	for _, node := range []string{"empty", "big"} {
		if got := firstBlocker(res, node); got != BlockNoDisruption {
			t.Errorf("%s: first blocker %s, want %s (no method that ran gains)", node, got, BlockNoDisruption)
		}
	}
	drift := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "small", v1.CapacityTypeSpot, bound("x", "1")))
	drift.Options.Consolidated = true
	planWithCommands(t, drift, []string{"drift Drifted [a] [small/on-demand]"})
}
