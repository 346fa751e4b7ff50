package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// reschedulablePods are the pods of Deleting nodes that must find a new home (a pod with
// karpenter.sh/do-not-disrupt, or one whose eviction PodDisruptionBudgets forbid for good,
// keeps its node's deletion waiting instead; one a PDB only holds back for now is planned, as
// Karpenter's CurrentlyReschedulablePods plans it). Solve has no clock: do-not-disrupt=true
// counts, and a duration only at the snapshot's DoNotDisruptAt time (disruption.Plan's now;
// difftest disrupt:1004925: a drifted node's pod with do-not-disrupt 30h was planned again in
// each later simulation, and the node it went to was nominated, where Karpenter leaves it).
func (s *solver) reschedulablePods() []*corev1.Pod {
	var out []*corev1.Pod
	pdbs := s.snap.PDBLimits()
	if b := s.base; b != nil {
		for _, i := range b.deleting {
			if !s.gone.has(i) {
				out = s.appendMoving(out, b.recs[i].movesUnder(pdbs))
			}
		}
		return out
	}
	for i, f := range s.recs {
		if !s.isDeleting(i) {
			continue
		}
		out = s.appendMoving(out, f.movesUnder(pdbs))
	}
	return out
}

// appendMoving appends to out the pods of moves whose do-not-disrupt duration, judged at the
// snapshot's DoNotDisruptAt time, is not active.
func (s *solver) appendMoving(out, moves []*corev1.Pod) []*corev1.Pod {
	at := s.snap.DoNotDisruptTime()
	if at.IsZero() {
		return append(out, moves...)
	}
	for _, p := range moves {
		if _, ok := p.Annotations[v1.DoNotDisruptAnnotationKey]; ok {
			if active, _ := cluster.DoNotDisrupt(p, at); active {
				continue
			}
		}
		out = append(out, p)
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
