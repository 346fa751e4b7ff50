package disruption

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

func emptyNodes(n int, poolName string) []*cluster.Node {
	var out []*cluster.Node
	for i := 0; i < n; i++ {
		out = append(out, testNode(fmt.Sprintf("empty-%02d", i), poolName, "small", ""))
	}
	return out
}

func TestPlan(t *testing.T) {
	pdb := func(name string, mu int, sel string) *policyv1.PodDisruptionBudget {
		return fake.PDB(name, "default", map[string]string{"app": sel}, mu)
	}
	annotated := func(p *corev1.Pod, v string) *corev1.Pod {
		p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: v}
		return p
	}
	tests := []struct {
		name     string
		in       func() *fixture
		commands []string
		blocked  map[string]Blocker // node -> the code and data of its first blocker
	}{
		{
			name: "empty node deleted, busy cheapest node stays",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", ""), testNode("b", "p", "small", "", bound("x", "1")))
			},
			commands: []string{"emptiness Empty [a] []"},
			blocked:  map[string]Blocker{"b": {Code: BlockNoCheaperReplacement, Replacement: ReplacementNotCheaper, Price: 0.1}},
		},
		{
			name:     "budget 30% of 10 empty nodes deletes 3",
			in:       func() *fixture { return input([]*v1.NodePool{pool("p", budget("30%"))}, emptyNodes(10, "p")...) },
			commands: []string{"emptiness Empty [empty-00 empty-01 empty-02] []"},
			blocked:  map[string]Blocker{"empty-09": {Code: BlockBudget, Object: "p", Budget: "Empty", Allowed: 3, Nodes: 10, Disrupting: 3}},
		},
		{
			name:    "budget 0% deletes nothing",
			in:      func() *fixture { return input([]*v1.NodePool{pool("p", budget("0%"))}, emptyNodes(3, "p")...) },
			blocked: map[string]Blocker{"empty-00": {Code: BlockBudget, Budget: "Empty"}},
		},
		{
			name: "budget counts nodes already deleting",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p", budget("3"))}, emptyNodes(10, "p")...)
				in.Deleting = []string{"empty-00"}
				return in
			},
			commands: []string{"emptiness Empty [empty-01 empty-02] []"},
			blocked:  map[string]Blocker{"empty-00": {Code: BlockDeleting}},
		},
		{
			name: "do-not-disrupt pod blocks consolidation",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", annotated(bound("x", "1"), "true")))
			},
			blocked: map[string]Blocker{"a": {Code: BlockDoNotDisruptPod, Annotation: "true"}},
		},
		{
			name: "elapsed do-not-disrupt duration does not block",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", annotated(bound("x", "1"), "30m")))
			},
			commands: []string{"single-node Underutilized [a] [small/on-demand]"},
		},
		{
			name: "active do-not-disrupt duration blocks",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", annotated(bound("x", "1"), "2h")))
			},
			blocked: map[string]Blocker{"a": {Code: BlockDoNotDisruptPod, Annotation: "2h"}},
		},
		{
			name: "do-not-disrupt node annotation",
			in: func() *fixture {
				n := testNode("a", "p", "large", "")
				n.Node.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
				return input([]*v1.NodePool{pool("p")}, n)
			},
			blocked: map[string]Blocker{"a": {Code: BlockDoNotDisruptNode, Object: "a"}},
		},
		{
			name: "PDB allowing no disruption blocks",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
				in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdb("x", 0, "x")}
				return in
			},
			blocked: map[string]Blocker{"a": {Code: BlockPDB, Object: "default/x"}},
		},
		{
			name: "PDB status disruptionsAllowed 0 blocks",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
				b := pdb("x", 1, "x")
				b.Status.ObservedGeneration, b.Status.DisruptionsAllowed = 1, 0
				in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{b}
				return in
			},
			blocked: map[string]Blocker{"a": {Code: BlockPDB}},
		},
		{
			name: "PDB with room does not block",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
				in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdb("x", 1, "x")}
				return in
			},
			commands: []string{"single-node Underutilized [a] [small/on-demand]"},
		},
		{
			name: "two PDBs on a pod block",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
				in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdb("x", 1, "x"), pdb("y", 1, "x")}
				return in
			},
			blocked: map[string]Blocker{"a": {Code: BlockPDBConflict}},
		},
		{
			name: "consolidateAfter not elapsed",
			in: func() *fixture {
				np := pool("p")
				np.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration("2h")
				return input([]*v1.NodePool{np}, testNode("a", "p", "large", ""))
			},
			blocked: map[string]Blocker{"a": {Code: BlockConsolidateAfter}},
		},
		{
			name: "consolidateAfter Never",
			in: func() *fixture {
				np := pool("p")
				np.Spec.Disruption.ConsolidateAfter = v1.NeverDuration()
				return input([]*v1.NodePool{np}, testNode("a", "p", "large", ""))
			},
			blocked: map[string]Blocker{"a": {Code: BlockConsolidateNever}},
		},
		{
			name: "expireAfter elapsed: forceful, ignores a 0 budget",
			in: func() *fixture {
				np := pool("p", budget("0"))
				np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("30m")
				return input([]*v1.NodePool{np}, testNode("a", "p", "small", "", bound("x", "1")))
			},
			commands: []string{"expiration Expired [a] []"},
		},
		{
			name: "WhenEmpty does not consolidate a busy node",
			in: func() *fixture {
				np := pool("p")
				np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty
				return input([]*v1.NodePool{np}, testNode("a", "p", "large", "", bound("x", "1")))
			},
			blocked: map[string]Blocker{"a": {Code: BlockWhenEmpty}},
		},
		{
			name: "spot-to-spot off",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p", spotToo)}, testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "1")))
			},
			blocked: map[string]Blocker{"a": {Code: BlockNoCheaperReplacement, Replacement: ReplacementSpotToSpotDisabled}},
		},
		{
			name: "spot-to-spot on, but fewer than 15 cheaper types",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p", spotToo)}, testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "1")))
				in.Options.SpotToSpotConsolidation = true
				return in
			},
			blocked: map[string]Blocker{"a": {Code: BlockNoCheaperReplacement, Replacement: ReplacementTooFewSpotTypes}},
		},
		{
			name: "replace with a cheaper node (spot preferred when the NodePool allows it)",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p", spotToo)}, testNode("a", "p", "large", "", bound("x", "1")))
			},
			commands: []string{"single-node Underutilized [a] [small/spot]"},
		},
		{
			name: "replace on-demand only",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")))
			},
			commands: []string{"single-node Underutilized [a] [small/on-demand]"},
		},
		{
			name: "delete when another node has room",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "medium", "", bound("x", "1")), testNode("b", "p", "large", "", bound("y", "1")))
			},
			commands: []string{"multi-node Underutilized [a b] [small/on-demand]"},
		},
		{
			name: "delete onto a busy node with room",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "small", "", bound("x", "1")), testNode("b", "p", "large", "", bound("y", "6")))
			},
			commands: []string{"single-node Underutilized [a] []"},
			blocked:  map[string]Blocker{"b": {Code: BlockNominated}},
		},
		{
			name: "multi-node merges two half-empty nodes into one cheaper",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1500m")), testNode("b", "p", "large", "", bound("y", "1500m")))
			},
			commands: []string{"multi-node Underutilized [a b] [medium/on-demand]"},
		},
		{
			name: "multi-node does not replace two nodes by one of their type; single-node deletes one",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "3")), testNode("b", "p", "large", "", bound("y", "3")))
			},
			commands: []string{"single-node Underutilized [a] []"},
			blocked:  map[string]Blocker{"b": {Code: BlockNominated}},
		},
		{
			name: "pods cannot reschedule",
			in: func() *fixture {
				p := bound("x", "1")
				p.Spec.NodeSelector = map[string]string{"team": "a"}
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", p))
			},
			blocked: map[string]Blocker{"a": {Code: BlockPodUnschedulable, PodError: &scheduling.PodError{Code: scheduling.ReasonRequirementsUnsatisfiable}}},
		},
		{
			name: "requirements drift replaces the node",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")}, testNode("a", "p", "small", v1.CapacityTypeSpot, bound("x", "1")))
			},
			commands: []string{"drift Drifted [a] [small/on-demand]"},
		},
		{
			name: "drift condition, do-not-disrupt pod without TGP blocks",
			in: func() *fixture {
				n := testNode("a", "p", "small", "", annotated(bound("x", "1"), "true"))
				n.NodeClaim = &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: metav1.NewTime(t0)}}
				n.NodeClaim.Status.NodeName = "a"
				n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "AMIDrift"}}
				return input([]*v1.NodePool{pool("p")}, n)
			},
			blocked: map[string]Blocker{"a": {Code: BlockDoNotDisruptPod, Pod: "default/x", Drift: Drift{Reason: "AMIDrift"}}},
		},
		{
			name: "uninitialized and unmanaged nodes",
			in: func() *fixture {
				u := testNode("u", "p", "large", "")
				delete(u.Node.Labels, v1.NodeInitializedLabelKey)
				x := testNode("x", "p", "large", "")
				delete(x.Node.Labels, v1.NodePoolLabelKey)
				return input([]*v1.NodePool{pool("p")}, u, x, testNode("z", "nope", "large", ""))
			},
			blocked: map[string]Blocker{"u": {Code: BlockUninitialized}, "z": {Code: BlockNodePoolNotFound, Object: "nope"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			res, err := plan(t, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := cmdSummary(res); !reflect.DeepEqual(got, tt.commands) {
				t.Errorf("commands:\n got %q\nwant %q\nblocked: %+v", got, tt.commands, res.Blocked)
			}
			checkFirstBlockers(t, res, tt.blocked)
			checkNothingLost(t, in, res)
			for _, c := range res.Commands {
				if c.Reason == ReasonUnderutilized && c.SavingsPerHour <= 0 {
					t.Errorf("consolidation %v saves %v", c.Candidates, c.SavingsPerHour)
				}
			}
		})
	}
}

