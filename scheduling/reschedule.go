package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
)

// reschedulablePods are the pods of Deleting nodes that must find a new home (a pod with
// karpenter.sh/do-not-disrupt, or one whose eviction PodDisruptionBudgets forbid for good,
// keeps its node's deletion waiting instead; one a PDB only holds back for now is planned, as
// Karpenter's CurrentlyReschedulablePods plans it). Solve has no clock, so only
// do-not-disrupt=true counts here (a duration is judged by disruption.Plan, which knows the
// time).
func (s *solver) reschedulablePods() []*corev1.Pod {
	var out []*corev1.Pod
	pdbs := s.snap.PDBLimits()
	if b := s.base; b != nil {
		for _, i := range b.deleting {
			if !s.gone.has(i) {
				out = append(out, b.recs[i].movesUnder(pdbs)...)
			}
		}
		return out
	}
	for i, f := range s.recs {
		if !s.isDeleting(i) {
			continue
		}
		out = append(out, f.movesUnder(pdbs)...)
	}
	return out
}

// movesUnder are the node's reschedulable pods pdbs does not keep in place for good, remembered for
// the last pdbs asked (a PDBLimits never changes; the forks of a simulation share theirs).
func (f *nodeFacts) movesUnder(pdbs *cluster.PDBLimits) []*corev1.Pod {
	if f.movesPDBs == pdbs && pdbs != nil {
		return f.moves
	}
	var moves []*corev1.Pod
	for _, p := range f.reschedulable {
		if !pdbs.FullyBlocks(p) {
			moves = append(moves, p)
		}
	}
	f.moves, f.movesPDBs = moves, pdbs
	return moves
}
