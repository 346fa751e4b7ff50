package fake_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
)

// A fake cloud launches the cheapest offering of the cheapest instance type that fits the
// NodeClaim, and answers with an InsufficientCapacityError when nothing fits.
func Example() {
	ctx := context.Background()
	cloud := fake.NewCloudProvider(fake.InstanceTypes(4))

	nodeClaim := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "default-abc"},
		Spec: v1.NodeClaimSpec{
			Requirements: []v1.NodeSelectorRequirementWithMinValues{
				{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
			},
			Resources: v1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1500m"),
			}},
		},
	}
	launched, err := cloud.Create(ctx, nodeClaim)
	if err != nil {
		panic(err)
	}
	fmt.Println(launched.Labels[v1.LabelInstanceType], launched.Labels[v1.LabelTopologyZone],
		launched.Labels[v1.CapacityTypeLabelKey], launched.Status.ProviderID)

	nodeClaim.Spec.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("64")
	_, err = cloud.Create(ctx, nodeClaim)
	fmt.Println(cloudprovider.IsInsufficientCapacityError(err))

	_ = cloud.Delete(ctx, launched)
	all, _ := cloud.List(ctx)
	fmt.Println(len(all))
	// Output:
	// fake-it-1 test-zone-1 spot fake:///test-zone-1/1
	// true
	// 0
}
