package disruption

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestBlockersListEveryReason: a kept node lists every blocker with its object, the one its
// Reason explains first.
func TestBlockersListEveryReason(t *testing.T) {
	noDisruptions := func(sel string) *policyv1.PodDisruptionBudget {
		return fake.PDB("pdb-"+sel, "default", map[string]string{"app": sel}, 0)
	}
	dnd := func(p *corev1.Pod) *corev1.Pod {
		p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		return p
	}
	consolidateAfter := func(d string) func(*v1.NodePool) {
		return func(np *v1.NodePool) { np.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration(d) }
	}
	whenEmpty := func(np *v1.NodePool) { np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty }
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }
	spot := func(np *v1.NodePool) {
		np.Spec.Template.Spec.Requirements[0].Values = []string{v1.CapacityTypeOnDemand, v1.CapacityTypeSpot}
	}
	apart := func(name string) *corev1.Pod {
		p := bound(name, "1500m")
		p.Labels["group"] = "x"
		p.Spec.Affinity = fake.Pod(name).PodAntiAffinity(v1.LabelHostname, map[string]string{"group": "x"}).Obj().Spec.Affinity
		return p
	}
	allowing := func(name string) *policyv1.PodDisruptionBudget {
		return fake.PDB(name, "default", map[string]string{"app": "x"}, 1)
	}
	underutilized := string(v1.DisruptionReasonUnderutilized)
	tests := []struct {
		name  string
		pools []*v1.NodePool
		node  *cluster.Node
		// others are more nodes; pending are pending pods
		others  []*cluster.Node
		pending []*corev1.Pod
		// deleting marks node a for deletion
		deleting bool
		pdbs     []*policyv1.PodDisruptionBudget
		opts     Options
		noTypes  bool // the NodePool has no instance types
		want     []Blocker
	}{
		{
			name:  "PDB, consolidateAfter and budget at once",
			pools: []*v1.NodePool{pool("p", consolidateAfter("2h"), budget("0"))},
			node:  testNode("a", "p", "large", "", bound("web", "1")),
			pdbs:  []*policyv1.PodDisruptionBudget{noDisruptions("web")},
			want: []Blocker{{Code: BlockPDB, Object: "default/pdb-web", Pod: "default/web"},
				{Code: BlockConsolidateAfter, Object: "p", At: at(2 * time.Hour), Duration: 2 * time.Hour},
				{Code: BlockBudget, Object: "p", Budget: underutilized, Nodes: 1}},
		},
		{
			name:  "every pod blocker, one PDB listed once, do-not-disrupt before PDB",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "large", "", bound("web-1", "1"), dnd(bound("db", "1")), bound("web-2", "1")),
			pdbs:  []*policyv1.PodDisruptionBudget{noDisruptions("web-1"), noDisruptions("db")},
			// pods in namespace/name order, whatever their order in the input
			want: []Blocker{{Code: BlockDoNotDisruptPod, Object: "default/db", Pod: "default/db", Annotation: "true"},
				{Code: BlockPDB, Object: "default/pdb-db", Pod: "default/db"},
				{Code: BlockPDB, Object: "default/pdb-web-1", Pod: "default/web-1"}},
		},
		{
			name:  "do-not-disrupt for a duration: until the pod's start plus it",
			pools: []*v1.NodePool{pool("p")},
			node: testNode("a", "p", "large", "", func() *corev1.Pod {
				p := bound("x", "1")
				p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "2h"}
				return p
			}()),
			want: []Blocker{{Code: BlockDoNotDisruptPod, Object: "default/x", Pod: "default/x", Annotation: "2h", At: at(2 * time.Hour)}},
		},
		{
			name:  "two PDBs select a pod",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			pdbs:  []*policyv1.PodDisruptionBudget{allowing("one"), allowing("two")},
			want:  []Blocker{{Code: BlockPDBConflict, Object: "default/x", Pod: "default/x", PDBs: []string{"default/one", "default/two"}}},
		},
		{
			name:  "do-not-disrupt node and pod",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", dnd(bound("x", "1")))
				n.Node.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
				return n
			}(),
			want: []Blocker{{Code: BlockDoNotDisruptNode, Object: "a"}, {Code: BlockDoNotDisruptPod, Object: "default/x", Pod: "default/x", Annotation: "true"}},
		},
		{
			name:  "consolidateAfter Never and WhenEmpty, empty budget",
			pools: []*v1.NodePool{pool("p", consolidateAfter("Never"), whenEmpty, budget("0"))},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			want: []Blocker{{Code: BlockConsolidateNever, Object: "p"}, {Code: BlockWhenEmpty, Object: "p"},
				{Code: BlockBudget, Object: "p", Budget: underutilized, Nodes: 1}},
		},
		{
			name:  "not initialized and a do-not-disrupt pod",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", dnd(bound("x", "1")))
				n.Node.Labels[v1.NodeInitializedLabelKey] = "false"
				return n
			}(),
			want: []Blocker{{Code: BlockUninitialized}, {Code: BlockDoNotDisruptPod, Object: "default/x", Pod: "default/x", Annotation: "true"}},
		},
		{
			name:     "deleting",
			pools:    []*v1.NodePool{pool("p")},
			node:     testNode("a", "p", "large", "", bound("x", "1")),
			deleting: true,
			want:     []Blocker{{Code: BlockDeleting}},
		},
		{
			name:  "unknown NodePool",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "gone", "large", "", bound("x", "1")),
			want:  []Blocker{{Code: BlockNodePoolNotFound, Object: "gone"}},
		},
		{
			name:    "NodePool without instance types",
			pools:   []*v1.NodePool{pool("p")},
			node:    testNode("a", "p", "large", "", bound("x", "1")),
			noTypes: true,
			want:    []Blocker{{Code: BlockNoInstanceTypes, Object: "p"}, {Code: BlockNotConsolidatable, Object: "large", NodePool: "p"}},
		},
		{
			name:  "static NodePool",
			pools: []*v1.NodePool{pool("p", func(np *v1.NodePool) { np.Spec.Replicas = ptr(int64(1)) })},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			want:  []Blocker{{Code: BlockStatic, Object: "p"}},
		},
		{
			name:    "nominated for a pending pod",
			pools:   []*v1.NodePool{pool("p")},
			node:    testNode("a", "p", "large", ""),
			pending: []*corev1.Pod{fake.Pod("new").Requests("1", "100Mi").Obj()},
			want:    []Blocker{{Code: BlockNominated}},
		},
		{
			name:  "budget found exhausted by single-node consolidation",
			pools: []*v1.NodePool{pool("p", budget("0"))},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			want:  []Blocker{{Code: BlockBudget, Object: "p", Budget: underutilized, Nodes: 1}},
		},
		{
			name:  "no cheaper replacement: the candidate's price and the cheapest fit",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "small", "", bound("x", "1500m")),
			want: []Blocker{{Code: BlockNoCheaperReplacement, Replacement: ReplacementNotCheaper, Price: 0.1,
				CheapestType: "small", CheapestPrice: 0.1}},
		},
		{
			name:  "spot-to-spot consolidation disabled",
			pools: []*v1.NodePool{pool("p", spot)},
			node:  testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "1")),
			want:  []Blocker{{Code: BlockNoCheaperReplacement, Replacement: ReplacementSpotToSpotDisabled}},
		},
		{
			name:  "spot-to-spot consolidation with too few cheaper spot types",
			pools: []*v1.NodePool{pool("p", spot)},
			node:  testNode("a", "p", "large", v1.CapacityTypeSpot, bound("x", "1")),
			opts:  Options{SpotToSpotConsolidation: true},
			want:  []Blocker{{Code: BlockNoCheaperReplacement, Replacement: ReplacementTooFewSpotTypes, InstanceTypes: 2}},
		},
		{
			name:  "consolidation would need two new nodes",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "large", "", apart("x1"), apart("x2")),
			want:  []Blocker{{Code: BlockTooManyReplacements, NewNodes: 2}},
		},
		{
			name:  "instance type the NodePool does not offer",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", bound("x", "1"))
				n.Node.Labels[v1.LabelInstanceType] = "retired"
				n.Node.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute)) // not drifted yet
				return n
			}(),
			want: []Blocker{{Code: BlockNotConsolidatable, Object: "retired", NodePool: "p"}},
		},
		{
			name:  "node without zone label",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", bound("x", "1"))
				delete(n.Node.Labels, v1.LabelTopologyZone)
				return n
			}(),
			want: []Blocker{{Code: BlockNotConsolidatable, Object: v1.LabelTopologyZone, Label: v1.LabelTopologyZone}},
		},
		{
			name:  "pod that fits nowhere: the simulation's pod error",
			pools: []*v1.NodePool{pool("p")},
			node: testNode("a", "p", "large", "", func() *corev1.Pod {
				p := bound("x", "1")
				p.Spec.NodeSelector = map[string]string{"team": "gone"}
				return p
			}()),
			want: []Blocker{{Code: BlockPodUnschedulable, Object: "default/x", Pod: "default/x", PodError: &scheduling.PodError{
				Code: scheduling.ReasonRequirementsUnsatisfiable, Causes: []scheduling.Cause{{Code: scheduling.ReasonRequirementsUnsatisfiable,
					NodePool: "p", Key: "team", Requirement: "team In [gone]"}}}}},
		},
		{
			name:  "pod that would only go to an uninitialized node",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			others: []*cluster.Node{func() *cluster.Node {
				n := testNode("u", "p", "small", "")
				delete(n.Node.Labels, v1.NodeInitializedLabelKey)
				return n
			}()},
			want: []Blocker{{Code: BlockPodUnschedulable, Object: "default/x", Pod: "default/x", Node: "u"}},
		},
		{
			name:  "drifted, but a do-not-disrupt pod without terminationGracePeriod",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := claimed(testNode("a", "p", "large", "", dnd(bound("x", "1"))), 0)
				n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "AMIDrift"}}
				return n
			}(),
			want: []Blocker{{Code: BlockDoNotDisruptPod, Object: "default/x", Pod: "default/x", Annotation: "true", Drift: Drift{Reason: "AMIDrift"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(tt.pools, append([]*cluster.Node{tt.node}, tt.others...)...)
			in.PodDisruptionBudgets = tt.pdbs
			in.Pods = tt.pending
			in.Options = tt.opts
			if tt.noTypes {
				in.InstanceTypes = nil
			}
			if tt.deleting {
				in.Deleting = []string{"a"}
			}
			res, err := plan(t, in)
			if err != nil {
				t.Fatal(err)
			}
			checkNothingLost(t, in, res)
			var got *Blocked
			for i := range res.Blocked {
				if res.Blocked[i].Node == "a" {
					got = &res.Blocked[i]
				}
			}
			if got == nil {
				t.Fatalf("node a is not kept: commands %v", cmdSummary(res))
			}
			if bs := blockerData(got.Blockers); !reflect.DeepEqual(bs, tt.want) {
				t.Errorf("blockers:\n got %s\nwant %s\n(reason %q)", dump(bs), dump(tt.want), got.Message())
			}
		})
	}
}

// blockerData is bs with each PodError cut to its code and causes (the data a test names).
func blockerData(bs []Blocker) []Blocker {
	out := make([]Blocker, len(bs))
	for i, b := range bs {
		if b.PodError != nil {
			b.PodError = &scheduling.PodError{Code: b.PodError.Code, Causes: b.PodError.Causes}
		}
		out[i] = b
	}
	return out
}

// dump shows blockers' fields (%+v would call String).
func dump(bs []Blocker) string {
	type plain Blocker
	var out []string
	for _, b := range bs {
		s := fmt.Sprintf("%+v", plain(b))
		if b.At != nil {
			s += " At=" + b.At.String()
		}
		if b.PodError != nil {
			s += fmt.Sprintf(" PodError=%+v", *b.PodError)
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n     ")
}
