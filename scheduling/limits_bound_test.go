package scheduling_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestLimitsBound: Result.LimitsBound says whether a NodePool's limits took instance types
// out of a new NodeClaim or refused one, in either packing: only then may more room under
// the limits change the plan (disruption retries the simulations it gave up on then).
// Instance types of 1 to 8 cpu; pods of 3 cpu each.
func TestLimitsBound(t *testing.T) {
	tests := []struct {
		name   string
		limits v1.Limits // nil: none
		pods   int
		want   bool
		// karpenter, when set, is Karpenter mode's answer: within a round it counts
		// limits.nodes over the nodes and earlier rounds only, so the limit refuses nothing.
		karpenter *bool
	}{
		{name: "no limits", pods: 2},
		{name: "limits above every type the pods open", limits: v1.Limits{corev1.ResourceCPU: resource.MustParse("100")}, pods: 2},
		{name: "a limit that takes the larger types out", limits: v1.Limits{corev1.ResourceCPU: resource.MustParse("5")}, pods: 1, want: true},
		{name: "a limit that refuses the second NodeClaim", limits: v1.Limits{corev1.ResourceCPU: resource.MustParse("10")}, pods: 4, want: true},
		{name: "the node limit reached", limits: v1.Limits{"nodes": resource.MustParse("1")}, pods: 4, want: true, karpenter: new(false)},
		{name: "a node limit not reached", limits: v1.Limits{"nodes": resource.MustParse("5")}, pods: 1},
	}
	for _, tt := range tests {
		for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
			t.Run(fmt.Sprintf("%s/%s", tt.name, packing), func(t *testing.T) {
				np := fake.NodePool("default").Obj()
				np.Spec.Limits = tt.limits
				var pods []*corev1.Pod
				for i := 0; i < tt.pods; i++ {
					p := fake.Pod(fmt.Sprintf("p%d", i)).Requests("3", "1Gi").Obj()
					p.Labels = map[string]string{"app": "x"}
					pods = append(pods, p)
				}
				snap := snapOf(t, cluster.Objects{
					NodePools:       []*v1.NodePool{np},
					InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(8)},
					WellKnownLabels: fake.WellKnownLabels(),
					Pods:            pods,
				})
				opts := scheduling.Options{Packing: packing}
				res, err := scheduling.Solve(snap, opts)
				if err != nil {
					t.Fatal(err)
				}
				// Karpenter mode launches one node past limits.nodes, as Karpenter does (README).
				if err := verifyErr(snap, opts, res); err != nil && packing != scheduling.PackingKarpenter {
					t.Fatal(err)
				}
				want := tt.want
				if packing == scheduling.PackingKarpenter && tt.karpenter != nil {
					want = *tt.karpenter
				}
				if res.LimitsBound != want {
					t.Errorf("LimitsBound %v, want %v (%d NodeClaims, %d pod errors)", res.LimitsBound, want, len(res.NewNodeClaims), len(res.PodErrors))
				}
			})
		}
	}
}
