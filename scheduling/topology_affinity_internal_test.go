package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

func TestAffinityIgnoresPreferredNodeAffinityWhenFindingPeers(t *testing.T) {
	n := rrNode("n1", map[string]string{v1.LabelTopologyZone: fake.TestZone1}, fake.Pod("peer").Label("app", "a").NodeName("n1").Obj())
	p := fake.Pod("p").Label("app", "a").PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "a"}).
		PreferredNodeRequirement(10, v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone2).Obj()
	r, err := rrSolve(t, rrObjects([]*corev1.Pod{p}, []*cluster.Node{n}), Options{})
	require.NoError(t, err)
	require.Len(t, r.NewNodeClaims, 1)
	assert.Equal(t, []string{fake.TestZone1}, r.NewNodeClaims[0].Requirements.Get(v1.LabelTopologyZone).Values(), "required affinity wins over the preference")
}
