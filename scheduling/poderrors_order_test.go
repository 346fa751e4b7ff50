package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPodErrorsByNamespaceAndName: pods that cannot be placed are reported in namespace/name
// order, not in the order they were given, so the same pods in any order give one result.
func TestPodErrorsByNamespaceAndName(t *testing.T) {
	names := [][2]string{{"default", "c"}, {"b", "z"}, {"default", "a"}, {"default", "b"}}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		var pods []*corev1.Pod
		for _, i := range order {
			// identical pods nothing can take: their order is the input's unless sorted
			pods = append(pods, fake.Pod(names[i][1]).Namespace(names[i][0]).NodeSelector("example.com/none", "x").Obj())
		}
		snap := snapOf(t, cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)}, Pods: pods})
		res := mustSolve(t, snap, scheduling.Options{})
		var got []string
		for _, e := range res.PodErrors {
			got = append(got, cluster.PodKey(e.Pod))
		}
		assert.Equal(t, []string{"b/z", "default/a", "default/b", "default/c"}, got, "input order %v", order)
	}
}
