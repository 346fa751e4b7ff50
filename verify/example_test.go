package verify_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// Solve checks a plan as launched; a valid one gives no violation, and a hand-broken one
// names the rule, the objects and the numbers.
func ExampleSolve() {
	snap, err := cluster.New(cluster.Objects{
		Pods: []*corev1.Pod{
			fake.Pod("web-1").Requests("1500m", "1Gi").Obj(),
			fake.Pod("web-2").Requests("1500m", "1Gi").Obj(),
		},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels(),
	})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("valid:", len(verify.Solve(snap, scheduling.Options{}, res)))

	// Launch the claim on the smallest type instead: the pods no longer fit.
	c := res.NewNodeClaims[0]
	c.InstanceType = snap.InstanceTypes()["default"][0]
	c.Offering = c.InstanceType.Offerings[0]
	for _, v := range verify.Solve(snap, scheduling.Options{}, res) {
		fmt.Println(v)
	}
	// Output:
	// valid: 0
	// LaunchTypeNotAllowed: launched instance type not allowed (fake-it-0) [claim 0, NodePool default]
	// LaunchRequirements: launch choice breaks the NodeClaim's requirements (node.kubernetes.io/instance-type) [claim 0, NodePool default]
	// ResourcesExceeded: requests exceed allocatable (cpu): 3000 > 900 [claim 0, NodePool default]
	// ResourcesExceeded: requests exceed allocatable (memory): 2147483648 > 2136997888 [claim 0, NodePool default]
}
