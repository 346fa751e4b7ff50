package cluster_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
)

// reschedulableCases are pods by name with whether IsReschedulable takes them, Karpenter's
// answer (pkg/utils/pod IsReschedulable) where nodeplan deliberately differs.
func reschedulableCases() []struct {
	pod       *corev1.Pod
	want      bool
	karpenter bool
} {
	yes := true
	gone := metav1.NewTime(t0)
	owned := func(name string, refs ...metav1.OwnerReference) *corev1.Pod {
		p := fake.Pod(name).Requests("1", "1Gi").Obj()
		p.OwnerReferences = refs
		return p
	}
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: &yes}
	terminating := func(p *corev1.Pod) *corev1.Pod { p.DeletionTimestamp = &gone; return p }
	failed := func(p *corev1.Pod) *corev1.Pod { p.Status.Phase = corev1.PodFailed; return p }
	mirror := fake.Pod("mirror-annotation").Requests("1", "1Gi").Annotation(corev1.MirrorPodAnnotationKey, "x").Obj()
	return []struct {
		pod       *corev1.Pod
		want      bool
		karpenter bool
	}{
		{owned("plain"), true, true},
		{owned("replicaset", rs), true, true},
		{owned("daemon", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", Controller: &yes}), false, false},
		{owned("daemon-not-controller", rs, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds"}), false, false},
		{owned("daemon-other-group", metav1.OwnerReference{APIVersion: "apps.kruise.io/v1alpha1", Kind: "DaemonSet", Name: "ds", Controller: &yes}), false, true},
		{owned("static", metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "a", Controller: &yes}), false, false},
		{owned("static-not-controller", rs, metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "a"}), false, false},
		{mirror, false, true},
		{failed(owned("finished")), false, false},
		{terminating(owned("terminating", rs)), false, false},
		{terminating(owned("sts-terminating", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: &yes})), true, true},
		{terminating(owned("sts-terminating-not-controller", rs, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"})), true, true},
		{failed(terminating(owned("sts-failed-terminating", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: &yes}))), true, true},
	}
}

// TestIsReschedulable: one rule for both engines, Karpenter's (any owner reference counts,
// controller or not; a terminating StatefulSet pod is planned again, finished or not), with
// the two deliberate differences README.md lists (kind without apiVersion, mirror annotation).
func TestIsReschedulable(t *testing.T) {
	for _, c := range reschedulableCases() {
		assert.Equal(t, c.want, cluster.IsReschedulable(c.pod), c.pod.Name)
	}
}

// TestEnginesReadOneReschedulableRule: Solve plans again exactly the IsReschedulable pods of a
// deleting node, and Plan moves exactly those of a candidate it deletes (a node holding only
// pods that need no new node is deleted as empty). Both used to differ for a DaemonSet or
// Node owner that is not the controller; Solve also for a pod with only the mirror annotation.
func TestEnginesReadOneReschedulableRule(t *testing.T) {
	for _, c := range reschedulableCases() {
		t.Run(c.pod.Name, func(t *testing.T) {
			pod := c.pod.DeepCopy()
			pod.Spec.NodeName = "a"
			s := twoNodes(t, pod).Deleting("a")
			placed := placedOn(solveVerified(t, s))
			_, planned := placed[pod.Name]
			assert.Equal(t, c.want, planned, "Solve plans the pod of a deleting node again")
			if planned {
				assert.Equal(t, "b", placed[pod.Name])
			}

			onDemand := func(n *corev1.Node, nc *v1.NodeClaim) bool {
				n.Labels[v1.CapacityTypeLabelKey] = v1.CapacityTypeOnDemand
				nc.Labels[v1.CapacityTypeLabelKey] = v1.CapacityTypeOnDemand
				return true
			}
			// Without b, whose emptiness would take the budget; on-demand, so that a cheaper
			// replacement is a consolidation.
			snap := twoNodesAltered(t, onDemand, pod).Without("b")
			res := planVerified(t, snap, t0.Add(2*time.Hour))
			deletesA := false
			for _, cmd := range res.Commands {
				if !slices.Contains(cmd.Candidates, "a") {
					continue
				}
				deletesA = true
				moved := slices.ContainsFunc(cmd.Moves, func(m disruption.PodMove) bool { return m.Pod == pod || m.Pod.Name == pod.Name })
				assert.Equal(t, c.want, moved, "Plan moves the pod off a deleted candidate: %s", cmd.Method)
			}
			assert.True(t, deletesA, "a is consolidated")
		})
	}
}
