package disruption

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// simulation is a scheduling.Solve of the candidates' pods on the rest of the cluster.
type simulation struct {
	res  *scheduling.Result
	own  map[*corev1.Pod]bool // the candidates' pods (the others are pending pods)
	fail Blocker              // why the candidates' pods cannot all be rescheduled (code "" if they can)
}

// simulate reschedules podsOf(candidate) for every candidate, together with the pending
// pods and the pods of every deleting, expired or earlier-command node, against the bound
// pods of the other nodes and the NodeClaims in flight (Karpenter's SimulateScheduling).
func (s *state) simulate(cands []*node, podsOf func(*node) []*corev1.Pod) (*simulation, error) {
	return s.simulateFor(cands, podsOf, false)
}

// simulateFor forks the snapshot: leaving the candidates (their pods that do not move still
// count where they run, cluster.Snapshot.Leaving), the taken nodes marked deleting,
// (for consolidation, Karpenter's consolidateAfter rule for destinations) the nodes under
// consolidateAfter closed to moves, and the candidates' pods moving.
func (s *state) simulateFor(cands []*node, podsOf func(*node) []*corev1.Pod, consolidation bool) (*simulation, error) {
	return s.simulateIn(s.base, cands, podsOf, consolidation)
}

// simulateIn is simulateFor forking base, s.base or a variant of it (other instance types).
func (s *state) simulateIn(base *cluster.Snapshot, cands []*node, podsOf func(*node) []*corev1.Pod, consolidation bool) (*simulation, error) {
	gone := make([]string, 0, len(cands))
	for _, c := range cands {
		gone = append(gone, c.Name())
	}
	sim := &simulation{own: map[*corev1.Pod]bool{}}
	var moving []*corev1.Pod
	for _, c := range cands {
		for _, p := range podsOf(c) {
			if !sim.own[p] {
				sim.own[p] = true
				moving = append(moving, p)
			}
		}
	}
	fork := s.marked(base, consolidation).Leaving(gone...).WithMoving(moving...)
	res, err := s.cache.Solve(fork, s.simOptions())
	if err != nil {
		return nil, fmt.Errorf("disruption: simulating %s: %w", joinNames(cands), err)
	}
	sim.res = res
	if res.LimitsBound {
		for _, c := range cands {
			s.limitBound[c] = true
		}
	}
	for i := range res.PodErrors {
		// Every pod that is not merely pending must find a home: the candidates' pods, and
		// those of deleting nodes (Karpenter's AllNonPendingPodsScheduled).
		if e := &res.PodErrors[i]; sim.own[e.Pod] || e.Pod.Spec.NodeName != "" {
			pod := cluster.PodKey(e.Pod)
			sim.fail = Blocker{Code: BlockPodUnschedulable, Object: pod, Pod: pod, PodError: e}
			return sim, nil
		}
	}
	// A candidate's pod may not rely on a node that is not initialized yet; pods of deleting
	// nodes may (their replacements are coming up for them).
	for _, b := range res.Bindings {
		if s.uninit[b.To] && sim.own[b.Pod] {
			pod := cluster.PodKey(b.Pod)
			sim.fail = Blocker{Code: BlockPodUnschedulable, Object: pod, Pod: pod, Node: b.To}
			return sim, nil
		}
	}
	return sim, nil
}

// simOptions are the scheduling options of every simulation: one Karpenter Solve, whose
// NodeClaims are the first pass's (a repair may need more NodeClaims than one replacement).
func (s *state) simOptions() scheduling.Options {
	o := s.opts.Scheduling
	o.SingleRound, o.SkipRepack = true, true
	return o
}

// marks is the snapshot the simulations of one state fork (see marked), with what it was
// made from.
type marks struct {
	base  *cluster.Snapshot
	taken int // len(state.taken) then (taken nodes only ever join)
	snap  *cluster.Snapshot
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// marked is base with the taken nodes that are not marked deleting already marked Deleting
// and, for consolidation (Karpenter's consolidateAfter rule for destinations), the nodes
// under consolidateAfter ClosedToMoves: what every simulation then forks without its
// candidates. A candidate marked here is gone from the fork all the same (Without drops a
// node whatever its marks, and keeps every other node's place), so one marked snapshot
// serves every simulation until a command takes more nodes or base changes; its nodes keep
// their pointers from one simulation to the next, which the scheduling.Cache reads by.
func (s *state) marked(base *cluster.Snapshot, consolidation bool) *cluster.Snapshot {
	if m := s.marks[boolIndex(consolidation)]; m.base == base && m.taken == len(s.taken) && m.snap != nil {
		return m.snap
	}
	var taken, recent []string
	for _, n := range s.nodes {
		if s.taken[n] && !n.MarkedDeleting() {
			taken = append(taken, n.Name())
		}
		if consolidation && s.underConsolidateAfter(n) {
			recent = append(recent, n.Name())
		}
	}
	// Marks first: they keep every node's place, so they share the base's index of names.
	m := marks{base: base, taken: len(s.taken), snap: base.Deleting(taken...).ClosedToMoves(recent...)}
	s.marks[boolIndex(consolidation)] = m
	return m.snap
}

// underConsolidateAfter is Karpenter's IsUnderConsolidateAfter: an initialized node whose
// NodePool's non-zero consolidateAfter has not elapsed since its last pod event. A node that
// is not initialized yet is never under it.
func (s *state) underConsolidateAfter(n *node) bool {
	if n.pool == nil || !n.initialized {
		return false
	}
	ca := n.pool.Spec.Disruption.ConsolidateAfter.Duration
	return ca != nil && *ca > 0 && s.now.Before(n.consolidatableAt)
}

func reschedulable(n *node) []*corev1.Pod { return n.reschedulable }
func driftPods(n *node) []*corev1.Pod     { return n.driftPods }

func totalPrice(cands []*node) float64 {
	p := 0.0
	for _, c := range cands {
		p += c.price
	}
	return p
}

func claimsPrice(claims []*scheduling.NodeClaim) float64 {
	p := 0.0
	for _, c := range claims {
		if c != nil && c.Offering != nil && !math.IsNaN(c.Offering.Price) {
			p += c.Offering.Price
		}
	}
	return p
}
