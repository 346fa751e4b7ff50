package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// TestMixedReplacementIsSpotOrNone: when the replacement's NodePool allows both spot and
// on-demand and the candidates are not all spot, Karpenter's computeConsolidation always
// restricts the replacement to spot (it judged "cheaper" assuming spot launches); with no
// spot offering where the pods must go the launch fails and the candidates stay, and a
// multi-node prefix fails. Found by difftest (disrupt:400282, D8 in the harness notes):
// nodeplan's claim had its capacity type narrowed to on-demand by the scheduler's
// finalisation, so the rule never fired and an on-demand replacement went ahead.
func TestMixedReplacementIsSpotOrNone(t *testing.T) {
	// types are testTypes' sizes, on-demand at price in every zone, spot at price/4 in zone 2
	// only, or in every zone with spotEverywhere.
	types := func(spotEverywhere bool) cloudprovider.InstanceTypes {
		var its cloudprovider.InstanceTypes
		for _, s := range []struct {
			name  string
			cpu   int
			price float64
		}{{"small", 2, 0.1}, {"medium", 4, 0.2}, {"large", 8, 0.4}} {
			var offs cloudprovider.Offerings
			for _, z := range []string{fake.TestZone1, fake.TestZone2, fake.TestZone3} {
				offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, s.price, true))
				if spotEverywhere || z == fake.TestZone2 {
					offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeSpot, s.price/4, true))
				}
			}
			its = append(its, typeOf(s.name, s.cpu, offs))
		}
		return its
	}
	// inZone1 is a bound 1-cpu pod that must run in zone 1 (where o is).
	inZone1 := func(name string) *corev1.Pod {
		p := bound(name, "1")
		p.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: fake.TestZone1}
		return p
	}
	for _, tc := range []struct {
		name           string
		spotPool       bool // the NodePool allows spot as well as on-demand
		spotEverywhere bool
		spotNode       bool // a spot candidate (zone 2, its pod may go anywhere) next to the on-demand one
		commands       []string
		blocked        map[string]Blocker
	}{
		{
			name:     "on-demand candidate, pool of both, no spot in the pod's zone: no replacement",
			spotPool: true, commands: nil,
			blocked: map[string]Blocker{"o": {Code: BlockNoCheaperReplacement, Replacement: ReplacementNotCheaper}},
		},
		{
			// Karpenter's answer on the harness's case: the spot node is emptied onto the
			// on-demand one; no multi-node with an on-demand replacement.
			name:     "mixed candidates, pool of both, no spot in the pods' zone: the multi-node prefix fails",
			spotPool: true, spotNode: true,
			commands: []string{"single-node Underutilized [s] []"},
			blocked:  map[string]Blocker{"o": {Code: BlockNominated}},
		},
		{
			name:     "mixed candidates, pool of both, spot in the pods' zone: a spot replacement",
			spotPool: true, spotNode: true, spotEverywhere: true,
			commands: []string{"multi-node Underutilized [o s] [small/spot]"},
		},
		{
			name:     "on-demand candidate, on-demand pool: an on-demand replacement",
			commands: []string{"single-node Underutilized [o] [small/on-demand]"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := pool("p")
			if tc.spotPool {
				spotToo(np)
			}
			nodes := []*cluster.Node{testNode("o", "p", "large", "", inZone1("x"))}
			if tc.spotNode {
				// s is in zone 2, where its spot offering is (in zone 1 it would have drifted).
				s := testNode("s", "p", "large", v1.CapacityTypeSpot, bound("y", "1"))
				s.Node.Labels[v1.LabelTopologyZone] = fake.TestZone2
				nodes = append(nodes, s)
			}
			in := input([]*v1.NodePool{np}, nodes...)
			in.InstanceTypes["p"] = types(tc.spotEverywhere)
			res := planWithCommands(t, in, tc.commands)
			checkFirstBlockers(t, res, tc.blocked)
		})
	}
}
