package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestLimitsWithoutRequestsAreRequested: a container that sets a limit but no request is
// planned as requesting its limit, as the API server defaults it (manifests read from files
// were never defaulted); a request it sets is kept (README, "deliberately does better").
func TestLimitsWithoutRequestsAreRequested(t *testing.T) {
	pod := fake.Pod("p").Request(corev1.ResourceMemory, "1Gi").Obj()
	pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("2Gi")}
	snap := snapOf(t, cluster.Objects{
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(8)},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            []*corev1.Pod{pod},
	})
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyErr(snap, scheduling.Options{}, res); err != nil {
		t.Fatal(err)
	}
	if len(res.NewNodeClaims) != 1 {
		t.Fatalf("want one NodeClaim, got %d (pod errors %v)", len(res.NewNodeClaims), res.PodErrors)
	}
	c := res.NewNodeClaims[0]
	if cpu := c.Requests[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("3")) < 0 {
		t.Errorf("claim requests cpu %s, want at least the limit 3", cpu.String())
	}
	if mem := c.Requests[corev1.ResourceMemory]; mem.Cmp(resource.MustParse("2Gi")) >= 0 {
		t.Errorf("claim requests memory %s: the request 1Gi, not the limit 2Gi, counts", mem.String())
	}
	if alloc := c.InstanceType.Allocatable()[corev1.ResourceCPU]; alloc.Cmp(resource.MustParse("3")) < 0 {
		t.Errorf("launched %s with %s cpu, below the limit 3", c.InstanceType.Name, alloc.String())
	}
}
