package disruption

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

var (
	t0  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// testType is a type with no overhead, on-demand at price and spot at price/4 in zone 1-3.
func testType(name string, cpu int, price float64) *cloudprovider.InstanceType {
	var offs cloudprovider.Offerings
	for _, z := range []string{fake.TestZone1, fake.TestZone2, fake.TestZone3} {
		offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, price, true),
			cloudprovider.NewOffering(z, v1.CapacityTypeSpot, price/4, true))
	}
	return typeOf(name, cpu, offs)
}

// typeOf is a linux type of cpu vCPUs and 2 GiB per vCPU, with no overhead, and offs.
func typeOf(name string, cpu int, offs cloudprovider.Offerings) *cloudprovider.InstanceType {
	return fake.NewInstanceType(fake.InstanceTypeOptions{
		Name: name, OperatingSystems: []string{"linux"}, Offerings: offs,
		Overhead: &cloudprovider.InstanceTypeOverhead{},
		Resources: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(2*cpu)<<30, resource.BinarySI),
			corev1.ResourcePods:   resource.MustParse("110"),
		},
	})
}

func testTypes() cloudprovider.InstanceTypes {
	return cloudprovider.InstanceTypes{
		testType("small", 2, 0.1), testType("medium", 4, 0.2), testType("large", 8, 0.4),
	}
}

func typeByName(its cloudprovider.InstanceTypes, name string) *cloudprovider.InstanceType {
	for _, it := range its {
		if it.Name == name {
			return it
		}
	}
	panic("no type " + name)
}

// pool is an on-demand NodePool, consolidateAfter 0s, budget 100%.
func pool(name string, mod ...func(*v1.NodePool)) *v1.NodePool {
	np := fake.NodePool(name).Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeOnDemand).
		Disruption(v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("0s"), Budgets: []v1.Budget{{Nodes: "100%"}}}).Obj()
	for _, m := range mod {
		m(np)
	}
	return np
}

func spotToo(np *v1.NodePool) {
	np.Spec.Template.Spec.Requirements[0].Values = []string{v1.CapacityTypeOnDemand, v1.CapacityTypeSpot}
}

func budget(nodes string) func(*v1.NodePool) {
	return func(np *v1.NodePool) { np.Spec.Disruption.Budgets = []v1.Budget{{Nodes: nodes}} }
}

// testNode is an initialized node of type typ (on-demand unless ct is given) created at t0.
func testNode(name, poolName, typ string, ct string, pods ...*corev1.Pod) *cluster.Node {
	it := typeByName(testTypes(), typ)
	if ct == "" {
		ct = v1.CapacityTypeOnDemand
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0), Labels: map[string]string{
			v1.NodePoolLabelKey: poolName, v1.LabelInstanceType: typ, v1.LabelTopologyZone: fake.TestZone1,
			v1.CapacityTypeLabelKey: ct, v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.LabelHostname: name,
			v1.NodeInitializedLabelKey: "true", v1.NodeRegisteredLabelKey: "true",
			fake.LabelInstanceSize:       it.Requirements.Get(fake.LabelInstanceSize).Any(),
			fake.IntegerInstanceLabelKey: it.Requirements.Get(fake.IntegerInstanceLabelKey).Any(),
		}},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	if v := it.Requirements.Get(fake.ExoticInstanceLabelKey); v.Operator() == "In" {
		n.Labels[fake.ExoticInstanceLabelKey] = v.Any()
	}
	for _, p := range pods {
		if p != nil {
			p.Spec.NodeName = name
		}
	}
	return &cluster.Node{Node: n, Pods: pods}
}

// bound is a running pod requesting cpu.
func bound(name, cpu string) *corev1.Pod {
	p := fake.Pod(name).Requests(cpu, "100Mi").Label("app", name).Obj()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	st := metav1.NewTime(t0)
	p.Status.StartTime = &st
	return p
}

// fixture is a test cluster as the tests write it: the snapshot's Objects with each node
// given as one cluster.Node (a Node and/or NodeClaim with its bound pods), the nodes to
// mark for deletion, and Plan's time and options. snapshot flattens it for cluster.New.
type fixture struct {
	// Objects are the snapshot's objects; its Pods are the pending pods. Its Nodes and
	// NodeClaims are taken as they are, before those of the Nodes below.
	cluster.Objects
	// Nodes are the nodes with their bound pods (each pod's spec.nodeName names its node's
	// BindName); they hide Objects.Nodes.
	Nodes []*cluster.Node
	// Deleting are the names of the nodes marked for deletion (the Deleting fork).
	Deleting []string
	Now      time.Time
	Options  Options
}

// input is a fixture of these NodePools (each with testTypes) and nodes at now.
func input(pools []*v1.NodePool, nodes ...*cluster.Node) *fixture {
	in := &fixture{Now: now, Nodes: nodes, Objects: cluster.Objects{NodePools: pools,
		InstanceTypes: map[string]cloudprovider.InstanceTypes{}, WellKnownLabels: fake.WellKnownLabels()}}
	for _, np := range pools {
		in.InstanceTypes[np.Name] = testTypes()
	}
	return in
}

