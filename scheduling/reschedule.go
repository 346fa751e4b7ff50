package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// reschedulablePods are the pods of Deleting nodes that must find a new home (a pod with
// karpenter.sh/do-not-disrupt, or one whose eviction PodDisruptionBudgets forbid, keeps its
// node's deletion waiting instead). Solve has no clock, so only do-not-disrupt=true counts
// here (a duration is judged by disruption.Plan, which knows the time).
func reschedulablePods(nodes []*cluster.Node, pdbs *cluster.PDBLimits) []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range nodes {
		if !n.Deleting() {
			continue
		}
		for _, p := range n.Pods {
			if p != nil && cluster.IsReschedulable(p) && p.Annotations[v1.DoNotDisruptAnnotationKey] != "true" && !pdbs.Blocks(p) {
				out = append(out, p)
			}
		}
	}
	return out
}
