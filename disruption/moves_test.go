package disruption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/scheduling"
)

// move is a PodMove's destination in short: pod, from, node, replacement, provisioned, code.
type moveWant struct {
	pod, from, node          string
	replacement, provisioned int
	pending                  MoveCode
}

func movesWant(ms []PodMove) []moveWant {
	var out []moveWant
	for _, m := range ms {
		out = append(out, moveWant{m.Pod.Name, m.From, m.To, m.Claim, m.Provisioned, m.Pending})
	}
	return out
}

// TestCommandMoves: every pod a command displaces is listed once, with where the simulation
// behind the command put it, for each method.
func TestCommandMoves(t *testing.T) {
	dnd := func(p *corev1.Pod) *corev1.Pod {
		p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		return p
	}
	for _, tc := range []struct {
		name   string
		in     func() *fixture
		method Method
		want   []moveWant
	}{
		{"consolidation onto an existing node", func() *fixture {
			return input([]*v1.NodePool{pool("p")},
				testNode("node-a", "p", "large", "", bound("a1", "1")),
				testNode("node-b", "p", "large", "", bound("b1", "3"), bound("b2", "2")))
		}, MethodSingleNode, []moveWant{{"a1", "node-a", "node-b", -1, -1, ""}}},
		{"consolidation onto its replacement", func() *fixture {
			return input([]*v1.NodePool{pool("p")}, testNode("node-a", "p", "large", "", bound("a1", "1")))
		}, MethodSingleNode, []moveWant{{"a1", "node-a", "", 0, -1, ""}}},
		{"drift with a grace period: the blocked pod waits", func() *fixture {
			np := pool("p", func(np *v1.NodePool) {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
					v1.NodeSelectorRequirementWithMinValues{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"test-zone-1"}})
				np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 3600e9}
			})
			return input([]*v1.NodePool{np}, testNode("node-a", "p", "small", "", bound("a1", "1"), dnd(bound("a2", "500m"))))
		}, MethodDrift, []moveWant{{"a1", "node-a", "", 0, -1, ""}, {"a2", "node-a", "", -1, -1, MoveWaits}}},
		{"drift with a grace period: a pod a PDB holds back for now moves to the replacement", func() *fixture {
			in := input([]*v1.NodePool{driftingPoolWithGrace()}, testNode("node-a", "p", "small", "", bound("a1", "1"), bound("a2", "500m")))
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdbSpec("a2", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(1))})}
			return in
		}, MethodDrift, []moveWant{{"a1", "node-a", "", 0, -1, ""}, {"a2", "node-a", "", 0, -1, ""}}},
		{"drift with a grace period: a pod a PDB holds for good waits", func() *fixture {
			in := input([]*v1.NodePool{driftingPoolWithGrace()}, testNode("node-a", "p", "small", "", bound("a1", "1"), bound("a2", "500m")))
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdbSpec("a2", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(0))})}
			return in
		}, MethodDrift, []moveWant{{"a1", "node-a", "", 0, -1, ""}, {"a2", "node-a", "", -1, -1, MoveWaits}}},
		{"expiration: the provisioner's claim", func() *fixture {
			np := pool("p", func(np *v1.NodePool) { np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("30m") })
			return input([]*v1.NodePool{np}, testNode("node-a", "p", "small", "", bound("a1", "1")))
		}, MethodExpiration, []moveWant{{"a1", "node-a", "", -1, 0, ""}}},
		{"interruption: an existing node; a do-not-disrupt pod waits", func() *fixture {
			a := withInstance(testNode("node-a", "p", "small", v1.CapacityTypeSpot, bound("a1", "1"), dnd(bound("a2", "100m"))), "i-a")
			in := input([]*v1.NodePool{pool("p", spotToo)}, a, testNode("node-b", "p", "large", "", bound("b1", "1")))
			in.Interruptions = []interruption.Event{event(interruption.SpotInterrupted, 0, "i-a")}
			return in
		}, MethodInterruption, []moveWant{{"a1", "node-a", "node-b", -1, -1, ""}, {"a2", "node-a", "", -1, -1, MoveWaits}}},
		{"repair: no home", func() *fixture {
			in := input([]*v1.NodePool{pool("p")}, condition(testNode("node-a", "p", "large", "", bound("a1", "3")), corev1.NodeReady, corev1.ConditionFalse, t0))
			in.InstanceTypes["p"] = cloudprovider.InstanceTypes{typeByName(testTypes(), "small")}
			in.RepairPolicies = awsRepairPolicies
			return in
		}, MethodRepair, []moveWant{{"a1", "node-a", "", -1, -1, MoveUnschedulable}}},
		{"emptiness: a pod without eviction cost is not simulated", func() *fixture {
			p := bound("a1", "1")
			p.Spec.Priority = new(int32)
			*p.Spec.Priority = -1 << 25
			return input([]*v1.NodePool{pool("p")}, testNode("node-a", "p", "small", "", p), testNode("node-b", "p", "large", "", bound("b1", "1")))
		}, MethodEmptiness, []moveWant{{"a1", "node-a", "", -1, -1, MoveNotSimulated}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := plan(t, tc.in())
			require.NoError(t, err)
			var cmd *Command
			for i := range res.Commands {
				if res.Commands[i].Method == tc.method {
					cmd = &res.Commands[i]
				}
			}
			require.NotNil(t, cmd, "no %s command: %v", tc.method, cmdSummary(res))
			assert.Equal(t, tc.want, movesWant(cmd.Moves))
			for _, m := range cmd.Moves {
				assert.Equal(t, m.Pending == MoveUnschedulable, m.Error != nil, m.Pod.Name)
				if m.Claim >= 0 {
					assert.Contains(t, cmd.Replacements[m.Claim].Pods, m.Pod)
				}
				if m.Provisioned >= 0 {
					assert.Contains(t, res.Provisioned[m.Provisioned].Pods, m.Pod)
				}
			}
		})
	}
}

