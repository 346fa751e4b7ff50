package verify_test

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

var (
	t0  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// tb is what the helpers need of a *testing.T or *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// world is a test cluster that tests change between snapshots: the objects a snapshot is
// built from (Pods are the pending ones), the pods bound to its nodes and the nodes the
// Deleting fork marks.
type world struct {
	cluster.Objects
	bound    []*corev1.Pod
	deleting []string
}

// snap is the snapshot of the world as it is now.
func (w *world) snap(t tb) *cluster.Snapshot {
	t.Helper()
	o := w.Objects
	o.Pods = append(append([]*corev1.Pod(nil), w.Pods...), w.bound...)
	s, err := cluster.New(o)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return s.Deleting(w.deleting...)
}

// addNode adds an initialized, ready node of NodePool pool ("" for none) in zone with cpu
// CPUs, 8Gi and 10 pods, with the pods bound to it.
func (w *world) addNode(name, pool, zone string, cpu int, pods ...*corev1.Pod) {
	lbls := map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone, v1.LabelInstanceType: "fake-it-3",
		v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.CapacityTypeLabelKey: v1.CapacityTypeOnDemand}
	if pool != "" {
		lbls[v1.NodePoolLabelKey] = pool
		lbls[v1.NodeInitializedLabelKey] = "true"
	}
	rl := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("10")}
	w.Nodes = append(w.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, CreationTimestamp: metav1.NewTime(t0)},
		Status: corev1.NodeStatus{Allocatable: rl, Capacity: rl.DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
	w.bind(name, pods...)
}

// bind binds the pods to the node (spec.nodeName).
func (w *world) bind(node string, pods ...*corev1.Pod) {
	for _, p := range pods {
		p.Spec.NodeName = node
	}
	w.bound = append(w.bound, pods...)
}

// node is the world's Node of this name.
func (w *world) node(name string) *corev1.Node {
	for _, n := range w.Nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

// pod is the world's pod of this name, pending or bound.
func (w *world) pod(name string) *corev1.Pod {
	for _, p := range append(append([]*corev1.Pod(nil), w.Pods...), w.bound...) {
		if p.Name == name {
			return p
		}
	}
	panic("no pod " + name)
}

// pending is a pod requesting cpu and 100Mi.
func pending(name, cpu string) *fake.PodBuilder {
	return fake.Pod(name).Requests(cpu, "100Mi").Label("app", name)
}

// running is a ready pod started at t0 (bound by addNode or bind).
func running(name, cpu string) *corev1.Pod {
	p := pending(name, cpu).Obj()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	st := metav1.NewTime(t0)
	p.Status.StartTime = &st
	return p
}

// schedWorld is one NodePool "default" over fake.InstanceTypes(4) (1..4 CPUs, zones 1-3)
// with these pending pods.
func schedWorld(pods ...*corev1.Pod) *world {
	return &world{Objects: cluster.Objects{Pods: pods,
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		WellKnownLabels: fake.WellKnownLabels()}}
}

// mustSolve solves snap with opts and requires verify to find nothing wrong.
func mustSolve(t tb, snap *cluster.Snapshot, opts scheduling.Options) *scheduling.Result {
	t.Helper()
	res, err := scheduling.Solve(snap, opts)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if vs := verify.Solve(snap, opts, res); len(vs) > 0 {
		t.Fatalf("Solve's own result reported: %v", vs)
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
