package disruption

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// TestBlockersListEveryReason: a kept node lists every blocker with its object, the one its
// Reason explains first.
func TestBlockersListEveryReason(t *testing.T) {
	noDisruptions := func(sel string) *policyv1.PodDisruptionBudget {
		zero := intstr.FromInt32(0)
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb-" + sel, Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": sel}}}}
	}
	dnd := func(p *corev1.Pod) *corev1.Pod {
		p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		return p
	}
	consolidateAfter := func(d string) func(*v1.NodePool) {
		return func(np *v1.NodePool) { np.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration(d) }
	}
	whenEmpty := func(np *v1.NodePool) { np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty }
	tests := []struct {
		name  string
		pools []*v1.NodePool
		node  *cluster.Node
		// deleting marks node a for deletion
		deleting bool
		pdbs     []*policyv1.PodDisruptionBudget
		want     []Blocker
	}{
		{
			name:  "PDB, consolidateAfter and budget at once",
			pools: []*v1.NodePool{pool("p", consolidateAfter("2h"), budget("0"))},
			node:  testNode("a", "p", "large", "", bound("web", "1")),
			pdbs:  []*policyv1.PodDisruptionBudget{noDisruptions("web")},
			want: []Blocker{{Code: BlockPDB, Object: "default/pdb-web"}, {Code: BlockConsolidateAfter, Object: "p"},
				{Code: BlockBudget, Object: "p", Budget: string(v1.DisruptionReasonUnderutilized)}},
		},
		{
			name:  "every pod blocker, one PDB listed once, do-not-disrupt before PDB",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "large", "", bound("web-1", "1"), dnd(bound("db", "1")), bound("web-2", "1")),
			pdbs:  []*policyv1.PodDisruptionBudget{noDisruptions("web-1"), noDisruptions("db")},
			want: []Blocker{{Code: BlockPDB, Object: "default/pdb-web-1"}, {Code: BlockDoNotDisruptPod, Object: "default/db"},
				{Code: BlockPDB, Object: "default/pdb-db"}},
		},
		{
			name:  "do-not-disrupt node and pod",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", dnd(bound("x", "1")))
				n.Node.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
				return n
			}(),
			want: []Blocker{{Code: BlockDoNotDisruptNode, Object: "a"}, {Code: BlockDoNotDisruptPod, Object: "default/x"}},
		},
		{
			name:  "consolidateAfter Never and WhenEmpty, empty budget",
			pools: []*v1.NodePool{pool("p", consolidateAfter("Never"), whenEmpty, budget("0"))},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			want: []Blocker{{Code: BlockConsolidateNever, Object: "p"}, {Code: BlockWhenEmpty, Object: "p"},
				{Code: BlockBudget, Object: "p", Budget: string(v1.DisruptionReasonUnderutilized)}},
		},
		{
			name:  "not initialized and a do-not-disrupt pod",
			pools: []*v1.NodePool{pool("p")},
			node: func() *cluster.Node {
				n := testNode("a", "p", "large", "", dnd(bound("x", "1")))
				n.Node.Labels[v1.NodeInitializedLabelKey] = "false"
				return n
			}(),
			want: []Blocker{{Code: BlockUninitialized}, {Code: BlockDoNotDisruptPod, Object: "default/x"}},
		},
		{
			name:     "deleting",
			pools:    []*v1.NodePool{pool("p")},
			node:     testNode("a", "p", "large", "", bound("x", "1")),
			deleting: true,
			want:     []Blocker{{Code: BlockDeleting}},
		},
		{
			name:  "budget found exhausted by single-node consolidation",
			pools: []*v1.NodePool{pool("p", budget("0"))},
			node:  testNode("a", "p", "large", "", bound("x", "1")),
			want:  []Blocker{{Code: BlockBudget, Object: "p", Budget: string(v1.DisruptionReasonUnderutilized)}},
		},
		{
			name:  "no cheaper replacement",
			pools: []*v1.NodePool{pool("p")},
			node:  testNode("a", "p", "small", "", bound("x", "1500m")),
			want:  []Blocker{{Code: BlockNoCheaperReplacement}},
		},
		{
			name:  "pod that fits nowhere",
			pools: []*v1.NodePool{pool("p")},
			node: testNode("a", "p", "large", "", func() *corev1.Pod {
				p := bound("x", "1")
				p.Spec.NodeSelector = map[string]string{"team": "gone"}
				return p
			}()),
			want: []Blocker{{Code: BlockPodUnschedulable, Object: "default/x"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(tt.pools, tt.node)
			in.PodDisruptionBudgets = tt.pdbs
			if tt.deleting {
				in.Deleting = []string{"a"}
			}
			res, err := plan(t, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Blocked) != 1 {
				t.Fatalf("blocked = %+v, commands %v; want node a kept", res.Blocked, cmdSummary(res))
			}
			checkNothingLost(t, in, res)
			if got := res.Blocked[0].Blockers; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("blockers:\n got %+v\nwant %+v\n(reason %q)", got, tt.want, res.Blocked[0].Reason)
			}
		})
	}
}
