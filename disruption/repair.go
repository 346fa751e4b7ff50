package disruption

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// maxUnhealthyPercent is Karpenter's node repair cap: when more than this share (rounded up)
// of a NodePool's nodes (of the cluster's, for a NodeClaim without a NodePool) is unhealthy,
// none of them is repaired — the cause is likely not the nodes.
const maxUnhealthyPercent = 20

// unhealthy is the node condition a repair policy matches, with when it may be repaired.
type unhealthy struct {
	cond corev1.NodeCondition
	at   time.Time
	tol  time.Duration
}

// unhealthyCondition is, among the conditions of node that a policy matches (type and status),
// the one whose toleration ends first, as Karpenter's health controller picks it.
func (s *state) unhealthyCondition(n *corev1.Node) *unhealthy {
	var best *unhealthy
	for _, p := range s.snap.RepairPolicies() {
		for _, c := range n.Status.Conditions {
			if c.Type != p.ConditionType || c.Status != p.ConditionStatus {
				continue
			}
			tol := time.Duration(p.TolerationDuration) * time.Second
			at := c.LastTransitionTime.Add(tol)
			if best == nil || at.Before(best.at) {
				best = &unhealthy{cond: c, at: at, tol: tol}
			}
		}
	}
	return best
}

// repair replaces, forcefully, every node unhealthy past its policy's toleration (Karpenter's
// node health controller): its NodeClaim is deleted with its termination deadline set to now,
// so its pods are deleted without eviction, PodDisruptionBudgets and do-not-disrupt, and no
// budget limits it. A NodePool (or, for a NodeClaim without one, the cluster) with more than
// 20 % of its nodes unhealthy repairs none of them. The provisioner pass then plans the pods.
func (s *state) repair() {
	if len(s.snap.RepairPolicies()) == 0 {
		return
	}
	total, sick := map[string]int{}, map[string]int{}
	const cluster = "\x00cluster"
	for _, n := range s.nodes {
		if n.Node == nil {
			continue
		}
		bad := s.unhealthyCondition(n.Node) != nil
		total[cluster]++
		if bad {
			sick[cluster]++
		}
		if n.poolName != "" {
			total[n.poolName]++
			if bad {
				sick[n.poolName]++
			}
		}
	}
	for _, n := range s.nodes {
		if n.Node == nil || (n.poolName == "" && n.NodeClaim == nil) || s.taken[n] || n.Deleting() {
			continue
		}
		u := s.unhealthyCondition(n.Node)
		if u == nil {
			continue
		}
		scope := n.poolName
		if scope == "" {
			scope = cluster
		}
		cond := u.cond
		if s.now.Before(u.at) {
			at := u.at.UTC()
			s.mech.repair[n] = Blocker{Code: BlockRepairPending, Condition: &cond, At: &at, Duration: u.tol}
			continue
		}
		if limit := ceilPercent(maxUnhealthyPercent, total[scope]); sick[scope] > limit {
			s.mech.repair[n] = Blocker{Code: BlockRepairLimited, Condition: &cond, NodePool: n.poolName,
				Unhealthy: sick[scope], Nodes: total[scope], Allowed: limit}
			continue
		}
		s.mech.forceful[n] = true
		s.commit(Command{Method: MethodRepair, Reason: ReasonUnhealthy, Unhealthy: &cond, Toleration: u.tol}, []*node{n}, nil)
	}
}

// ceilPercent is pct % of n, rounded up (as intstr scales a percentage with roundUp).
func ceilPercent(pct, n int) int { return (pct*n + 99) / 100 }

// conditionText is a node condition as the reasons show it: Type=Status since when.
func conditionText(c corev1.NodeCondition) string {
	return fmt.Sprintf("%s=%s since %s", c.Type, c.Status, timeText(&c.LastTransitionTime.Time))
}
