package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Constraints Karpenter's own plan can break, which nodeplan holds (verify findings 1 and 3).

// asNode is an initialized managed node in zone with room for pods pods.
func asNode(name, zone string, pods string, taints []corev1.Taint, bound ...*corev1.Pod) *cluster.Node {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse(pods)}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone,
		v1.NodePoolLabelKey: "default", v1.NodeInitializedLabelKey: "true"}}, Spec: corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Allocatable: rl, Capacity: rl}}
	for _, p := range bound {
		p.Spec.NodeName = name
	}
	return &cluster.Node{Node: n, Pods: bound}
}

// asObjects are pods pending on the nodes with one unconstrained NodePool.
func asObjects(pods []*corev1.Pod, nodes ...*cluster.Node) cluster.Objects {
	return withNodes(cluster.Objects{Pods: pods, NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)}, WellKnownLabels: fake.WellKnownLabels()}, nodes...)
}

// A DaemonSet pod runs on a node whatever its PreferNoSchedule taints, so its requests are
// reserved there (Karpenter checks every taint and overcommits the node).
func TestDaemonSetReservedOnPreferNoScheduleNode(t *testing.T) {
	prefer := []corev1.Taint{{Key: "prefer", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: fake.Pod("x").Requests("10m", "16Mi").Obj().Spec}}}
	tolerant := func(n string) *corev1.Pod {
		return fake.Pod(n).Requests("10m", "16Mi").Tolerate("prefer", "x", corev1.TaintEffectPreferNoSchedule).Obj()
	}
	objs := asObjects([]*corev1.Pod{tolerant("a"), tolerant("b")}, asNode("node-0", fake.TestZone1, "2", prefer))
	objs.DaemonSets = []*appsv1.DaemonSet{ds}
	res := mustSolve(t, snapOf(t, objs), scheduling.Options{})
	require.Empty(t, res.PodErrors)
	require.Len(t, byNode(res), 1)
	assert.Len(t, res.Bindings, 1, "room for 2 pods: the DaemonSet pod and one more")
	assert.Len(t, res.NewNodeClaims, 1)
}
