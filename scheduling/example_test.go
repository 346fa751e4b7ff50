package scheduling_test

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// podNames lists the names of pods, space-separated.
func podNames(pods []*corev1.Pod) string {
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return strings.Join(names, " ")
}

// fourPods is the cluster of ExampleSolve and ExampleLowerBound: four pending pods, an
// on-demand NodePool and fake-it-0 .. fake-it-3 (1..4 vCPU, 2..8 GiB, priced at 0.1 per vCPU
// and per GB).
func fourPods() cluster.Objects {
	return cluster.Objects{
		Pods: []*corev1.Pod{
			fake.Pod("web-1").Requests("1500m", "1Gi").Obj(),
			fake.Pod("web-2").Requests("1500m", "1Gi").Obj(),
			fake.Pod("batch").Requests("3", "4Gi").Obj(),
			fake.Pod("sidecar").Requests("250m", "256Mi").Obj(),
		},
		NodePools: []*v1.NodePool{
			fake.NodePool("default").Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeOnDemand).Obj(),
		},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels(),
	}
}

// Solve packs pending pods onto new NodeClaims, choosing for each the cheapest instance type
// that fits its pods.
func ExampleSolve() {
	snap, err := cluster.New(fourPods())
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	mustVerify(snap, res)
	for _, c := range res.NewNodeClaims {
		fmt.Printf("%s %s/%s $%.4f: %s\n", c.InstanceType.Name, c.Offering.Zone(), c.Offering.CapacityType(),
			c.Offering.Price, podNames(c.Pods))
	}
	fmt.Printf("total $%.4f/hour, %d unschedulable\n", res.Price(), len(res.PodErrors))
	// Output:
	// fake-it-3 test-zone-1/on-demand $1.2590: batch sidecar
	// fake-it-3 test-zone-1/on-demand $1.2590: web-1 web-2
	// total $2.5180/hour, 0 unschedulable
}

// A pod that no instance type can hold is reported in PodErrors with the reason, never
// dropped.
func ExampleSolve_unschedulable() {
	snap, err := cluster.New(cluster.Objects{
		Pods: []*corev1.Pod{
			fake.Pod("small").Requests("500m", "512Mi").Obj(),
			fake.Pod("huge").Requests("64", "1Gi").Obj(),
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
	mustVerify(snap, res)
	for _, c := range res.NewNodeClaims {
		fmt.Printf("%s: %s\n", c.InstanceType.Name, podNames(c.Pods))
	}
	for _, pe := range res.PodErrors {
		fmt.Printf("%s: %s\n", pe.Pod.Name, pe.Message())
	}
	// Output:
	// fake-it-0: small
	// huge: 0/1 NodePools available: 1 insufficient cpu (needs 64, largest type offers 3.9)
}

// A pending pod goes to an existing node with room before any new NodeClaim is considered.
func ExampleSolve_existingNode() {
	it := fake.InstanceTypes(4)[3] // fake-it-3: 4 vCPU, 8 GiB
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{
			v1.LabelHostname:           "node-a",
			v1.LabelTopologyZone:       fake.TestZone1,
			v1.LabelInstanceType:       it.Name,
			v1.CapacityTypeLabelKey:    v1.CapacityTypeOnDemand,
			v1.NodePoolLabelKey:        "default",
			v1.NodeInitializedLabelKey: "true",
		}},
		Status: corev1.NodeStatus{
			Capacity:    it.Capacity.DeepCopy(),
			Allocatable: it.Allocatable().DeepCopy(),
		},
	}
	snap, err := cluster.New(cluster.Objects{
		Pods: []*corev1.Pod{
			fake.Pod("fits").Requests("1", "1Gi").Obj(),
			fake.Pod("too-big").Requests("3", "1Gi").Obj(),
			// Bound by spec.nodeName: it already uses 2 of the node's 3.9 allocatable vCPU.
			fake.Pod("running").Requests("2", "2Gi").NodeName("node-a").Obj(),
		},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		Nodes:           []*corev1.Node{node},
		WellKnownLabels: fake.WellKnownLabels(),
	})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	mustVerify(snap, res)
	for _, b := range res.Bindings {
		fmt.Printf("existing %s: %s\n", b.To, b.Pod.Name)
	}
	for _, c := range res.NewNodeClaims {
		fmt.Printf("new %s: %s\n", c.InstanceType.Name, podNames(c.Pods))
	}
	// Output:
	// existing node-a: fits
	// new fake-it-3: too-big
}

// A host aggregates why pods stay pending from the data, without parsing English: each
// PodError has a cause per NodePool (and per existing node) and a summary with counts.
func ExamplePodError_Summary() {
	snap, err := cluster.New(cluster.Objects{
		Pods: []*corev1.Pod{fake.Pod("huge").Requests("6", "1Gi").Obj()},
		NodePools: []*v1.NodePool{
			fake.NodePool("gpu").Weight(10).Taint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule).Obj(),
			fake.NodePool("general").Obj(),
		},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"gpu": fake.InstanceTypes(4), "general": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels(),
	})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	mustVerify(snap, res)
	e := res.PodErrors[0]
	for _, c := range e.Causes {
		fmt.Printf("%s %s key=%q resource=%q\n", c.NodePool, c.Code, c.Key, c.Resource)
	}
	for _, g := range e.Summary().Counts {
		fmt.Printf("%d x %s\n", g.Count, g.Cause.Code)
	}
	fmt.Println(e.Message())
	// Output:
	// gpu UntoleratedTaint key="" resource=""
	// general InsufficientResource key="" resource="cpu"
	// 1 x UntoleratedTaint
	// 1 x InsufficientResource
	// 0/2 NodePools available: 1 untolerated taint nvidia.com/gpu=true:NoSchedule, 1 insufficient cpu (needs 6, largest type offers 3.9)
}

// LowerBound is the price below which no plan of the same pods can go: the four pods of
// ExampleSolve request 6.25 vCPU, 1.6 of fake-it-3's 3.9 allocatable, so no plan costs less
// than $2.0176/hour, and Solve's two whole nodes for $2.5180 pay 25 % more than that.
func ExampleLowerBound() {
	snap, err := cluster.New(fourPods())
	if err != nil {
		panic(err)
	}
	bound, err := scheduling.LowerBound(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	mustVerify(snap, res)
	fmt.Printf("bound $%.4f/hour for %d pods, plan $%.4f/hour, efficiency %.2f\n", bound.PerHour, bound.Pods, res.Price(), bound.Efficiency(res.Price()))
	for _, m := range bound.Mix {
		fmt.Printf("%.3f × %s %s/%s: $%.4f\n", m.Nodes, m.InstanceType, m.Zone, m.CapacityType, m.PerHour)
	}
	// Output:
	// bound $2.0176/hour for 4 pods, plan $2.5180/hour, efficiency 0.80
	// 1.603 × fake-it-3 test-zone-1/on-demand: $2.0176
}