// planNothingLost plans in (verified), stops the test if Plan fails, and checks that the
// result loses no node and no pod (checkNothingLost).
func planNothingLost(t tb, in *fixture) *Result {
	t.Helper()
	res, err := plan(t, in)
	if err != nil {
		t.Fatal(err)
	}
	checkNothingLost(t, in, res)
	return res
}

// checkNothingLost: every managed node is in exactly one command or blocked, never both.
func checkNothingLost(t interface{ Errorf(string, ...any) }, in *fixture, res *Result) {
	seen := map[string]int{}
	for _, c := range res.Commands {
		for _, n := range c.Candidates {
			seen[n]++
		}
	}
	for _, b := range res.Blocked {
		seen[b.Node]++
		if b.Message() == "" {
			t.Errorf("node %s blocked without a reason", b.Node)
		}
		checkBlockers(t, b)
	}
	for _, n := range in.Nodes {
		if n.Node != nil && n.Node.Labels[v1.NodePoolLabelKey] == "" {
			continue
		}
		if seen[n.Name()] != 1 {
			t.Errorf("node %s appears %d times in commands+blocked", n.Name(), seen[n.Name()])
		}
	}
}

// checkBlockers: a kept node has blockers, none twice, NoDisruption only alone.
func checkBlockers(t interface{ Errorf(string, ...any) }, b Blocked) {
	if len(b.Blockers) == 0 {
		t.Errorf("node %s blocked without blockers (%q)", b.Node, b.Message())
	}
	seen := map[blockerKey]bool{}
	for _, x := range b.Blockers {
		if seen[x.key()] {
			t.Errorf("node %s lists blocker %+v twice", b.Node, x)
		}
		seen[x.key()] = true
		if text := x.String(); text == "" || text == string(x.Code) {
			t.Errorf("node %s: blocker %+v has no English (%q)", b.Node, x, text)
		}
		if x.Code == BlockNoDisruption && len(b.Blockers) > 1 {
			t.Errorf("node %s: NoDisruption next to other blockers %+v", b.Node, b.Blockers)
		}
	}
}

