package cluster_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/fake"
)

// TestDeletingIsOneReading: whichever way node "a" is going away (the Deleting fork, its
// Node's or its NodeClaim's deletionTimestamp, a deleting Node without a NodeClaim, its
// NodeClaim's InstanceTerminating=True condition), Solve puts no pod on it and plans its
// bound pod again, and Plan makes it no candidate and drains it. Karpenter's
// StateNode.MarkedForDeletion (statenode.go, Deleted) reads a NodeClaim's deletionTimestamp
// and InstanceTerminating the same way for both engines; nodeplan's Solve used to ignore
// them (the pending pod joined "a" and "web" was not planned again; karpenter-plan places
// both on a new claim, own scenario plan-nodeclaim-instance-terminating).
func TestDeletingIsOneReading(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Hour))
	for _, c := range []struct {
		name     string
		alter    func(*corev1.Node, *v1.NodeClaim) bool
		fork     bool
		deleting bool
	}{
		{name: "not deleting"},
		{name: "marked by the Deleting fork", fork: true, deleting: true},
		{name: "NodeClaim deletionTimestamp", alter: func(_ *corev1.Node, nc *v1.NodeClaim) bool { nc.DeletionTimestamp = &now; return true }, deleting: true},
		{name: "Node deletionTimestamp", alter: func(n *corev1.Node, _ *v1.NodeClaim) bool { n.DeletionTimestamp = &now; return true }, deleting: true},
		{name: "unmanaged Node deletionTimestamp", alter: func(n *corev1.Node, _ *v1.NodeClaim) bool { n.DeletionTimestamp = &now; return false }, deleting: true},
		{name: "NodeClaim InstanceTerminating", alter: func(_ *corev1.Node, nc *v1.NodeClaim) bool {
			nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: v1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue, LastTransitionTime: now})
			return true
		}, deleting: true},
		{name: "NodeClaim InstanceTerminating=False", alter: func(_ *corev1.Node, nc *v1.NodeClaim) bool {
			nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: v1.ConditionTypeInstanceTerminating, Status: metav1.ConditionFalse, LastTransitionTime: now})
			return true
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := twoNodesAltered(t, c.alter, fake.Pod("web").Requests("1", "1Gi").NodeName("a").Obj(), fake.Pod("new").Requests("1", "1Gi").Obj())
			if c.fork {
				s = s.Deleting("a")
			}
			assert.Equal(t, c.deleting, s.Node("a").Deleting())
			assert.Equal(t, c.fork, s.Node("a").MarkedDeleting())

			want := map[string]string{"new": "a"}
			if c.deleting {
				want = map[string]string{"new": "b", "web": "b"}
			}
			assert.Equal(t, want, placedOn(solveVerified(t, s)))

			res := planVerified(t, s, t0.Add(2*time.Hour))
			for _, cmd := range res.Commands {
				for _, cand := range cmd.Candidates {
					assert.False(t, c.deleting && cand == "a", "a deleting node is no candidate")
				}
			}
			var drained []string
			for _, d := range res.Drains {
				if d.Command == 0 {
					drained = append(drained, d.Node)
				}
			}
			if c.deleting {
				require.Equal(t, []string{"a"}, drained, "Plan drains the node the input deletes")
				if !c.fork {
					assert.Equal(t, now.Time, res.Drains[0].Since, "the drain started at the deletion")
				}
			} else {
				assert.Empty(t, drained)
			}
		})
	}
}
