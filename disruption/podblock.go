package disruption

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// doNotDisrupt is p's active karpenter.sh/do-not-disrupt annotation as data: its value and,
// for a duration, when it ends (nil for "true" or a pod without start time), as
// cluster.DoNotDisrupt reads it.
func doNotDisrupt(p *corev1.Pod, now time.Time) (value string, until *time.Time, ok bool) {
	active, until := cluster.DoNotDisrupt(p, now)
	if !active {
		return "", nil, false
	}
	return p.Annotations[v1.DoNotDisruptAnnotationKey], until, true
}

// pdbBlocking says which PodDisruptionBudgets forbid evicting p now: the one that allows no
// disruption (pdb), or, when several select p (the eviction API refuses that), all of them
// (pdbs); both empty when none forbids it.
func (s *state) pdbBlocking(p *corev1.Pod) (pdb string, pdbs []string) {
	if !s.pdbs.Blocks(p) {
		return "", nil
	}
	return s.pdbsBlocking(p)
}

// pdbsBlocking is pdbBlocking for a pod PodDisruptionBudgets forbid evicting now.
func (s *state) pdbsBlocking(p *corev1.Pod) (pdb string, pdbs []string) {
	if one, _ := s.pdbs.Allowance(p); one != nil {
		return pdbKey(one), nil
	}
	for _, x := range s.pdbs.Selecting(p) {
		pdbs = append(pdbs, pdbKey(x))
	}
	return "", pdbs
}

func pdbKey(pdb *policyv1.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }
