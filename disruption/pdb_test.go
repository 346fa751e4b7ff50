package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPDBOneReading: one reading of PodDisruptionBudgets (issue #6) with Karpenter's two
// questions: a PDB that allows no disruption now blocks a node's disruption, but the
// scheduler keeps a pod of a node marked for deletion in place only when its PDB forbids every
// eviction (held: maxUnavailable 0, minAvailable 100%), as Karpenter's
// CurrentlyReschedulablePods; a pending replica counts as expected but not healthy (issue #9).
func TestPDBOneReading(t *testing.T) {
	minAvail := func(v intstr.IntOrString) policyv1.PodDisruptionBudgetSpec {
		return policyv1.PodDisruptionBudgetSpec{MinAvailable: &v}
	}
	maxUnavail := func(v intstr.IntOrString) policyv1.PodDisruptionBudgetSpec {
		return policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &v}
	}
	tests := []struct {
		name    string
		spec    policyv1.PodDisruptionBudgetSpec
		status  *policyv1.PodDisruptionBudgetStatus
		pending int // pending replicas of the app
		blocked bool
		held    bool // the PDB forbids every eviction, whatever the pods
	}{
		{name: "minAvailable 1, no status, one healthy pod", spec: minAvail(intstr.FromInt32(1)), blocked: true},
		{name: "minAvailable 0, no status", spec: minAvail(intstr.FromInt32(0))},
		{name: "minAvailable 100%", spec: minAvail(intstr.FromString("100%")), blocked: true, held: true},
		{name: "maxUnavailable 1, no status", spec: maxUnavail(intstr.FromInt32(1))},
		{name: "maxUnavailable 0", spec: maxUnavail(intstr.FromInt32(0)), blocked: true, held: true},
		{name: "maxUnavailable 0%", spec: maxUnavail(intstr.FromString("0%")), blocked: true, held: true},
		{name: "maxUnavailable 1 with a pending replica", spec: maxUnavail(intstr.FromInt32(1)), pending: 1, blocked: true},
		{name: "maxUnavailable 2 with a pending replica", spec: maxUnavail(intstr.FromInt32(2)), pending: 1},
		{name: "minAvailable 0 with a pending replica", spec: minAvail(intstr.FromInt32(0)), pending: 1},
		{name: "maxUnavailable 50% with a pending replica", spec: maxUnavail(intstr.FromString("50%")), pending: 1, blocked: true},
		{name: "status says 0 allowed", spec: maxUnavail(intstr.FromInt32(1)),
			status: &policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, ExpectedPods: 1, CurrentHealthy: 1, DisruptionsAllowed: 0}, blocked: true},
		{name: "status says 1 allowed (wins over the spec)", spec: minAvail(intstr.FromInt32(1)),
			status: &policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, ExpectedPods: 2, CurrentHealthy: 2, DisruptionsAllowed: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"}, Spec: tc.spec}
			b.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
			if tc.status != nil {
				b.Status = *tc.status
			}
			var pending []*corev1.Pod
			for i := 0; i < tc.pending; i++ {
				pending = append(pending, fake.Pod("pending-"+string(rune('a'+i))).Requests("100", "100Mi").Label("app", "x").Obj())
			}

			// disruption: is the node a candidate?
			in := input([]*v1.NodePool{pool("p")}, testNode("a", "p", "large", "", bound("x", "1")), testNode("b", "p", "large", ""))
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{b}
			in.Pods = pending
			res, err := plan(t, in)
			if err != nil {
				t.Fatal(err)
			}
			why := blockedReason(res, "a")
			if got := hasBlockerOf(res, "a", Blocker{Code: BlockPDB, Object: "default/pdb"}); got != tc.blocked {
				t.Fatalf("disruption: PDB blocks node a = %v, want %v (%q; %v)", got, tc.blocked, why, cmdSummary(res))
			}

			// scheduling: is the pod of a node marked for deletion planned again?
			sin := input(in.NodePools, testNode("a", "p", "large", "", bound("x", "1")), testNode("b", "p", "large", ""))
			sin.PodDisruptionBudgets, sin.Pods, sin.Deleting = in.PodDisruptionBudgets, pending, []string{"a"}
			snap, err := sin.snapshot()
			if err != nil {
				t.Fatal(err)
			}
			sres := solveVerified(t, snap, scheduling.Options{})
			if replanned := placed(sres, "x"); replanned == tc.held {
				t.Fatalf("scheduling: pod x planned again = %v, want %v (held = %v)", replanned, !tc.held, tc.held)
			}
		})
	}
}

// placed reports whether Solve's result mentions the pod (placed or with an error).
func placed(r *scheduling.Result, name string) bool {
	for _, b := range r.Bindings {
		if b.Pod.Name == name {
			return true
		}
	}
	for _, c := range r.NewNodeClaims {
		for _, p := range c.Pods {
			if p.Name == name {
				return true
			}
		}
	}
	for _, e := range r.PodErrors {
		if e.Pod.Name == name {
			return true
		}
	}
	return false
}
