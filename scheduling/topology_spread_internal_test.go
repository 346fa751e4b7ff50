package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// Under nodeAffinityPolicy Ignore every node counts, so the minimum is over every domain
// (test-zone-3, empty, included) and a pod that may only join test-zone-1 or -2, which hold one
// each, would make the skew 2; under Honor only the pod's own domains count.
func TestSpreadMinimumUsesEveryDomainUnderIgnorePolicy(t *testing.T) {
	for _, tc := range []struct {
		policy corev1.NodeInclusionPolicy
		placed bool
	}{{corev1.NodeInclusionPolicyIgnore, false}, {corev1.NodeInclusionPolicyHonor, true}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			c := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, NodeAffinityPolicy: &tc.policy, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}
			n1 := rrNode("n1", map[string]string{v1.LabelTopologyZone: fake.TestZone1}, fake.Pod("b1").Label("app", "a").NodeName("n1").Obj())
			n2 := rrNode("n2", map[string]string{v1.LabelTopologyZone: fake.TestZone2}, fake.Pod("b2").Label("app", "a").NodeName("n2").Obj())
			p := fake.Pod("p").Label("app", "a").TopologySpreadConstraint(c).NodeRequirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone1, fake.TestZone2).Obj()
			r, err := rrSolve(t, rrObjects([]*corev1.Pod{p}, []*cluster.Node{n1, n2}), Options{})
			require.NoError(t, err)
			if tc.placed {
				assert.Empty(t, r.PodErrors)
				assert.Len(t, r.NewNodeClaims, 1)
				return
			}
			require.Len(t, r.PodErrors, 1)
			assert.Equal(t, ReasonTopologySpread, r.PodErrors[0].Code)
			assert.Equal(t, v1.LabelTopologyZone, r.PodErrors[0].Causes[0].Key)
			assert.Empty(t, r.NewNodeClaims)
		})
	}
}
