package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestLimitsAcrossCommands: Karpenter's simulation counts against a NodePool's limits only
// the nodes not marked for deletion and not candidates (the in-flight replacements do count),
// and its controller simulates every candidate again at every pass. So a drifted node whose
// replacement the limit refused while another node still counted is replaced once an
// earlier command took that node (seed disrupt:982041), and stays when even then the limit
// leaves too little. Each case was checked against karpenter-disrupt (Karpenter 2266468,
// the NodeClaims hash-drifted).
//
// In released, a (large, 8 cpu) drifted first: its 7-cpu pod needs a large replacement. b
// (medium) drifted later: its 1.5-cpu pod fits on c (medium), not on a. With b and c counted
// the limit leaves limit-8, too little for a large; once b's command takes b, limit-4.
func TestLimitsAcrossCommands(t *testing.T) {
	drifted := func(n *cluster.Node, at time.Duration) *cluster.Node {
		n = claimed(n, 0)
		n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue,
			Reason: "AMIDrift", LastTransitionTime: metav1.NewTime(t0.Add(at))}}
		return n
	}
	limitRefused := Blocker{Code: BlockPodUnschedulable, Pod: "default/a1", PodError: &scheduling.PodError{Code: scheduling.ReasonNodePoolLimit}}
	// released: a (large) drifted first, b (medium) later; b's pod fits on c.
	released := func() []*cluster.Node {
		return []*cluster.Node{
			drifted(testNode("a", "p", "large", "", bound("a1", "7")), time.Minute),
			drifted(testNode("b", "p", "medium", "", bound("b1", "1500m")), 2*time.Minute),
			testNode("c", "p", "medium", "", bound("c1", "1"))}
	}
	// inflight: b (large) drifted first, replaced by a large; a, a medium whose Node reports 3
	// cpu, drifted later: its 2.5-cpu pod needs a medium (4), which b's replacement in flight
	// leaves room for only under a limit of 12.
	inflight := func() []*cluster.Node {
		a := testNode("a", "p", "medium", "", bound("a1", "2500m"))
		for _, l := range []corev1.ResourceList{a.Node.Status.Capacity, a.Node.Status.Allocatable} {
			l[corev1.ResourceCPU] = resource.MustParse("3")
		}
		return []*cluster.Node{
			drifted(testNode("b", "p", "large", "", bound("b1", "7")), time.Minute),
			drifted(a, 2*time.Minute)}
	}
	tests := []struct {
		name     string
		nodes    func() []*cluster.Node
		cpu      string
		commands []string
		blocked  map[string]Blocker
	}{
		{
			name:     "room given back by an earlier command lets the replacement launch",
			nodes:    released,
			cpu:      "12",
			commands: []string{"drift Drifted [b] []", "drift Drifted [a] [large/on-demand]"},
		},
		{
			name:     "the limit still refuses when the room given back is too little",
			nodes:    released,
			cpu:      "11",
			commands: []string{"drift Drifted [b] []"},
			blocked:  map[string]Blocker{"a": limitRefused},
		},
		{
			name:     "room enough from the start: a first",
			nodes:    released,
			cpu:      "16",
			commands: []string{"drift Drifted [a] [large/on-demand]", "drift Drifted [b] []"},
		},
		{
			name:     "an earlier command's replacement in flight counts against the limit",
			nodes:    inflight,
			cpu:      "11",
			commands: []string{"drift Drifted [b] [large/on-demand]"},
			blocked:  map[string]Blocker{"a": limitRefused},
		},
		{
			name:     "room for both replacements",
			nodes:    inflight,
			cpu:      "12",
			commands: []string{"drift Drifted [b] [large/on-demand]", "drift Drifted [a] [medium/on-demand]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := pool("p")
			np.Spec.Limits = v1.Limits{corev1.ResourceCPU: resource.MustParse(tt.cpu)}
			in := input([]*v1.NodePool{np}, tt.nodes()...)
			res := planWithCommands(t, in, tt.commands)
			checkFirstBlockers(t, res, tt.blocked)
		})
	}
}
