package scheduling_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestAdversarialInputs feeds Solve odd but possible inputs: it must not panic, and every pod
// must come back placed or with a reason.
func TestAdversarialInputs(t *testing.T) {
	nan := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "nan", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, math.NaN(), true)}})
	inf := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "inf", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, math.Inf(1), true)}})
	free := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "free", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0, true)}})
	empty := &cloudprovider.InstanceType{Name: "empty"}
	noOfferings := &cloudprovider.InstanceType{Name: "bare", Requirements: requirements.Requirements{},
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}
	unavailable := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "gone", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.1, false)}})
	noContainers := fake.Pod("ghost").Obj()
	noContainers.Spec.Containers = nil
	negative := fake.Pod("negative").Obj()
	negative.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1")}
	huge := fake.Pod("huge").Requests("100000", "100Ti").Obj()
	zeroUnknown := fake.Pod("zero").Request("example.com/widget", "0").Obj()
	noClassRef := fake.NodePool("no-ref").Obj()
	noClassRef.Spec.Template.Spec.NodeClassRef = nil
	cases := map[string]cluster.Objects{
		"odd prices": {Pods: []*corev1.Pod{fake.Pod("p").Requests("1", "1Gi").Obj()}, NodePools: []*v1.NodePool{fake.NodePool("d").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"d": {nan, inf, free}}},
		"empty types": {Pods: []*corev1.Pod{fake.Pod("p").Obj()}, NodePools: []*v1.NodePool{fake.NodePool("d").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"d": {empty, noOfferings, unavailable, nil}}},
		"odd pods": {Pods: []*corev1.Pod{noContainers, negative, huge, zeroUnknown}, NodePools: []*v1.NodePool{noClassRef},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"no-ref": fake.InstanceTypes(3)}},
		"no node pools": {Pods: []*corev1.Pod{fake.Pod("p").Obj()}},
		"types for an unknown pool": {Pods: []*corev1.Pod{fake.Pod("p").Obj()}, NodePools: []*v1.NodePool{fake.NodePool("d").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"other": fake.InstanceTypes(3)}},
		"empty node": {Pods: []*corev1.Pod{fake.Pod("p").Obj()}, Nodes: []*corev1.Node{{}}},
	}
	for name, objs := range cases {
		t.Run(name, func(t *testing.T) {
			snap := snapOf(t, objs)
			res, err := solveVerified(t, nil, snap, scheduling.Options{})
			require.NoError(t, err)
			seen := 0
			for _, c := range res.NewNodeClaims {
				seen += len(c.Pods)
				assert.False(t, math.IsNaN(c.Offering.Price), "a NaN price is never launched")
			}
			seen += len(res.Bindings)
			for _, e := range res.PodErrors {
				assert.NotEmpty(t, e.Message())
				seen++
			}
			assert.Equal(t, len(objs.Pods), seen)
		})
	}
	t.Run("nil node", func(t *testing.T) {
		_, err := cluster.New(cluster.Objects{Pods: []*corev1.Pod{fake.Pod("p").Obj()}, Nodes: []*corev1.Node{nil}})
		assert.Error(t, err, "a nil Node is refused when the snapshot is built")
	})
}
