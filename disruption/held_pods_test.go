package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A drifted node's pods that a PodDisruptionBudget keeps in place for good stay there in its
// simulation, and Karpenter's topology counts them where they run: a pod moving off the same
// node with a zone affinity to them follows them to their zone (difftest disrupt:1005359:
// node-01-near, required zone affinity to app-0, whose only pods the 0% PDB keeps on drifted
// node-01; Karpenter drifts node-01 with a small replacement in its zone, where nodeplan found
// no zone for node-01-near and kept the node).
func TestHeldPodsCountWhereTheyRunInTheirNodesSimulation(t *testing.T) {
	run := func(maxUnavailable int) *Result {
		db0, db1 := bound("db-0", "3"), bound("db-1", "3")
		db0.Labels["app"], db1.Labels["app"] = "db", "db"
		near := bound("near", "100m")
		near.Spec.Affinity = fake.Pod("x").PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).Obj().Spec.Affinity
		a := claimed(testNode("a", "p", "large", "", db0, db1, near), time.Hour)
		a.NodeClaim.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue,
			Reason: "AMIDrift", LastTransitionTime: metav1.NewTime(t0)}}
		in := input([]*v1.NodePool{pool("p")}, a)
		in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{fake.PDB("db", "default", map[string]string{"app": "db"}, maxUnavailable)}
		res, err := plan(t, in)
		require.NoError(t, err)
		return res
	}
	res := run(0)
	require.Len(t, res.Commands, 1, "%v", blockedReason(res, "a"))
	c := res.Commands[0]
	assert.Equal(t, MethodDrift, c.Method)
	require.Len(t, c.Replacements, 1)
	r := c.Replacements[0]
	require.Len(t, r.Pods, 1, "db-0 and db-1 stay until the grace period ends")
	assert.Equal(t, "near", r.Pods[0].Name)
	assert.Equal(t, fake.TestZone1, r.Offering.Zone(), "near follows db to zone 1")

	// Without the PDB the db pods move too, to a NodeClaim whose zone is open, which counts
	// for near's affinity in no zone (as Karpenter's topology records it): a is kept.
	res = run(1)
	assert.Empty(t, res.Commands)
	assert.Equal(t, BlockPodUnschedulable, firstBlocker(res, "a"), blockedReason(res, "a"))
}

// The provisioner's pass records a pod on a NodeClaim whose NodePool names no zone in no
// zone for anti-affinity, as Karpenter's provisioner does: a later pod's preferred zone
// anti-affinity to it keeps to the zone free of the pods it repels, where the default's
// plans, counting it in every zone, relax the preference into the cheapest zone (difftest
// disrupt:1005199: node-03-p1's NodeClaim went to zone a where Karpenter's went to zone b,
// and node-06's drift then found another home for its pods).
func TestProvisionerCountsAnOpenNodeClaimInNoZoneForAntiAffinity(t *testing.T) {
	its := cloudprovider.InstanceTypes{
		zonalType("mid", 4, 0.2, map[string]float64{"test-zone-a": 0.05, "test-zone-b": 0.09, "test-zone-c": 0.05}),
	}
	app := func(name, cpu string) *corev1.Pod {
		p := bound(name, cpu)
		p.Labels["app"] = "app-0"
		return p
	}
	pref := fake.Pod("pref").Requests("2500m", "100Mi").Obj()
	pref.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
		Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: v1.LabelTopologyZone,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-0"}}}}}}}
	big := fake.Pod("big").Requests("3", "100Mi").Label("app", "app-0").Obj()
	spot := func(np *v1.NodePool) { np.Spec.Template.Spec.Requirements[0].Values = []string{v1.CapacityTypeSpot} }
	in := input([]*v1.NodePool{pool("p", spot)},
		zonalNode(its, "node-a", "p", "mid", v1.CapacityTypeSpot, "test-zone-a", app("a0", "3500m")),
		zonalNode(its, "node-c", "p", "mid", v1.CapacityTypeSpot, "test-zone-c", app("c0", "3500m")))
	in.InstanceTypes = map[string]cloudprovider.InstanceTypes{"p": its}
	in.Pods = []*corev1.Pod{big, pref}
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Provisioned, 2, "big and pref do not fit one mid")
	for _, c := range res.Provisioned {
		if c.Pods[0].Name == "pref" {
			assert.Equal(t, "test-zone-b", c.Offering.Zone(), "pref keeps away from app-0's zones a and c")
		}
	}

	snap, err := in.snapshot()
	require.NoError(t, err)
	def, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	for _, c := range def.NewNodeClaims {
		if c.Pods[0].Name == "pref" {
			assert.NotEqual(t, "test-zone-b", c.Offering.Zone(), "the default's plan counts big in every zone and relaxes the preference")
		}
	}
}

// The provisioner's pass tries a pending pod's required node-affinity terms in Karpenter's
// order: a NodeClaim for the first term before a node only a later one matches. So an empty
// node only the second term admits is not nominated and emptiness removes it, as Karpenter
// does (difftest disrupt:1007557: pending-0, on-demand OR zone c, and empty spot node-05 in
// zone c). The default's plans offer the existing nodes every term first.
func TestProvisionerTriesRequiredTermsInKarpentersOrder(t *testing.T) {
	pending := fake.Pod("pending").Requests("1", "100Mi").Obj()
	pending.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{v1.CapacityTypeOnDemand}}}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{fake.TestZone3}}}},
		}}}}
	empty := testNode("empty", "p", "small", v1.CapacityTypeSpot)
	empty.Node.Labels[v1.LabelTopologyZone] = fake.TestZone3
	in := input([]*v1.NodePool{pool("p", spotToo)}, empty)
	in.Pods = []*corev1.Pod{pending}
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Provisioned, 1, "an on-demand NodeClaim for the first term")
	assert.Equal(t, v1.CapacityTypeOnDemand, res.Provisioned[0].Offering.CapacityType())
	assert.Contains(t, cmdSummary(res), "emptiness Empty [empty] []")

	snap, err := in.snapshot()
	require.NoError(t, err)
	def, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	require.Len(t, def.Bindings, 1, "the default's plan binds the pod to the free node of the second term")
	assert.Equal(t, "empty", def.Bindings[0].To)
}
