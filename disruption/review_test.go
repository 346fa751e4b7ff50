package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// Regressions found in review; each failed before its fix.

func withClaim(n *cluster.Node, mod func(*v1.NodeClaim)) *cluster.Node {
	nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Node.Name, Labels: n.Node.Labels, CreationTimestamp: n.Node.CreationTimestamp}}
	nc.Status.NodeName = n.Node.Name
	mod(nc)
	n.NodeClaim = nc
	return n
}

func TestExpirationReadsTheNodeClaimsExpireAfter(t *testing.T) {
	thirty := v1.MustParseNillableDuration("30m")
	short := withClaim(testNode("a", "p", "small", "", bound("x", "1")), func(nc *v1.NodeClaim) { nc.Spec.ExpireAfter = thirty })
	res, err := plan(t, input([]*v1.NodePool{pool("p")}, short))
	require.NoError(t, err)
	require.NotEmpty(t, res.Commands)
	assert.Equal(t, MethodExpiration, res.Commands[0].Method, "the NodeClaim expires after 30m although its NodePool says 720h")

	never := withClaim(testNode("a", "p", "small", "", bound("x", "1")), func(nc *v1.NodeClaim) { nc.Spec.ExpireAfter = v1.MustParseNillableDuration("Never") })
	res, err = plan(t, input([]*v1.NodePool{pool("p", func(np *v1.NodePool) { np.Spec.Template.Spec.ExpireAfter = thirty })}, never))
	require.NoError(t, err)
	for _, c := range res.Commands {
		assert.NotEqual(t, MethodExpiration, c.Method, "a NodePool change is drift, not expiration")
	}
}

func TestHashDriftNeedsBothVersions(t *testing.T) {
	n := withClaim(testNode("a", "p", "small", "", bound("x", "1")), func(nc *v1.NodeClaim) {
		nc.Annotations = map[string]string{v1.NodePoolHashAnnotationKey: "bbb"}
	})
	np := pool("p", func(np *v1.NodePool) { np.Annotations = map[string]string{v1.NodePoolHashAnnotationKey: "aaa"} })
	res, err := plan(t, input([]*v1.NodePool{np}, n))
	require.NoError(t, err)
	for _, c := range res.Commands {
		assert.NotEqual(t, MethodDrift, c.Method)
	}
}

func TestDeletingNodesUnschedulablePodBlocksConsolidation(t *testing.T) {
	x := testNode("x", "p", "large", "", bound("huge", "100"))
	in := input([]*v1.NodePool{pool("p")}, x, testNode("a", "p", "small", "", bound("pa", "500m")), testNode("b", "p", "large", "", bound("pb", "1")))
	in.Deleting = []string{"x"}
	res, err := plan(t, in)
	require.NoError(t, err)
	for _, c := range res.Commands {
		assert.NotEqual(t, ReasonUnderutilized, c.Reason, "a pod of a node already being deleted has nowhere to go: %v", cmdSummary(res))
	}
}

func TestConsolidateAfterProtectsDestinations(t *testing.T) {
	np := pool("p", func(np *v1.NodePool) { np.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration("30m") })
	a := testNode("a", "p", "small", "", bound("pa", "500m"))
	b := testNode("b", "p", "large", "", bound("pb", "1"))
	b.Node.CreationTimestamp = metav1.NewTime(now.Add(-10 * time.Minute)) // changed 10 minutes ago
	res, err := plan(t, input([]*v1.NodePool{np}, a, b))
	require.NoError(t, err)
	for _, c := range res.Commands {
		assert.NotContains(t, c.Candidates, "a", "a's pod may not move onto b inside b's consolidateAfter: %v", cmdSummary(res))
	}
}

func TestBalancedScoresMoves(t *testing.T) {
	balanced := func(np *v1.NodePool) { np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyBalanced }
	var pods []*corev1.Pod
	for _, n := range []string{"q1", "q2", "q3", "q4", "q5"} {
		pods = append(pods, bound(n, "600m"))
	}
	nodes := []*cluster.Node{testNode("n1", "p", "large", "", pods...)}
	for _, n := range []string{"m01", "m02", "m03", "m04", "m05", "m06", "m07", "m08", "m09", "m10"} {
		nodes = append(nodes, testNode(n, "p", "large", "", bound("big-"+n, "7900m")))
	}
	res, err := plan(t, input([]*v1.NodePool{pool("p", balanced)}, nodes...))
	require.NoError(t, err)
	assert.Empty(t, res.Commands, "saving $0.2/h of $4.4/h does not justify moving 5 of 15 pods")
	b := firstBlockerOf(res, "n1")
	assert.Equal(t, BlockBalanced, b.Code, blockedReason(res, "n1"))
	assert.Equal(t, "p", b.NodePool)
	// (0.2 saved / 4.4 the NodePool costs) / (6 of its 26 disruption cost)
	assert.InDelta(t, 0.2/4.4/(6.0/26), b.Score, 1e-9)

	res, err = plan(t, input([]*v1.NodePool{pool("p")}, nodes...))
	require.NoError(t, err)
	assert.NotEmpty(t, res.Commands, "WhenEmptyOrUnderutilized takes the same move")
}