// snapshot is f as a cluster.Snapshot: cluster.New over the Objects with every node's Node,
// NodeClaim and pods added, then Deleting. A pod not bound to its node's name, or a Node and
// NodeClaim that New does not pair, is an error: the fixture would not mean what it says.
func (f *fixture) snapshot() (*cluster.Snapshot, error) {
	o, err := f.objects()
	if err != nil {
		return nil, err
	}
	snap, err := cluster.New(o)
	if err != nil {
		return nil, err
	}
	for _, n := range f.Nodes {
		if sn := snap.Node(n.BindName()); sn == nil || sn.Node != n.Node || sn.NodeClaim != n.NodeClaim {
			return nil, fmt.Errorf("fixture: node %s: cluster.New does not pair its Node and NodeClaim", n.BindName())
		}
	}
	return snap.Deleting(f.Deleting...), nil
}

// objects are f's Objects with every node's Node, NodeClaim and pods added: what snapshot
// builds with cluster.New. A pod not bound to its node's name is an error.
func (f *fixture) objects() (cluster.Objects, error) {
	o := f.Objects
	o.Nodes = append([]*corev1.Node(nil), f.Objects.Nodes...)
	o.NodeClaims = append([]*v1.NodeClaim(nil), f.Objects.NodeClaims...)
	o.Pods = nil
	for i, n := range f.Nodes {
		if n == nil {
			return o, fmt.Errorf("fixture: nodes[%d] is nil", i)
		}
		if n.Node != nil {
			o.Nodes = append(o.Nodes, n.Node)
		}
		if n.NodeClaim != nil {
			o.NodeClaims = append(o.NodeClaims, n.NodeClaim)
		}
		for _, p := range n.Pods {
			if p != nil && p.Spec.NodeName != n.BindName() {
				return o, fmt.Errorf("fixture: pod %s of node %s is bound to %q", p.Name, n.BindName(), p.Spec.NodeName)
			}
			o.Pods = append(o.Pods, p)
		}
	}
	o.Pods = append(o.Pods, f.Objects.Pods...)
	return o, nil
}

// plan is Plan over f's snapshot at f.Now with f.Options, the result checked by verify.Plan
// when Plan succeeds. The test stops if the snapshot cannot be built.
func plan(t tb, f *fixture) (*Result, error) {
	t.Helper()
	snap, err := f.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Plan(snap, f.Now, f.Options)
	if err == nil {
		verified(t, snap, f.Now, f.Options, res)
	}
	return res, err
}

func cmdSummary(r *Result) []string {
	var out []string
	for _, c := range r.Commands {
		var repl []string
		for _, x := range c.Replacements {
			repl = append(repl, x.InstanceType.Name+"/"+x.Offering.CapacityType())
		}
		out = append(out, fmt.Sprintf("%s %s %v %v", c.Method, c.Reason, c.Candidates, repl))
	}
	return out
}

// planWithCommands is plan over f, failing t unless its commands (cmdSummary) are want.
func planWithCommands(t *testing.T, f *fixture, want []string) *Result {
	t.Helper()
	res, err := plan(t, f)
	if err != nil {
		t.Fatal(err)
	}
	if got := cmdSummary(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commands:\n got %q\nwant %q\nblocked: %v", got, want, res.Blocked)
	}
	return res
}

// blockedOf is node's Blocked entry (the zero one if it is not kept).
func blockedOf(r *Result, node string) Blocked {
	for _, b := range r.Blocked {
		if b.Node == node {
			return b
		}
	}
	return Blocked{}
}

func blockedReason(r *Result, node string) string { return blockedOf(r, node).Message() }

// firstBlockerOf is node's first blocker (the zero Blocker if it is not kept).
func firstBlockerOf(r *Result, node string) Blocker {
	if bs := blockedOf(r, node).Blockers; len(bs) > 0 {
		return bs[0]
	}
	return Blocker{}
}

// checkFirstBlockers: each node's first blocker has want's code and every field want sets
// (a pointer field: the fields its target sets), whatever the others are.
func checkFirstBlockers(t interface{ Errorf(string, ...any) }, r *Result, want map[string]Blocker) {
	for node, w := range want {
		if got := firstBlockerOf(r, node); !hasFields(reflect.ValueOf(got), reflect.ValueOf(w)) {
			t.Errorf("first blocker of %s:\n got %#v\nwant the fields of %#v (%q)", node, got, w, blockedReason(r, node))
		}
	}
}

// hasFields reports whether got has every non-zero field of want (recursively through
// pointers to structs).
func hasFields(got, want reflect.Value) bool {
	switch {
	case want.IsZero():
		return true
	case want.Kind() == reflect.Pointer && want.Elem().Kind() == reflect.Struct:
		return !got.IsNil() && hasFields(got.Elem(), want.Elem())
	case want.Kind() == reflect.Struct && want.Type() != reflect.TypeOf(time.Time{}):
		for i := 0; i < want.NumField(); i++ {
			if !hasFields(got.Field(i), want.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got.Interface(), want.Interface())
}

// hasBlockerOf reports whether node is kept with blocker b (its code, object and budget)
// among its blockers.
func hasBlockerOf(r *Result, node string, b Blocker) bool {
	return hasBlocker(blockedOf(r, node).Blockers, b)
}

// firstBlocker is the code of the first blocker of node ("" if it is not kept).
func firstBlocker(r *Result, node string) BlockCode { return firstBlockerOf(r, node).Code }
