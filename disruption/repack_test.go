package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// moveCase is a table case of a move Karpenter cannot make: the cluster, the commands Plan
// starts with Options.Repack (repack) and without (karpenter), and, when a node is kept in
// both, its first blocker's code with Repack.
type moveCase struct {
	name      string
	in        func() *fixture
	repack    []string
	karpenter []string
	kept      map[string]BlockCode
}

// run plans tc's cluster with and without Options.Repack (each Plan held to verify.Plan by
// plan) and checks the commands and the kept nodes' first blockers.
func (tc moveCase) run(t *testing.T) {
	t.Run(tc.name, func(t *testing.T) {
		for _, on := range []bool{true, false} {
			in := tc.in()
			in.Options.Repack = on
			want := tc.karpenter
			if on {
				want = tc.repack
			}
			res := planWithCommands(t, in, want)
			if on {
				for node, code := range tc.kept {
					if got := firstBlocker(res, node); got != code {
						t.Errorf("node %s: first blocker %q, want %q (%q)", node, got, code, blockedReason(res, node))
					}
				}
				checkCheaper(t, in, res)
			}
		}
	})
}

// checkCheaper: every consolidation command's replacements cost less, at their cheapest
// offerings, than its candidates, and its savings are the difference.
func checkCheaper(t tb, in *fixture, res *Result) {
	t.Helper()
	snap, err := in.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Commands {
		if c.Reason != ReasonUnderutilized {
			continue
		}
		cands := 0.0
		for _, name := range c.Candidates {
			p, ok := snap.NodePrice(name)
			if !ok {
				t.Fatalf("command %s: candidate %s has no price", c.Method, name)
			}
			cands += p
		}
		repl := launchPrice(c.Replacements)
		if !(repl < cands) {
			t.Errorf("command %s %v: replacements $%.4f/h, candidates $%.4f/h: not cheaper", c.Method, c.Candidates, repl, cands)
		}
		if d := cands - repl - c.SavingsPerHour; d > 1e-9 || d < -1e-9 {
			t.Errorf("command %s %v: savings $%.4f/h, price difference $%.4f/h", c.Method, c.Candidates, c.SavingsPerHour, cands-repl)
		}
	}
}

// pdbOn is a PodDisruptionBudget allowing no disruption of the pods labelled app=app.
func pdbOn(app string) *policyv1.PodDisruptionBudget {
	zero := intstr.FromInt32(0)
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb-" + app, Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
}

func balanced(np *v1.NodePool) {
	np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyBalanced
}

func withDoNotDisrupt(p *corev1.Pod) *corev1.Pod {
	p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
	return p
}

// TestSplit: single-node consolidation with Options.Repack replaces a node by several
// NodeClaims cheaper together (1→N) when Karpenter finds no single cheaper one, within
// budgets, PDBs, do-not-disrupt and the spot-to-spot rules, and only when cheaper by their
// worst-case launch prices. Types: small 2 vCPU $0.1, medium 4 $0.2, large 8 $0.4 (spot ¼).
func TestSplit(t *testing.T) {
	// large (8 vCPU, $0.40) running 3 + 1.5 vCPU: one cheaper node (medium, 4 vCPU) cannot
	// hold them; a medium and a small can ($0.30).
	splittable := func(mod ...func(*v1.NodePool)) func() *fixture {
		return func() *fixture {
			return input([]*v1.NodePool{pool("p", mod...)}, testNode("a", "p", "large", "", bound("x", "3"), bound("y", "1500m")))
		}
	}
	for _, tc := range []moveCase{
		{name: "fires: a large node by a medium and a small", in: splittable(),
			repack:    []string{"split Underutilized [a] [medium/on-demand small/on-demand]"},
			karpenter: nil},
		{name: "budget 0 keeps it", in: splittable(budget("0")),
			kept: map[string]BlockCode{"a": BlockBudget}},
		{name: "a PDB allowing no disruption keeps it", in: func() *fixture {
			in := splittable()()
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdbOn("x")}
			return in
		}, kept: map[string]BlockCode{"a": BlockPDB}},
		{name: "a do-not-disrupt pod keeps it", in: func() *fixture {
			return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", withDoNotDisrupt(bound("x", "3")), bound("y", "1500m")))
		}, kept: map[string]BlockCode{"a": BlockDoNotDisruptPod}},
		{name: "not cheaper: 3.5 + 3.5 vCPU need two mediums, as dear as the large", in: func() *fixture {
			return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "3500m"), bound("y", "3500m")))
		}, kept: map[string]BlockCode{"a": BlockNoCheaperReplacement}},
		{name: "a Balanced NodePool rejects saving a quarter of its price for all its disruption", in: splittable(balanced),
			kept: map[string]BlockCode{"a": BlockNoCheaperReplacement}},
		{name: "Karpenter's move first: one spot large replaces the on-demand one", in: splittable(spotToo),
			repack:    []string{"single-node Underutilized [a] [large/spot]"},
			karpenter: []string{"single-node Underutilized [a] [large/spot]"}},
		{name: "spot to spot off: a spot node is not split", in: func() *fixture {
			return input([]*v1.NodePool{pool("p", spotToo)}, testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "3"), bound("y", "1500m")))
		}, kept: map[string]BlockCode{"a": BlockNoCheaperReplacement}},
		{name: "spot to spot on: fewer than 15 cheaper spot types", in: func() *fixture {
			in := input([]*v1.NodePool{pool("p", spotToo)}, testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "3"), bound("y", "1500m")))
			in.Options.SpotToSpotConsolidation = true
			return in
		}, kept: map[string]BlockCode{"a": BlockNoCheaperReplacement}},
	} {
		tc.run(t)
	}
}

