package verify

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
)

// consolidateAfter: an emptiness or consolidation command (reason Empty or Underutilized)
// disrupts only nodes whose NodePool's consolidateAfter is not Never and has elapsed since
// the node's last pod event (see lastPodEvent).
func (p *planWorld) consolidateAfter(ci int, cmd disruption.Command) []Violation {
	if cmd.Reason != disruption.ReasonEmpty && cmd.Reason != disruption.ReasonUnderutilized {
		return nil
	}
	var out []Violation
	for _, name := range cmd.Candidates {
		n := p.nodes[name]
		if n == nil {
			continue
		}
		pool := p.pools[poolOf(n)]
		if pool == nil {
			continue
		}
		after := pool.Spec.Disruption.ConsolidateAfter
		v := planViolation(PlanConsolidateAfter, ci, name)
		v.NodePool = pool.Name
		switch {
		case after.Duration == nil:
			v.Key = "Never"
			out = append(out, v)
		case p.now.Before(lastPodEvent(n).Add(*after.Duration)):
			v.Key = after.Duration.String()
			v.Got, v.Limit = int64(p.now.Sub(lastPodEvent(n))/time.Second), int64(*after.Duration/time.Second)
			out = append(out, v)
		}
	}
	return out
}

// lastPodEvent is when consolidateAfter starts counting for a node: its NodeClaim's
// status.lastPodEventTime, else the transition of its Initialized=True condition, else the
// Node's creation, else the NodeClaim's.
func lastPodEvent(n *cluster.Node) time.Time {
	if nc := n.NodeClaim; nc != nil {
		if t := nc.Status.LastPodEventTime.Time; !t.IsZero() {
			return t
		}
		for _, c := range nc.Status.Conditions {
			if c.Type == v1.ConditionTypeInitialized && c.Status == metav1.ConditionTrue && !c.LastTransitionTime.IsZero() {
				return c.LastTransitionTime.Time
			}
		}
	}
	if n.Node != nil && !n.Node.CreationTimestamp.IsZero() {
		return n.Node.CreationTimestamp.Time
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.CreationTimestamp.Time
	}
	return time.Time{}
}
