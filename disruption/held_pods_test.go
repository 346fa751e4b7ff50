package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/fake"
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