// driftingPoolWithGrace is NodePool p with a terminationGracePeriod whose requirements no
// longer allow test-zone-1 (where testNode puts its nodes): its nodes drift.
func driftingPoolWithGrace() *v1.NodePool {
	return pool("p", func(np *v1.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			v1.NodeSelectorRequirementWithMinValues{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"test-zone-1"}})
		np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 3600e9}
	})
}

// pdbSpec is PodDisruptionBudget pdb-<app> in default selecting app=<app>.
func pdbSpec(app string, spec policyv1.PodDisruptionBudgetSpec) *policyv1.PodDisruptionBudget {
	spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb-" + app, Namespace: "default"}, Spec: spec}
}

// The moves of a command agree with its Destinations: every node a moved pod goes to is one.
func TestMovesAreDestinations(t *testing.T) {
	in := input([]*v1.NodePool{pool("p")},
		testNode("node-a", "p", "large", "", bound("a1", "1")),
		testNode("node-b", "p", "large", "", bound("b1", "1")),
		testNode("node-c", "p", "large", "", bound("c1", "5")))
	res, err := plan(t, in)
	require.NoError(t, err)
	require.NotEmpty(t, res.Commands)
	for _, c := range res.Commands {
		for _, m := range c.Moves {
			if m.To != "" {
				assert.Contains(t, c.Destinations, m.To)
			}
		}
	}
}

// TestPendingPodsAreInTheResult: every pending pod of the snapshot is in Result.PendingPods
// with where the provisioner's pass puts it — an existing node, a provisioned claim — or why
// it goes nowhere (Unschedulable with the pod error), sorted by namespace/name.
func TestPendingPodsAreInTheResult(t *testing.T) {
	in := input([]*v1.NodePool{pool("p")}, testNode("node-a", "p", "large", "", bound("a1", "7")))
	in.Pods = []*corev1.Pod{pending("p3-huge", "100"), pending("p1-fits", "500m"), pending("p2-new", "6")}
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Provisioned, 1)
	assert.Equal(t, []moveWant{
		{"p1-fits", "", "node-a", -1, -1, ""},
		{"p2-new", "", "", -1, 0, ""},
		{"p3-huge", "", "", -1, -1, MoveUnschedulable},
	}, movesWant(res.PendingPods))
	for _, m := range res.PendingPods {
		assert.Equal(t, m.Pending == MoveUnschedulable, m.Error != nil, m.Pod.Name)
		if m.Provisioned >= 0 {
			assert.Contains(t, res.Provisioned[m.Provisioned].Pods, m.Pod)
		}
	}
	if e := res.PendingPods[2].Error; assert.NotNil(t, e) {
		assert.Equal(t, scheduling.ReasonInsufficientResource, e.Code)
	}
}