func pdbFor(app string) *policyv1.PodDisruptionBudget {
	return fake.PDB(app, "default", map[string]string{"app": app}, 1)
}

func TestBudgetsAcrossNodePools(t *testing.T) {
	var nodes []*cluster.Node
	for _, p := range []string{"p1", "p2"} {
		for i := 0; i < 10; i++ {
			nodes = append(nodes, testNode(fmt.Sprintf("%s-%02d", p, i), p, "small", ""))
		}
	}
	res, err := plan(t, input([]*v1.NodePool{pool("p1", budget("2")), pool("p2", budget("20%"))}, nodes...))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 1 || len(res.Commands[0].Candidates) != 4 {
		t.Fatalf("want one command with 2+2 nodes, got %q", cmdSummary(res))
	}
}

func TestNilAndOddInput(t *testing.T) {
	if _, err := Plan(nil, now, Options{}); err == nil {
		t.Error("nil snapshot: want an error")
	}
	in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "small", ""))
	in.Pods = []*corev1.Pod{nil}
	if _, err := in.snapshot(); err == nil {
		t.Error("nil pod: want cluster.New's error")
	}
	in.Pods = nil
	in.Objects.Nodes = []*corev1.Node{nil}
	if _, err := in.snapshot(); err == nil {
		t.Error("nil Node: want cluster.New's error")
	}
	in.Objects.Nodes = nil
	in.Nodes = append(in.Nodes, testNode("a", "p", "large", ""))
	if _, err := in.snapshot(); err == nil {
		t.Error("two nodes named a: want cluster.New's error")
	}
	in.Nodes = in.Nodes[:1]
	planNothingLost(t, in)
}
