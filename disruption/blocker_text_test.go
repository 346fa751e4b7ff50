package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBlockerText: the English is built from the data alone, for every code.
func TestBlockerText(t *testing.T) {
	at := t0.Add(90 * time.Minute)
	for _, tc := range []struct {
		b    Blocker
		want string
	}{
		{Blocker{Code: BlockNodePoolNotFound}, "not managed by Karpenter (no karpenter.sh/nodepool label)"},
		{Blocker{Code: BlockNodePoolNotFound, Object: "p"}, `NodePool "p" not found`},
		{Blocker{Code: BlockConsolidateAfter, Object: "p", At: &at, Duration: 90 * time.Minute},
			"not consolidatable yet: consolidateAfter 1h30m elapses at 2026-01-01T01:30:00Z"},
		{Blocker{Code: BlockConsolidateAfter, Object: "p", At: &at, Duration: 2 * time.Hour},
			"not consolidatable yet: consolidateAfter 2h elapses at 2026-01-01T01:30:00Z"},
		{Blocker{Code: BlockBudget, Object: "p", Budget: "Empty", Allowed: 1, Nodes: 4, Disrupting: 1},
			`disruption budget of NodePool "p" allows no more Empty disruptions (1 of 4 nodes allowed, 1 already disrupting)`},
		{Blocker{Code: BlockBudget, Object: "p", Budget: "Empty", Detail: "bad schedule"}, `disruption budget of NodePool "p" is invalid: bad schedule`},
		{Blocker{Code: BlockDoNotDisruptPod, Object: "ns/x", Pod: "ns/x", Annotation: "5m"}, "pod ns/x has karpenter.sh/do-not-disrupt=5m (pod has no start time)"},
		{Blocker{Code: BlockDoNotDisruptPod, Object: "ns/x", Pod: "ns/x", Annotation: "2h", At: &at}, "pod ns/x has karpenter.sh/do-not-disrupt=2h, until 2026-01-01T01:30:00Z"},
		{Blocker{Code: BlockPDBConflict, Object: "ns/x", Pod: "ns/x", PDBs: []string{"ns/a", "ns/b", "ns/c"}},
			"pod ns/x is selected by more than one PodDisruptionBudget (ns/a, ns/b, ns/c)"},
		{Blocker{Code: BlockPDB, Object: "ns/pdb", Pod: "ns/x", Drift: Drift{Reason: "AMIDrift"}}, "drifted (AMIDrift), but PodDisruptionBudget ns/pdb allows no disruption of pod ns/x"},
		{Blocker{Code: BlockNotConsolidatable, Object: "m5.large", NodePool: "p"}, `instance type "m5.large" is not offered by NodePool "p"`},
		{Blocker{Code: BlockPodUnschedulable, Object: "ns/x", Pod: "ns/x", Node: "u"}, "pod ns/x would schedule on uninitialized node u"},
		{Blocker{Code: BlockNoCheaperReplacement, Replacement: ReplacementNotCheaper, Price: 0.4}, "no replacement is cheaper than $0.4000/h"},
		{Blocker{Code: BlockNoCheaperReplacement, Replacement: ReplacementNotCheaper, Price: 0.4, CheapestType: "large", CheapestPrice: 0.4},
			"no replacement is cheaper than $0.4000/h (cheapest fit: large at $0.4000/h)"},
		{Blocker{Code: BlockNoCheaperReplacement, Replacement: ReplacementTooFewSpotTypes, InstanceTypes: 3},
			"spot-to-spot consolidation needs at least 15 cheaper spot instance types, found 3"},
		{Blocker{Code: BlockBalanced, NodePool: "p", Score: 0.123},
			`NodePool "p" is Balanced and scores this move 0.12, below 0.50 (its savings are too small for the pods it disrupts)`},
		{Blocker{Code: BlockRepairLimited, Unhealthy: 3, Nodes: 10, Allowed: 2},
			"unhealthy (?), but node repair is blocked: 3 of 10 nodes of the cluster are unhealthy, more than 20% (2)"},
	} {
		assert.Equal(t, tc.want, tc.b.String())
	}
	for _, code := range []BlockCode{BlockNodePoolNotFound, BlockNoNode, BlockDeleting, BlockUninitialized, BlockDoNotDisruptNode,
		BlockNoInstanceTypes, BlockNominated, BlockBudget, BlockStatic, BlockDoNotDisruptPod, BlockPDB, BlockPDBConflict,
		BlockConsolidateAfter, BlockConsolidateNever, BlockWhenEmpty, BlockNotConsolidatable, BlockPodUnschedulable,
		BlockTooManyReplacements, BlockNoCheaperReplacement, BlockBalanced, BlockRepairPending, BlockRepairLimited, BlockNoDisruption} {
		if s := (Blocker{Code: code}).String(); s == "" || s == string(code) {
			t.Errorf("%s has no English: %q", code, s)
		}
	}
	for _, code := range []ReplacementCode{ReplacementNotCheaper, ReplacementSpotToSpotDisabled, ReplacementTooFewSpotTypes, ReplacementMinValues, ReplacementSameInstanceType} {
		if s := (Blocker{Code: BlockNoCheaperReplacement, Replacement: code}).String(); s == "" || s == string(code) {
			t.Errorf("%s has no English: %q", code, s)
		}
	}
}
