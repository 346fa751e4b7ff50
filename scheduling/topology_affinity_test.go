package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A pod whose required affinity selects itself starts its group in a new domain only when no
// pod matches anywhere, as kube-scheduler binds it; with a match out of its reach it stays
// pending (Karpenter launches a node it is never bound to).
func TestAffinityBootstrapsOnlyWithoutMatches(t *testing.T) {
	pod := func() *corev1.Pod {
		return fake.Pod("a").Label("app", "g").NodeSelector(v1.LabelTopologyZone, fake.TestZone2).
			PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "g"}).Obj()
	}
	t.Run("a match in another zone: pending", func(t *testing.T) {
		res := mustSolve(t, snapOf(t, asObjects([]*corev1.Pod{pod()}, asNode("node-a", fake.TestZone1, "10", nil, fake.Pod("g-0").Label("app", "g").Obj()))), scheduling.Options{})
		require.Len(t, res.PodErrors, 1)
		assert.Equal(t, scheduling.ReasonPodAffinity, res.PodErrors[0].Code)
		assert.Equal(t, v1.LabelTopologyZone, res.PodErrors[0].Causes[0].Key)
		assert.Empty(t, res.NewNodeClaims)
	})
	t.Run("no match anywhere: it starts the group", func(t *testing.T) {
		res := mustSolve(t, snapOf(t, asObjects([]*corev1.Pod{pod()}, asNode("node-a", fake.TestZone1, "10", nil, fake.Pod("other").Label("app", "h").Obj()))), scheduling.Options{})
		assert.Empty(t, res.PodErrors)
		require.Len(t, res.NewNodeClaims, 1)
		assert.Equal(t, fake.TestZone2, res.NewNodeClaims[0].Offering.Zone())
	})
}

func TestAffinityNamespaceSelector(t *testing.T) {
	target := fake.Pod("db").Namespace("data").Label("app", "db").Requests("1", "1Gi").Obj()
	follower := func(name string, nsSel *metav1.LabelSelector) *corev1.Pod {
		p := fake.Pod(name).Requests("1", "1Gi").Obj()
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, NamespaceSelector: nsSel}}}}
		return p
	}
	byName := follower("by-name", &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: "data"}})
	all := follower("all", &metav1.LabelSelector{})
	other := follower("other", &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: "elsewhere"}})
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods:          []*corev1.Pod{target, byName, all, other},
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(8)},
	}), scheduling.Options{})
	holder := map[string]string{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			holder[p.Name] = c.Hostname
		}
	}
	assert.Equal(t, holder["db"], holder["by-name"])
	assert.Equal(t, holder["db"], holder["all"])
	require.Len(t, res.PodErrors, 1, "no pod matches in a namespace that does not exist")
	assert.Equal(t, "other", res.PodErrors[0].Pod.Name)
}