func TestInstanceTypeNotFoundIsDrift(t *testing.T) {
	retired := testNode("old", "p", "small", "", bound("x", "1"))
	retired.Node.Labels[v1.LabelInstanceType] = "retired-type"
	res, err := plan(t, input([]*v1.NodePool{pool("p")}, retired))
	require.NoError(t, err)
	require.Len(t, res.Commands, 1, "%v", res.Blocked)
	assert.Equal(t, MethodDrift, res.Commands[0].Method)
	assert.Equal(t, Drift{Reason: InstanceTypeNotFound}, res.Commands[0].Drift)
	require.Len(t, res.Commands[0].Replacements, 1)

	young := testNode("new", "p", "small", "", bound("y", "1"))
	young.Node.Labels[v1.LabelInstanceType] = "retired-type"
	young.Node.CreationTimestamp = metav1.NewTime(now.Add(-30 * time.Minute))
	res, err = plan(t, input([]*v1.NodePool{pool("p")}, young))
	require.NoError(t, err)
	assert.Empty(t, res.Commands, "not checked before the node is an hour old")
}

// A Balanced NodePool's cost is Karpenter's cluster cost, which counts the NodeClaims the
// provisioner launched before the pass (difftest disrupt:1002591: pool-1's $0.1885/h claim
// for an expired node's pod turned a 0.69 score into Karpenter's 0.39, and the move away).
func TestBalancedCountsLaunchedNodeClaimsInTheNodePoolsCost(t *testing.T) {
	balanced := func(np *v1.NodePool) { np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyBalanced }
	nodes := func() []*cluster.Node {
		return []*cluster.Node{
			testNode("n1", "p", "large", "", bound("small", "1")),
			testNode("m1", "p", "large", "", bound("big", "6"), bound("side", "500m")),
		}
	}
	res, err := plan(t, input([]*v1.NodePool{pool("p", balanced)}, nodes()...))
	require.NoError(t, err)
	require.Len(t, res.Commands, 1, "%v", res.Blocked)
	assert.Equal(t, []string{"n1"}, res.Commands[0].Candidates, "(0.4 saved / 0.8) / (2 of 5 disruption cost: 1 a node, 1 a pod) = 1.25")

	in := input([]*v1.NodePool{pool("p", balanced)}, nodes()...)
	for _, name := range []string{"w1", "w2", "w3", "w4", "w5"} { // fit on neither node: five larges launched
		in.Pods = append(in.Pods, fake.Pod(name).Requests("7500m", "100Mi").Obj())
	}
	res, err = plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Provisioned, 5)
	assert.Empty(t, res.Commands, "%v", cmdSummary(res))
	b := firstBlockerOf(res, "n1")
	assert.Equal(t, BlockBalanced, b.Code, blockedReason(res, "n1"))
	// (0.4 saved / (0.8 + 2.0 launched)) / (2 of 5)
	assert.InDelta(t, 0.4/2.8/(2.0/5), b.Score, 1e-9)
}

// The pods of a deleting node whose karpenter.sh/do-not-disrupt duration still runs stay
// where they are in every simulation and in the provisioner's pass, as Karpenter's
// CurrentlyReschedulablePods leaves them out: the node a pod would go to is not nominated
// (difftest disrupt:1004925: a drifted node's pod with do-not-disrupt 30h, planned again in
// each later simulation, nominated node-05, which Karpenter's multi-node command took).
func TestDoNotDisruptDurationKeepsADeletingNodesPodInPlace(t *testing.T) {
	run := func(annotation string) *Result {
		held := bound("held", "1")
		held.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: annotation} // started at t0, an hour ago
		expired := withClaim(testNode("a", "p", "small", "", held), func(nc *v1.NodeClaim) {
			nc.Spec.ExpireAfter = v1.MustParseNillableDuration("30m")
		})
		res, err := plan(t, input([]*v1.NodePool{pool("p")}, expired, testNode("c", "p", "small", "")))
		require.NoError(t, err)
		return res
	}
	res := run("30h")
	assert.Contains(t, cmdSummary(res), "emptiness Empty [c] []", "held stays on a: c is empty and not nominated")
	assert.Empty(t, res.Provisioned)

	res = run("30m") // elapsed: the pod moves, and c takes it
	assert.NotContains(t, cmdSummary(res), "emptiness Empty [c] []")
	assert.Equal(t, BlockNominated, firstBlocker(res, "c"), blockedReason(res, "c"))
}
