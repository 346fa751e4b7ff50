package disruption

import (
	"testing"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestSchedulingOptionsReachTheSimulations: every scheduling option in Options.Scheduling
// reaches the simulations; MaxInstanceTypes, which Options once could not carry, caps a
// replacement's instance-type options.
func TestSchedulingOptionsReachTheSimulations(t *testing.T) {
	options := func(max int) []string {
		in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
		in.Options.Scheduling = scheduling.Options{MaxInstanceTypes: max}
		res := planWithCommands(t, in, []string{"single-node Underutilized [a] [small/on-demand]"})
		var names []string
		for _, it := range res.Commands[0].Replacements[0].InstanceTypeOptions {
			names = append(names, it.Name)
		}
		return names
	}
	if got := options(0); len(got) < 2 {
		t.Fatalf("default: replacement options %v, want at least two (the test needs a choice to cap)", got)
	}
	if got := options(1); len(got) != 1 || got[0] != "small" {
		t.Fatalf("MaxInstanceTypes 1: replacement options %v, want [small]", got)
	}
}
