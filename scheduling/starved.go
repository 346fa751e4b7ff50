package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// The default's queue is first-fit decreasing: a pod placed early can take what a later
// one needed most — the room of the only node it fits (difftest plan:830060), a NodePool
// limit, or every domain of a required anti-affinity between two sets of pods, of which
// only one can run (plan:830028: three large pods on new NodeClaims keep out four small
// ones that fit an existing node). When a plan leaves valid pods out, the default packing
// solves once more with those pods at the head of the queue and keeps that plan when it
// leaves out fewer pods of the highest priority where the two differ (byPriority): a pod is
// never left out for more pods of a lower priority, and a plan placing as many keeps the
// first (Karpenter's order). A plan that places every pod (the benchmarks', most
// clusters') costs nothing more, nor do disruption's simulations (SkipRepack).

// starved are the valid pods the Solve left out (nil: none).
func starved(pods []*podData, errs map[*podData]podFailure) map[*corev1.Pod]bool {
	var out map[*corev1.Pod]bool
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.invalid == nil {
			if out == nil {
				out = map[*corev1.Pod]bool{}
			}
			out[p.pod] = true
		}
	}
	return out
}