// TestRepack: with Options.Repack, several nodes are replaced by a different, cheaper set
// (m→n) when neither Karpenter's moves nor a split can shrink them, within budgets, PDBs,
// do-not-disrupt and the spot-to-spot rules, and only when cheaper.
func TestRepack(t *testing.T) {
	// Three mediums (4 vCPU, $0.20) each running two pods of 1.5 vCPU: no node has room for
	// another's pod, one node's pods need a medium (two smalls cost as much), two nodes' a
	// large (as dear), all three's 9 vCPU no single type; a large and a small hold them
	// ($0.50 for $0.60).
	three := func(mod ...func(*v1.NodePool)) func() *fixture {
		return func() *fixture {
			var nodes []*cluster.Node
			for _, n := range []string{"a", "b", "c"} {
				nodes = append(nodes, testNode(n, "p", "medium", "", bound(n+"1", "1500m"), bound(n+"2", "1500m")))
			}
			return input([]*v1.NodePool{pool("p", mod...)}, nodes...)
		}
	}
	notCheaper := map[string]BlockCode{"a": BlockNoCheaperReplacement, "b": BlockNoCheaperReplacement, "c": BlockNoCheaperReplacement}
	for _, tc := range []moveCase{
		{name: "fires: three mediums by a large and a small", in: three(),
			repack: []string{"repack Underutilized [a b c] [large/on-demand small/on-demand]"}},
		{name: "budget 2: two nodes alone save nothing", in: three(budget("2")), kept: notCheaper},
		{name: "a PDB allowing no disruption keeps a node and the others save nothing", in: func() *fixture {
			in := three()()
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdbOn("a1")}
			return in
		}, kept: map[string]BlockCode{"a": BlockPDB, "b": BlockNoCheaperReplacement, "c": BlockNoCheaperReplacement}},
		{name: "a do-not-disrupt pod keeps a node and the others save nothing", in: func() *fixture {
			in := three()()
			withDoNotDisrupt(in.Nodes[1].Pods[0])
			return in
		}, kept: map[string]BlockCode{"a": BlockNoCheaperReplacement, "b": BlockDoNotDisruptPod, "c": BlockNoCheaperReplacement}},
		{name: "a Balanced NodePool rejects saving a sixth of its price for all its disruption", in: three(balanced), kept: notCheaper},
		{name: "not cheaper: full mediums need 12 vCPU, a large and a medium", in: func() *fixture {
			var nodes []*cluster.Node
			for _, n := range []string{"a", "b", "c"} {
				nodes = append(nodes, testNode(n, "p", "medium", "", bound(n+"1", "2"), bound(n+"2", "2")))
			}
			return input([]*v1.NodePool{pool("p")}, nodes...)
		}, kept: notCheaper},
		{name: "spot to spot off: spot nodes are not repacked", in: func() *fixture {
			in := three(spotToo)()
			for _, n := range in.Nodes {
				n.Node.Labels[v1.CapacityTypeLabelKey] = v1.CapacityTypeSpot
			}
			return in
		}, kept: notCheaper},
		{name: "spot to spot on: spot nodes by cheaper spot ones", in: func() *fixture {
			in := three(spotToo)()
			for _, n := range in.Nodes {
				n.Node.Labels[v1.CapacityTypeLabelKey] = v1.CapacityTypeSpot
			}
			in.Options.SpotToSpotConsolidation = true
			return in
		}, repack: []string{"repack Underutilized [a b c] [large/spot small/spot]"}, karpenter: nil},
	} {
		tc.run(t)
	}
}

// TestPropRepackValidAndNeverDearer: with Options.Repack, every Plan of a random cluster
// passes verify.Plan (plan checks it) and is the same when planned again, every
// consolidation command is cheaper by its price difference, and the cluster's price after
// the commands is never above its price now but for what the other methods (drift,
// expiration) and the provisioner add.
func TestPropRepackValidAndNeverDearer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawCluster(t)
		in.Options.Repack = true
		res, err := plan(t, in)
		if err != nil {
			t.Fatal(err)
		}
		checkCheaper(t, in, res)
		snap, err := in.snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if again, err := Plan(snap, in.Now, in.Options); err != nil || summary(again) != summary(res) {
			t.Fatalf("a second Plan differs (%v):\n%s\n%s", err, summary(res), summary(again))
		}
		prices, err := PricesOf(snap, res, in.Options)
		if err != nil {
			t.Fatal(err)
		}
		others := launchPrice(res.Provisioned)
		for _, c := range res.Commands {
			if c.Reason != ReasonUnderutilized && c.Reason != ReasonEmpty {
				others += launchPrice(c.Replacements)
				for _, name := range c.Candidates {
					p, _ := snap.NodePrice(name)
					others -= p
				}
			}
		}
		if prices.After > prices.Now+others+1e-9 {
			t.Fatalf("price after the commands $%.4f/h > now $%.4f/h + $%.4f/h of other methods: %v", prices.After, prices.Now, others, cmdSummary(res))
		}
	})
}
