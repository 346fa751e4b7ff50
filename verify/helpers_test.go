package verify_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

var (
	t0  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// pending is a pod requesting cpu and 100Mi.
func pending(name, cpu string) *fake.PodBuilder {
	return fake.Pod(name).Requests(cpu, "100Mi").Label("app", name)
}

// running is a bound, ready pod started at t0.
func running(name, cpu string) *corev1.Pod {
	p := pending(name, cpu).Obj()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	st := metav1.NewTime(t0)
	p.Status.StartTime = &st
	return p
}

// node is an initialized, ready node of NodePool pool ("" for none) in zone with cpu CPUs,
// 8Gi and 10 pods.
func node(name, pool, zone string, cpu int, pods ...*corev1.Pod) *scheduling.Node {
	lbls := map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone, v1.LabelInstanceType: "fake-it-3",
		v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.CapacityTypeLabelKey: v1.CapacityTypeOnDemand}
	if pool != "" {
		lbls[v1.NodePoolLabelKey] = pool
		lbls[v1.NodeInitializedLabelKey] = "true"
	}
	rl := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("10")}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, CreationTimestamp: metav1.NewTime(t0)},
		Status: corev1.NodeStatus{Allocatable: rl, Capacity: rl.DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	return &scheduling.Node{Node: n, Pods: pods}
}

// schedInput is one NodePool "default" over fake.InstanceTypes(4) (1..4 CPUs, zones 1-3).
func schedInput(pods ...*corev1.Pod) *scheduling.Input {
	return &scheduling.Input{Pods: pods,
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels()}
}

func mustSolve(t *testing.T, in *scheduling.Input) *scheduling.Result {
	t.Helper()
	res, err := scheduling.SolveInput(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hasCode(vs []verify.Violation, c verify.ViolationCode) bool {
	for _, v := range vs {
		if v.Code == c {
			return true
		}
	}
	return false
}

// offeringIn is the type's offering in zone with capacity type ct.
func offeringIn(it *cloudprovider.InstanceType, zone, ct string) *cloudprovider.Offering {
	for _, o := range it.Offerings {
		if o.Zone() == zone && o.CapacityType() == ct {
			return o
		}
	}
	panic("no offering " + zone + "/" + ct + " of " + it.Name)
}

func withPort(p *corev1.Pod, port int32) *corev1.Pod {
	p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	return p
}
