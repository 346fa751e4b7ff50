package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// reschedulablePods are the pods of Deleting nodes that must find a new home (a pod with
// karpenter.sh/do-not-disrupt, or one whose eviction PodDisruptionBudgets forbid, keeps its
// node's deletion waiting instead). Solve has no clock, so only do-not-disrupt=true counts
// here (a duration is judged by disruption.Plan, which knows the time).
func (s *solver) reschedulablePods() []*corev1.Pod {
	var out []*corev1.Pod
	pdbs := s.snap.PDBLimits()
	for i, f := range s.recs {
		if !s.isDeleting(i) {
			continue
		}
		for _, p := range f.reschedulable {
			if !pdbs.Blocks(p) {
				out = append(out, p)
			}
		}
	}
	return out
}
