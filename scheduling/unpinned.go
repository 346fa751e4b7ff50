package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// A zone anti-affinity keeps a NodeClaim away from the domains that pending pods it repels
// are pinned to (topology_antiaffinity.go), so that they find their domain free. When such
// a pod is not placed after all (pod affinity it cannot meet, room, limits), the domain was
// kept free for nothing and the NodeClaims went to dearer ones (difftest plan:640088: nine
// pods on on-demand nodes in zone b at $0.31/h, kept out of zone a's spot at $0.12/h for
// pods that never schedule). The default packing then solves again with those pods holding
// no domain, and keeps the better plan (better).

// unplacedPinned are the pods that held a domain against a zone anti-affinity and were not
// placed (nil: none).
func unplacedPinned(pods []*podData, errs map[*podData]podFailure) map[*corev1.Pod]bool {
	var out map[*corev1.Pod]bool
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.pinCounted {
			if out == nil {
				out = map[*corev1.Pod]bool{}
			}
			out[p.pod] = true
		}
	}
	return out
}

// better reports whether a places more pods than b, or as many at a lower price.
func better(a, b *Result) bool {
	if len(a.PodErrors) != len(b.PodErrors) {
		return len(a.PodErrors) < len(b.PodErrors)
	}
	return a.Price() < b.Price()
}
