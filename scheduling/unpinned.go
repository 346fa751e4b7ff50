package scheduling

import (
	"cmp"

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

// better reports whether a (a plan of the same pods as b) leaves out less (leavesOutLess),
// else, leaving out as many of each priority, costs less.
func better(a, b *Result) bool {
	if d := leavesOutLess(a, b); d != 0 {
		return d > 0
	}
	return len(a.PodErrors) == len(b.PodErrors) && a.Price() < b.Price()
}

// leavesOutLess compares what two plans of the same pods leave out: > 0 when a is no worse
// than b both in pods left out and by priority (byPriority) and better in one, < 0 the other
// way round, 0 when they tie or each is better in one. A second try is kept only when it is
// better: it never places fewer pods than the first (Karpenter's order: difftest default
// plan:930013, whose second try placed six pods of priority 1000 where the first placed
// eight, seven of priority 0), nor leaves out a pod for more pods of a lower priority
// (kube-scheduler would preempt them for it).
func leavesOutLess(a, b *Result) int {
	byCount := cmp.Compare(len(b.PodErrors), len(a.PodErrors))
	byPrio := byPriority(a, b)
	switch {
	case byCount >= 0 && byPrio >= 0 && byCount+byPrio > 0:
		return 1
	case byCount <= 0 && byPrio <= 0 && byCount+byPrio < 0:
		return -1
	}
	return 0
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
