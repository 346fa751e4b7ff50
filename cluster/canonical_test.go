package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// TestCanonicalOrder: the same objects listed in two orders give equal Canonical snapshots
// (NodePools, DaemonSets, instance types, Nodes then in-flight NodeClaims, pending pods by
// name), and the snapshot itself keeps its input order.
func TestCanonicalOrder(t *testing.T) {
	types := fake.InstanceTypes(3)
	build := func(reverse bool) *cluster.Snapshot {
		o := cluster.Objects{
			NodePools:     []*v1.NodePool{fake.NodePool("a").Obj(), fake.NodePool("b").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"a": {types[0], types[1], types[2]}, "b": {types[2], types[0]}},
			Nodes:         []*corev1.Node{node("n1", "p1"), node("n2", "p2")},
			NodeClaims:    []*v1.NodeClaim{claim("c1", "", "p3")},
			Pods:          []*corev1.Pod{fake.Pod("x").Obj(), fake.Pod("y").Obj(), fake.Pod("z").Obj()},
			DaemonSets:    []*appsv1.DaemonSet{{ObjectMeta: metav1.ObjectMeta{Name: "d1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "d2"}}},
		}
		if reverse {
			rev := func(n int, swap func(i, j int)) {
				for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
					swap(i, j)
				}
			}
			rev(len(o.NodePools), func(i, j int) { o.NodePools[i], o.NodePools[j] = o.NodePools[j], o.NodePools[i] })
			rev(len(o.Nodes), func(i, j int) { o.Nodes[i], o.Nodes[j] = o.Nodes[j], o.Nodes[i] })
			rev(len(o.Pods), func(i, j int) { o.Pods[i], o.Pods[j] = o.Pods[j], o.Pods[i] })
			rev(len(o.DaemonSets), func(i, j int) { o.DaemonSets[i], o.DaemonSets[j] = o.DaemonSets[j], o.DaemonSets[i] })
			o.InstanceTypes["a"] = cloudprovider.InstanceTypes{types[2], types[1], types[0]}
			o.InstanceTypes["b"] = cloudprovider.InstanceTypes{types[0], types[2]}
		}
		s, err := cluster.New(o)
		require.NoError(t, err)
		return s
	}
	view := func(s *cluster.Snapshot) []string {
		var out []string
		for _, np := range s.NodePools() {
			out = append(out, "pool "+np.Name)
			for _, it := range s.InstanceTypes()[np.Name] {
				out = append(out, "type "+it.Name)
			}
		}
		for _, d := range s.DaemonSets() {
			out = append(out, "ds "+d.Name)
		}
		for _, n := range s.Nodes() {
			out = append(out, "node "+n.Name())
		}
		for _, p := range s.Pending() {
			out = append(out, "pod "+p.Name)
		}
		return out
	}
	fwd, rev := build(false), build(true)
	assert.NotEqual(t, view(fwd), view(rev), "the input orders differ")
	assert.Equal(t, view(fwd.Canonical()), view(rev.Canonical()))
	assert.Equal(t, []string{"pool a", "type " + types[0].Name, "type " + types[1].Name, "type " + types[2].Name, "pool b", "type " + types[0].Name, "type " + types[2].Name,
		"ds d1", "ds d2", "node n1", "node n2", "node c1", "pod x", "pod y", "pod z"}, view(rev.Canonical()))
	assert.Equal(t, "n2", rev.Nodes()[0].Name(), "Canonical leaves its snapshot as it was")
	assert.NotNil(t, rev.Canonical().Node("n1"), "the canonical snapshot finds its nodes by name")
}
