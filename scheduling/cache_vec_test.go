package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCacheExtendsPodVectorsAsTheIndexGrows: a Cache remembers a pod's requests as a vector
// only; when a later Solve brings a resource name (a GPU type and a pod asking for one), the
// vectors of the pods solved before are extended, and every Solve of the sequence answers as
// without a cache.
func TestCacheExtendsPodVectorsAsTheIndexGrows(t *testing.T) {
	gpu := corev1.ResourceName("example.com/gpu")
	plain := typeWith("plain", "4", "16Gi")
	gpuType := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "gpu", Resources: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods: resource.MustParse("110"), gpu: resource.MustParse("4")}})
	var pods []*corev1.Pod
	for _, name := range []string{"a", "b", "c"} {
		pods = append(pods, podRequesting(name, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}))
	}
	gpuPod := podRequesting("trainer", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), gpu: resource.MustParse("1")})
	objects := func(types cloudprovider.InstanceTypes, pods ...*corev1.Pod) cluster.Objects {
		return cluster.Objects{Pods: pods, NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}
	}
	without := objects(cloudprovider.InstanceTypes{plain}, pods...)
	with := objects(cloudprovider.InstanceTypes{plain, gpuType}, append(append([]*corev1.Pod(nil), pods...), gpuPod)...)
	cache := scheduling.NewCache()
	var lens []int
	for i, in := range []cluster.Objects{without, with, without} {
		want := render(mustSolve(t, snapOf(t, in), scheduling.Options{}))
		res, err := solveVerified(t, cache, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		require.Equal(t, want, render(res), "Solve %d", i)
		lens = append(lens, scheduling.CachedPodVecLen(cache, pods[0]))
	}
	require.Less(t, lens[0], lens[1], "the GPU Solve grew the index and the remembered vector")
	require.Equal(t, lens[1], lens[2])
	require.Equal(t, lens[1], scheduling.CachedPodVecLen(cache, gpuPod))
}
