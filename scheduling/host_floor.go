package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// A required hostname spread's minimum is zero while a NodeClaim may still open: a new node
// is an empty domain. Once the plan opens none, the minimum is the least count over the
// nodes the spread counts (existing nodes and the plan's NodeClaims), as kube-scheduler
// computes it over the nodes there are, and the pods left out may join nodes up to that
// minimum plus maxSkew. Karpenter can end so when a limit stops new nodes: difftest default
// plan:980130, a maxSkew-1 hostname spread of app-1 under NodePool limits, Karpenter placed
// two per node on three nodes (skew 0 as launched) where the default placed one per node.
// The default plans once more so when pods that carry a hostname spread are left out
// (solveBest), without the repair (which may open NodeClaims), and keeps the plan only if
// it places more and keeps every hostname spread as launched (carriersOverSkew).

// fillHostFloors places the valid pods errs holds on the existing nodes and NodeClaims only,
// each hostname spread's minimum raised to its least count over them, while that places
// pods; a pod still left out keeps its reason.
func (s *solver) fillHostFloors(pods []*podData, errs map[*podData]podFailure) {
	s.noNewClaims = true
	defer func() { s.noNewClaims = false }()
	for {
		var queue []*podData
		for _, p := range pods {
			if _, failed := errs[p]; failed && p.invalid == nil {
				queue = append(queue, p)
			}
		}
		if len(queue) == 0 || !s.raiseHostFloors() {
			return
		}
		trial := make(map[*podData]podFailure, len(queue))
		placed := s.runQueue(queue, trial)
		s.settleDeferred()
		if placed == 0 {
			return
		}
		for _, p := range queue {
			if _, failed := trial[p]; !failed {
				delete(errs, p)
			}
		}
	}
}

// raiseHostFloors sets each required hostname spread's floor to its least count over the
// nodes it counts, and reports whether some floor rose.
func (s *solver) raiseHostFloors() bool {
	rose := false
	for _, g := range s.topo.ordered {
		if !g.hostname || g.spread == nil {
			continue
		}
		low, _ := s.hostSpan(g)
		if low == 1<<30 || low <= g.hostFloor {
			continue
		}
		g.hostFloor, rose = low, true
	}
	return rose
}

// leftOutForMinValues reports whether res leaves out a pod a NodePool refused for minValues.
func leftOutForMinValues(res *Result) bool {
	for _, e := range res.PodErrors {
		for _, c := range e.Causes {
			if c.Code == ReasonMinValues {
				return true
			}
		}
	}
	return false
}

// leftOutCarryHostSpread reports whether res leaves out a pod that carries a required
// hostname spread.
func leftOutCarryHostSpread(res *Result) bool {
	for _, e := range res.PodErrors {
		for _, c := range e.Pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable == corev1.DoNotSchedule && v1.NormalizeLabelKey(c.TopologyKey) == v1.LabelHostname {
				return true
			}
		}
	}
	return false
}
