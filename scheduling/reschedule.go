package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// reschedulablePods are the pods of nodes marked for deletion that must find a new home (a
// pod with karpenter.sh/do-not-disrupt keeps its node's deletion waiting instead).
func reschedulablePods(nodes []*Node, pdbs []*policyv1.PodDisruptionBudget) []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range nodes {
		if !(n.MarkedForDeletion || (n.Node != nil && n.Node.DeletionTimestamp != nil)) {
			continue
		}
		for _, p := range n.Pods {
			if p != nil && isReschedulable(p) && p.Annotations[v1.DoNotDisruptAnnotationKey] != "true" && !fullyBlocked(p, pdbs) {
				out = append(out, p)
			}
		}
	}
	return out
}

// isReschedulable: not a DaemonSet or static pod, not finished, and not already terminating
// (except StatefulSet pods, whose replacement needs the same identity elsewhere).
func isReschedulable(p *corev1.Pod) bool {
	if isTerminal(p) {
		return false
	}
	owner := controllerKind(p)
	if owner == "DaemonSet" || owner == "Node" {
		return false
	}
	return p.DeletionTimestamp == nil || owner == "StatefulSet"
}

// fullyBlocked reports whether PodDisruptionBudgets forbid evicting p at all: one that allows
// no disruption (its status says so, or without status maxUnavailable 0 or 0% or
// minAvailable 100%), or more than one selecting it.
func fullyBlocked(p *corev1.Pod, pdbs []*policyv1.PodDisruptionBudget) bool {
	matched := 0
	for _, pdb := range pdbs {
		if pdb == nil || pdb.Namespace != p.Namespace || pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		matched++
		// A PDB whose status the snapshot carries says itself whether it allows a disruption.
		if st := pdb.Status; st.ObservedGeneration > 0 || st.ExpectedPods > 0 || st.CurrentHealthy > 0 {
			if st.DisruptionsAllowed <= 0 {
				return true
			}
			continue
		}
		if mu := pdb.Spec.MaxUnavailable; mu != nil && isZero(*mu) {
			return true
		}
		if ma := pdb.Spec.MinAvailable; ma != nil && ma.Type == intstr.String && ma.StrVal == "100%" {
			return true
		}
	}
	return matched > 1
}

func isZero(v intstr.IntOrString) bool {
	if v.Type == intstr.Int {
		return v.IntVal == 0
	}
	return v.StrVal == "0%" || v.StrVal == "0"
}

// controllerKind is the kind of the pod's controller (or of its first owner).
func controllerKind(p *corev1.Pod) string {
	owner := ""
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller || owner == "" {
			owner = o.Kind
		}
	}
	return owner
}
