package disruption_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/verify"
)

// bigNodeSmallPod is the cluster of ExamplePlan and ExamplePricesOf: a large on-demand node
// (fake-it-7, 8 vCPU) running one small pod, created an hour before the time returned.
func bigNodeSmallPod() (*cluster.Snapshot, time.Time) {
	types := fake.InstanceTypes(8) // fake-it-N: N+1 vCPU, on-demand and spot
	np := fake.NodePool("default").Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeOnDemand).Obj()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	big := types[7]
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", CreationTimestamp: metav1.NewTime(created), Labels: map[string]string{
			v1.NodePoolLabelKey: "default", v1.NodeInitializedLabelKey: "true", v1.LabelInstanceType: big.Name,
			v1.LabelTopologyZone: fake.TestZone1, v1.CapacityTypeLabelKey: v1.CapacityTypeOnDemand,
			v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.LabelHostname: "node-a"}},
		Status: corev1.NodeStatus{Allocatable: big.Allocatable()},
	}
	pod := fake.Pod("web").Requests("500m", "512Mi").NodeName("node-a").Obj()
	pod.Status.Phase = corev1.PodRunning
	snap, err := cluster.New(cluster.Objects{
		NodePools:       []*v1.NodePool{np},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Nodes:           []*corev1.Node{node},
		Pods:            []*corev1.Pod{pod},
	})
	if err != nil {
		panic(err)
	}
	return snap, created.Add(time.Hour)
}

// A large on-demand node runs one small pod: Plan replaces it by the cheapest type that fits.
func ExamplePlan() {
	snap, now := bigNodeSmallPod()
	res, err := disruption.Plan(snap, now, disruption.Options{})
	if err != nil {
		panic(err)
	}
	if vs := verify.Plan(snap, now, disruption.Options{}, res); len(vs) > 0 {
		panic(fmt.Sprint(vs)) // the plan breaks a rule verify checks independently
	}
	for _, c := range res.Commands {
		fmt.Printf("%s %s %v -> %s, saves $%.2f/h\n", c.Method, c.Reason, c.Candidates, c.Replacements[0].InstanceType.Name, c.SavingsPerHour)
	}
	// Output:
	// single-node Underutilized [node-a] -> fake-it-0, saves $2.20/h
}

// PricesOf says what is left to save: the node costs $2.52/h now, its replacement $0.31/h,
// and no plan of the pod can cost less than $0.16/h (its half vCPU of fake-it-7's 7.9
// allocatable: the larger the type, the smaller the share of its kube-reserved 100m).
func ExamplePricesOf() {
	snap, now := bigNodeSmallPod()
	res, err := disruption.Plan(snap, now, disruption.Options{})
	if err != nil {
		panic(err)
	}
	if vs := verify.Plan(snap, now, disruption.Options{}, res); len(vs) > 0 {
		panic(fmt.Sprint(vs))
	}
	p, err := disruption.PricesOf(snap, res, disruption.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("now $%.2f/h, after $%.2f/h, lower bound $%.2f/h\n", p.Now, p.After, p.LowerBound)
	// Output:
	// now $2.52/h, after $0.31/h, lower bound $0.16/h
}
