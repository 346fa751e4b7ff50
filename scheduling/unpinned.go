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

// better reports whether a (a plan of the same pods as b) places more pods of the highest
// priority where the two differ, else (as many of each) at a lower price: a second try
// never leaves out a pod for more pods of a lower priority (kube-scheduler would preempt
// them for it).
func better(a, b *Result) bool {
	if d := byPriority(a, b); d != 0 {
		return d > 0
	}
	return a.Price() < b.Price()
}

// byPriority compares what a and b leave out, from the highest priority down: > 0 when a
// leaves out fewer pods of the first priority where they differ, < 0 when more, 0 when
// they leave out as many of every priority.
func byPriority(a, b *Result) int {
	left := map[int32]int{} // a's pods left out minus b's, per priority
	for _, e := range a.PodErrors {
		left[priorityOf(e.Pod)]++
	}
	for _, e := range b.PodErrors {
		left[priorityOf(e.Pod)]--
	}
	var top int32
	found := false
	for prio, d := range left {
		if d != 0 && (!found || prio > top) {
			top, found = prio, true
		}
	}
	switch {
	case !found:
		return 0
	case left[top] < 0:
		return 1
	}
	return -1
}

// priorityOf is the pod's resolved priority (0 without one).
func priorityOf(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}
