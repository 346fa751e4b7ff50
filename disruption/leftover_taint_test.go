package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// A karpenter.sh/disrupted:NoSchedule taint that no command holds (a command that did not
// finish) keeps pods off its node for the provisioner and the disruption controller's first
// pass, and is gone from the pass after a command on; an unmanaged node keeps it. Each case
// was checked against karpenter-disrupt (Karpenter 2266468).
func TestLeftoverDisruptedTaint(t *testing.T) {
	tainted := func(n *cluster.Node) *cluster.Node {
		n.Node.Spec.Taints = append(n.Node.Spec.Taints, corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule})
		return n
	}
	unmanaged := func(n *cluster.Node) *cluster.Node {
		delete(n.Node.Labels, v1.NodePoolLabelKey)
		return n
	}
	tests := []struct {
		name        string
		in          func() *fixture
		commands    []string
		provisioned int
	}{
		{
			// The only pass sees b tainted: x has nowhere to go, and nothing follows.
			name: "the first pass still sees the taint",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")},
					testNode("a", "p", "small", "", bound("x", "1")),
					tainted(testNode("b", "p", "large", "", bound("y", "6"))))
			},
		},
		{
			name: "after a command the taint is gone and a's pod moves to b",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")},
					testNode("a", "p", "small", "", bound("x", "1")),
					tainted(testNode("b", "p", "large", "", bound("y", "6"))),
					testNode("e", "p", "large", ""))
			},
			commands: []string{"emptiness Empty [e] []", "single-node Underutilized [a] []"},
		},
		{
			name: "the provisioner launches for a pending pod the tainted node has room for",
			in: func() *fixture {
				in := input([]*v1.NodePool{pool("p")}, tainted(testNode("b", "p", "large", "", bound("y", "6"))))
				in.Pods = append(in.Pods, pending("w", "1"))
				return in
			},
			provisioned: 1,
		},
		{
			// The first pass gives a up (no cheaper node for its pod while t is tainted) before
			// b's command; the next pass sees t untainted and a's pod moves there, so a is
			// simulated again.
			name: "a candidate given up on in the first pass is tried again once the taint is gone",
			in: func() *fixture {
				t := tainted(testNode("t", "p", "large", "", bound("t1", "1")))
				t.Pods[0].Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
				return input([]*v1.NodePool{pool("p")},
					testNode("a", "p", "medium", "", bound("a1", "3")),
					testNode("b", "p", "medium", "", bound("b1", "1500m")), t)
			},
			commands: []string{"single-node Underutilized [b] [small/on-demand]", "single-node Underutilized [a] []"},
		},
		{
			name: "an unmanaged node keeps its taint",
			in: func() *fixture {
				return input([]*v1.NodePool{pool("p")},
					testNode("a", "p", "small", "", bound("x", "1")),
					unmanaged(tainted(testNode("c", "p", "large", "", bound("y", "6")))),
					testNode("e", "p", "small", ""))
			},
			commands: []string{"emptiness Empty [e] []"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := planWithCommands(t, tt.in(), tt.commands)
			if len(res.Provisioned) != tt.provisioned {
				t.Errorf("provisioned %d NodeClaims, want %d", len(res.Provisioned), tt.provisioned)
			}
		})
	}
}
