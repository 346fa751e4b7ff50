package cluster

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Selecting are the PodDisruptionBudgets whose selector matches p (its namespace), in input
// order: what names a pod that several PDBs select (Blocks: its eviction is refused).
func (l *PDBLimits) Selecting(p *corev1.Pod) []*policyv1.PodDisruptionBudget {
	if l == nil {
		return nil
	}
	var out []*policyv1.PodDisruptionBudget
	for i := range l.items {
		it := &l.items[i]
		if it.pdb.Namespace == p.Namespace && it.sel.Matches(labels.Set(p.Labels)) {
			out = append(out, it.pdb)
		}
	}
	return out
}
