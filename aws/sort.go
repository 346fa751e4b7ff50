package aws

import (
	"sort"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// sortInstances orders instances by launch time, then ID, so lists are deterministic.
func sortInstances(insts []ec2types.Instance) {
	sort.SliceStable(insts, func(i, j int) bool {
		a, b := sdkaws.ToTime(insts[i].LaunchTime), sdkaws.ToTime(insts[j].LaunchTime)
		if !a.Equal(b) {
			return a.Before(b)
		}
		return sdkaws.ToString(insts[i].InstanceId) < sdkaws.ToString(insts[j].InstanceId)
	})
}

func copyResources(rl corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(rl))
	for n, q := range rl {
		out[n] = q.DeepCopy()
	}
	return out
}

func gibQuantity(n int64) resource.Quantity { return *resource.NewQuantity(n<<30, resource.BinarySI) }
