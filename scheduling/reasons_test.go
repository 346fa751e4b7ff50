package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// wantCause is what a test checks of a scheduling.Cause ("" and 0 fields must be empty).
type wantCause struct {
	code                scheduling.ReasonCode
	nodePool, node, key string
	resource            string
	needed, available   string // Quantity strings
	taint               string // the taint's key
	port                int32
	instanceTypes       int
	unavailable         int
}

func assertCause(t *testing.T, want wantCause, got scheduling.Cause) {
	t.Helper()
	q := func(x *resource.Quantity) string {
		if x == nil {
			return ""
		}
		return x.String()
	}
	taint := ""
	if got.Taint != nil {
		taint = got.Taint.Key
	}
	assert.Equal(t, want, wantCause{code: got.Code, nodePool: got.NodePool, node: got.Node, key: got.Key, resource: got.Resource,
		needed: q(got.Needed), available: q(got.Available), taint: taint, port: got.Port, instanceTypes: got.InstanceTypes, unavailable: got.Unavailable})
}

// reasonNode is an initialized node of NodePool "default" in zone 1 with 2 cpu, 4Gi and 10 pods free.
func reasonNode(name string, bound ...*corev1.Pod) *cluster.Node {
	return kcManaged(name, "default", true, map[string]string{v1.LabelTopologyZone: fake.TestZone1, v1.LabelArch: "amd64", v1.LabelOS: "linux"},
		kcRL("cpu", "2", "memory", "4Gi", "pods", "10"), bound...)
}

// largest is the largest allocatable of resource among types, as Cause.Available states it.
func largest(types cloudprovider.InstanceTypes, name corev1.ResourceName) string {
	best := resource.Quantity{}
	for _, it := range types {
		if q := it.Allocatable()[name]; q.Cmp(best) > 0 {
			best = q
		}
	}
	if name == corev1.ResourceCPU {
		return resource.NewMilliQuantity(best.MilliValue(), resource.DecimalSI).String()
	}
	return resource.NewQuantity(best.Value(), resource.BinarySI).String()
}

// TestReasonCodes: one minimal input per code; the pod's error carries the code, and its first
// NodePool-level cause (or, with node set, its first node cause) names the object, key,
// resource and amounts it is about.
func TestReasonCodes(t *testing.T) {
	types := fake.InstanceTypes(4)
	pool := func() *fake.NodePoolBuilder { return fake.NodePool("default") }
	unavailable := fake.NewInstanceType(fake.InstanceTypeOptions{
		Name:      "gone",
		Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("10")},
		Offerings: cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.1, false)},
	})
	notReady := pool().Obj()
	notReady.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Message: "no nodeclass"}}
	daemon := fake.Pod("p").Requests("100m", "100Mi").Obj()
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent"}}
	portDaemon := kcDS("proxy", "100m", "100Mi", func(spec *corev1.PodSpec) {
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
	})
	smallest := func(name corev1.ResourceName) string {
		best := types[0].Capacity[name]
		for _, it := range types {
			if q := it.Capacity[name]; q.Cmp(best) < 0 {
				best = q
			}
		}
		return resource.NewMilliQuantity(best.MilliValue(), resource.DecimalSI).String()
	}
	// smallestHolding is the smallest cpu capacity of the types with cpu allocatable for it.
	smallestHolding := func(cpu string) string {
		need, best := resource.MustParse(cpu), resource.Quantity{}
		for _, it := range types {
			alloc, capacity := it.Allocatable()[corev1.ResourceCPU], it.Capacity[corev1.ResourceCPU]
			if alloc.Cmp(need) >= 0 && (best.IsZero() || capacity.Cmp(best) < 0) {
				best = capacity
			}
		}
		return resource.NewMilliQuantity(best.MilliValue(), resource.DecimalSI).String()
	}
	zonal := storagev1.VolumeBindingWaitForFirstConsumer
	cases := []struct {
		name       string
		pod        *corev1.Pod
		pools      []*v1.NodePool // nil: one plain NodePool "default"
		types      cloudprovider.InstanceTypes
		nodes      []*cluster.Node
		daemonSets []*appsv1.DaemonSet
		edit       func(in *cluster.Objects)
		// moving hands the pod to Solve as a moved pod (cluster.Snapshot.WithMoving), as
		// disruption's simulations do, instead of as a pending one; closed are the nodes
		// closed to moved pods (cluster.Snapshot.ClosedToMoves).
		moving    bool
		closed    []string
		code      scheduling.ReasonCode
		nodeCause bool // check the first node cause instead of the first cause
		want      wantCause
	}{
		{name: "taint", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{pool().Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj()},
			code: scheduling.ReasonUntoleratedTaint, want: wantCause{code: scheduling.ReasonUntoleratedTaint, nodePool: "default", taint: "dedicated"}},
		{name: "node taint", pod: fake.Pod("p").Requests("1", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			nodes: []*cluster.Node{kcWithTaints(reasonNode("n1"), kcTaint("team", "a", corev1.TaintEffectNoSchedule))},
			code:  scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonUntoleratedTaint, node: "n1", taint: "team"}},
		{name: "NodePool requirement", pod: fake.Pod("p").NodeSelector(v1.LabelArch, "arm64").Obj(), pools: []*v1.NodePool{pool().Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64").Obj()},
			code: scheduling.ReasonRequirementsUnsatisfiable, want: wantCause{code: scheduling.ReasonRequirementsUnsatisfiable, nodePool: "default", key: v1.LabelArch}},
		{name: "no instance type matches key", pod: fake.Pod("p").NodeSelector(v1.LabelInstanceType, "nope").Obj(),
			code: scheduling.ReasonRequirementsUnsatisfiable, want: wantCause{code: scheduling.ReasonRequirementsUnsatisfiable, nodePool: "default", key: v1.LabelInstanceType}},
		{name: "node labels", pod: fake.Pod("p").NodeSelector(v1.LabelArch, "arm64").Obj(), nodes: []*cluster.Node{reasonNode("n1")},
			pools: []*v1.NodePool{pool().Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64").Obj()},
			code:  scheduling.ReasonRequirementsUnsatisfiable, nodeCause: true, want: wantCause{code: scheduling.ReasonRequirementsUnsatisfiable, node: "n1", key: v1.LabelArch}},
		{name: "NodePool requirements leave no type", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{pool().Requirement(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "nope").Obj()},
			code: scheduling.ReasonNoNodePool, want: wantCause{code: scheduling.ReasonRequirementsUnsatisfiable, nodePool: "default", key: v1.LabelInstanceType, instanceTypes: 4}},
		{name: "cpu", pod: fake.Pod("p").Requests("100", "1Gi").Obj(),
			code: scheduling.ReasonInsufficientResource, want: wantCause{code: scheduling.ReasonInsufficientResource, nodePool: "default", resource: "cpu", needed: "100", available: largest(types, corev1.ResourceCPU)}},
		{name: "memory", pod: fake.Pod("p").Requests("1", "1Ti").Obj(),
			code: scheduling.ReasonInsufficientResource, want: wantCause{code: scheduling.ReasonInsufficientResource, nodePool: "default", resource: "memory", needed: "1Ti", available: largest(types, corev1.ResourceMemory)}},
		{name: "node cpu", pod: fake.Pod("p").Requests("3", "1Gi").Obj(), nodes: []*cluster.Node{reasonNode("n1", fake.Pod("b").Requests("500m", "1Gi").NodeName("n1").Obj())},
			pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			code:  scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonInsufficientResource, node: "n1", resource: "cpu", needed: "3", available: "1500m"}},
		{name: "limits", pod: fake.Pod("p").Requests("500m", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			code: scheduling.ReasonNodePoolLimit, want: wantCause{code: scheduling.ReasonNodePoolLimit, nodePool: "default", resource: "cpu", needed: smallest(corev1.ResourceCPU), available: "0"}},
		{name: "node limit", pod: fake.Pod("p").Requests("500m", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit("nodes", "0").Obj()},
			code: scheduling.ReasonNodePoolLimit, want: wantCause{code: scheduling.ReasonNodePoolLimit, nodePool: "default", resource: "nodes"}},
		// The cause that decides is the one to fix first: a limit before a type's size, a taint or
		// a requirement before a limit, a size no type has before a limit.
		{name: "limit before a type's size", pod: fake.Pod("p").Requests("3", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "2").Obj()},
			code: scheduling.ReasonNodePoolLimit, want: wantCause{code: scheduling.ReasonNodePoolLimit, nodePool: "default", resource: "cpu", needed: smallestHolding("3"), available: "2"}},
		{name: "limit before a type's size, some limit used", pod: fake.Pod("p").Requests("3", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "3").Obj()},
			nodes: []*cluster.Node{kcWithTaints(reasonNode("n1"), kcTaint("team", "a", corev1.TaintEffectNoSchedule))},
			code:  scheduling.ReasonNodePoolLimit, want: wantCause{code: scheduling.ReasonNodePoolLimit, nodePool: "default", resource: "cpu", needed: smallestHolding("3"), available: "1"}},
		{name: "taint before a limit", pod: fake.Pod("p").Requests("500m", "1Gi").Obj(),
			pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj()},
			code:  scheduling.ReasonUntoleratedTaint, want: wantCause{code: scheduling.ReasonUntoleratedTaint, nodePool: "default", taint: "dedicated"}},
		{name: "taint before the node limit", pod: fake.Pod("p").Requests("500m", "1Gi").Obj(),
			pools: []*v1.NodePool{pool().Limit("nodes", "0").Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj()},
			code:  scheduling.ReasonUntoleratedTaint, want: wantCause{code: scheduling.ReasonUntoleratedTaint, nodePool: "default", taint: "dedicated"}},
		{name: "requirement before a limit", pod: fake.Pod("p").Requests("3", "1Gi").NodeSelector(v1.LabelArch, "arm64").Obj(),
			pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "2").Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64").Obj()},
			code:  scheduling.ReasonRequirementsUnsatisfiable, want: wantCause{code: scheduling.ReasonRequirementsUnsatisfiable, nodePool: "default", key: v1.LabelArch}},
		{name: "no type's size before a limit", pod: fake.Pod("p").Requests("100", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "2").Obj()},
			code: scheduling.ReasonInsufficientResource, want: wantCause{code: scheduling.ReasonInsufficientResource, nodePool: "default", resource: "cpu", needed: "100", available: largest(types, corev1.ResourceCPU)}},
		{name: "pod affinity", pod: fake.Pod("p").PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "nobody"}).Obj(),
			code: scheduling.ReasonPodAffinity, want: wantCause{code: scheduling.ReasonPodAffinity, nodePool: "default", key: v1.LabelTopologyZone}},
		{name: "pod anti-affinity", pod: fake.Pod("p").Label("app", "db").PodAntiAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).Obj(),
			pools: []*v1.NodePool{pool().Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone1).Obj()},
			nodes: []*cluster.Node{reasonNode("n1", fake.Pod("db-0").Label("app", "db").Requests("1", "1Gi").NodeName("n1").Obj())},
			code:  scheduling.ReasonPodAntiAffinity, want: wantCause{code: scheduling.ReasonPodAntiAffinity, nodePool: "default", key: v1.LabelTopologyZone}},
		{name: "node pod anti-affinity", pod: fake.Pod("p").Label("app", "db").PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "db"}).Obj(),
			pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			nodes: []*cluster.Node{reasonNode("n1", fake.Pod("db-0").Label("app", "db").Requests("1", "1Gi").NodeName("n1").Obj())},
			code:  scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonPodAntiAffinity, node: "n1", key: v1.LabelHostname}},
		{name: "topology spread", pod: fake.Pod("p").Label("app", "web").TopologySpreadConstraint(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj(),
			pools: []*v1.NodePool{pool().Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone1).Obj()},
			nodes: []*cluster.Node{
				kcManaged("z2", "other", true, map[string]string{v1.LabelTopologyZone: fake.TestZone2}, kcRL("cpu", "0", "memory", "0", "pods", "0")),
				kcManaged("z1", "default", true, map[string]string{v1.LabelTopologyZone: fake.TestZone1}, kcRL("cpu", "8", "memory", "8Gi", "pods", "10"),
					fake.Pod("web-0").Label("app", "web").NodeName("z1").Obj()),
			},
			code: scheduling.ReasonTopologySpread, want: wantCause{code: scheduling.ReasonTopologySpread, nodePool: "default", key: v1.LabelTopologyZone}},
		{name: "host port of a DaemonSet", pod: fake.Pod("p").HostPort(80).Obj(), daemonSets: []*appsv1.DaemonSet{portDaemon},
			code: scheduling.ReasonHostPort, want: wantCause{code: scheduling.ReasonHostPort, nodePool: "default", port: 80}},
		{name: "node host port", pod: fake.Pod("p").HostPort(80).Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			nodes: []*cluster.Node{reasonNode("n1", fake.Pod("web").HostPort(80).NodeName("n1").Obj())},
			code:  scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonHostPort, node: "n1", port: 80}},
		{name: "volume zone", pod: withPVC(fake.Pod("p").Obj(), "data", "data-p"),
			pools: []*v1.NodePool{pool().Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone1).Obj()},
			edit: func(in *cluster.Objects) {
				in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-p", "zonal", "")}
				in.StorageClasses = []*storagev1.StorageClass{storageClass("zonal", zonal, fake.TestZone2)}
			},
			code: scheduling.ReasonVolumeTopology, want: wantCause{code: scheduling.ReasonVolumeTopology, nodePool: "default", key: v1.LabelTopologyZone}},
		{name: "volume attach limit", pod: withPVC(fake.Pod("p").Obj(), "data", "claim-a"), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			nodes: []*cluster.Node{reasonNode("n1")},
			edit: func(in *cluster.Objects) {
				zero := int32(0)
				in.CSINodes = []*storagev1.CSINode{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
					{Name: "ebs.csi.aws.com", NodeID: "i-1", Allocatable: &storagev1.VolumeNodeResources{Count: &zero}}}}}}
				in.StorageClasses = []*storagev1.StorageClass{storageClass("gp3", zonal)}
				in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("claim-a", "gp3", "")}
			},
			code: scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonVolumeAttachLimit, node: "n1", key: "ebs.csi.aws.com"}},
		{name: "volume unresolved", pod: withPVC(fake.Pod("p").Obj(), "data", "missing"),
			code: scheduling.ReasonVolumeUnresolved, want: wantCause{code: scheduling.ReasonVolumeUnresolved}},
		{name: "minValues", pod: fake.Pod("p").Requests("2500m", "1Gi").Obj(), pools: []*v1.NodePool{pool().RequirementWithMinValues(v1.LabelInstanceType, corev1.NodeSelectorOpExists, 3).Obj()},
			code: scheduling.ReasonMinValues, want: wantCause{code: scheduling.ReasonMinValues, nodePool: "default", key: v1.LabelInstanceType, needed: "3", available: "2"}},
		{name: "offerings", pod: fake.Pod("p").Obj(), types: cloudprovider.InstanceTypes{unavailable},
			code: scheduling.ReasonNoNodePool, want: wantCause{code: scheduling.ReasonOfferingUnavailable, nodePool: "default", instanceTypes: 1, unavailable: 1}},
		{name: "consolidateAfter", pod: fake.Pod("p").Requests("1", "1Gi").NodeName("elsewhere").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			nodes: []*cluster.Node{reasonNode("n1")}, moving: true, closed: []string{"n1"},
			code: scheduling.ReasonNodePoolLimit, nodeCause: true, want: wantCause{code: scheduling.ReasonConsolidateAfter, node: "n1"}},
		{name: "invalid spec", pod: fake.Pod("Bad_Name").Obj(), code: scheduling.ReasonInvalidPodSpec, want: wantCause{code: scheduling.ReasonInvalidPodSpec}},
		{name: "daemonset", pod: daemon, moving: true, code: scheduling.ReasonNotProvisionable, want: wantCause{code: scheduling.ReasonNotProvisionable}},
		{name: "no NodePool", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{}, code: scheduling.ReasonNoNodePool, want: wantCause{code: scheduling.ReasonNoNodePool}},
		{name: "not ready", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{notReady},
			code: scheduling.ReasonNoNodePool, want: wantCause{code: scheduling.ReasonNodePoolNotReady, nodePool: "default"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pools, ts := c.pools, c.types
			if pools == nil {
				pools = []*v1.NodePool{pool().Obj()}
			}
			if ts == nil {
				ts = types
			}
			in := cluster.Objects{NodePools: pools, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": ts},
				DaemonSets: c.daemonSets, WellKnownLabels: fake.WellKnownLabels()}
			if !c.moving {
				in.Pods = []*corev1.Pod{c.pod}
			}
			if c.edit != nil {
				c.edit(&in)
			}
			snap := snapOf(t, in, c.nodes...).ClosedToMoves(c.closed...)
			if c.moving {
				snap = snap.WithMoving(c.pod)
			}
			res := mustSolve(t, snap, scheduling.Options{})
			require.Len(t, res.PodErrors, 1)
			e := res.PodErrors[0]
			assert.Equal(t, c.code, e.Code, e.Message())
			require.NotEmpty(t, e.Causes)
			got := e.Causes[0]
			if c.nodeCause {
				require.NotEmpty(t, e.NodeCauses, e.Message())
				got = e.NodeCauses[0]
			}
			assertCause(t, c.want, got)
			assert.NotEmpty(t, got.String())
		})
	}
}

// TestReasonCausePerNodePool: a pod every NodePool rejects has one cause per NodePool, in
// weight order, each with its own code; the summary counts them.
func TestReasonCausePerNodePool(t *testing.T) {
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods: []*corev1.Pod{fake.Pod("p").Requests("100", "1Gi").Obj()},
		NodePools: []*v1.NodePool{
			fake.NodePool("tainted").Weight(10).Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj(),
			fake.NodePool("small").Obj(),
		},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"tainted": fake.InstanceTypes(4), "small": fake.InstanceTypes(4)},
	}), scheduling.Options{})
	require.Len(t, res.PodErrors, 1)
	e := res.PodErrors[0]
	assert.Equal(t, scheduling.ReasonUntoleratedTaint, e.Code)
	require.Len(t, e.Causes, 2)
	assert.Equal(t, []string{"tainted", "small"}, []string{e.Causes[0].NodePool, e.Causes[1].NodePool})
	assert.Equal(t, []scheduling.ReasonCode{scheduling.ReasonUntoleratedTaint, scheduling.ReasonInsufficientResource}, []scheduling.ReasonCode{e.Causes[0].Code, e.Causes[1].Code})
	assert.Empty(t, e.NodeCauses)
	sum := e.Summary()
	assert.Equal(t, 0, sum.Nodes)
	assert.Equal(t, 2, sum.NodePools)
	require.Len(t, sum.Counts, 2)
	assert.Equal(t, scheduling.ReasonUntoleratedTaint, sum.Counts[0].Cause.Code)
	assert.Equal(t, scheduling.ReasonInsufficientResource, sum.Counts[1].Cause.Code)
}

// TestReasonSummary: a pod no node and no NodePool takes gets a cause per node (Node set,
// uninitialized nodes last) as well as per NodePool, and the summary counts them per code,
// the same rejection of several objects once, with the best amount available.
func TestReasonSummary(t *testing.T) {
	team := kcTaint("team", "a", corev1.TaintEffectNoSchedule)
	nodes := []*cluster.Node{
		kcWithTaints(reasonNode("t1"), team),
		kcWithTaints(reasonNode("t2"), team),
		reasonNode("small-1", fake.Pod("b1").Requests("1", "1Gi").NodeName("small-1").Obj()),
		reasonNode("small-2", fake.Pod("b2").Requests("500m", "1Gi").NodeName("small-2").Obj()),
		kcInflight("claim-1", "default", map[string]string{v1.LabelTopologyZone: fake.TestZone1}, kcRL("cpu", "1", "memory", "4Gi", "pods", "10")),
	}
	types := fake.InstanceTypes(4)
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods: []*corev1.Pod{fake.Pod("p").Requests("1800m", "1Gi").Obj()},
		NodePools: []*v1.NodePool{
			fake.NodePool("tainted").Weight(10).Taint("team", "a", corev1.TaintEffectNoSchedule).Obj(),
			fake.NodePool("default").Limit(corev1.ResourceCPU, "0").Obj(),
		},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"tainted": types, "default": types},
		WellKnownLabels: fake.WellKnownLabels(),
	}, nodes...), scheduling.Options{})
	require.Len(t, res.PodErrors, 1)
	e := res.PodErrors[0]
	var nodeNames []string
	for _, c := range e.NodeCauses {
		nodeNames = append(nodeNames, c.Node)
	}
	assert.Equal(t, []string{"small-1", "small-2", "t1", "t2", "claim-1"}, nodeNames)
	sum := e.Summary()
	assert.Equal(t, 5, sum.Nodes)
	assert.Equal(t, 2, sum.NodePools)
	type count struct {
		code                    scheduling.ReasonCode
		taint, resource         string
		count, nodes, nodePools int
		needed, available       string
	}
	var got []count
	for _, g := range sum.Counts {
		c := count{code: g.Cause.Code, resource: g.Cause.Resource, count: g.Count, nodes: g.Nodes, nodePools: g.NodePools}
		if g.Cause.Taint != nil {
			c.taint = g.Cause.Taint.Key
		}
		if g.Cause.Needed != nil {
			c.needed, c.available = g.Cause.Needed.String(), g.Cause.Available.String()
		}
		assert.Empty(t, g.Cause.Node+g.Cause.NodePool, "a group has no object")
		got = append(got, c)
	}
	// Ties keep the order of first appearance: NodePools by weight, then nodes.
	assert.Equal(t, []count{
		{code: scheduling.ReasonUntoleratedTaint, taint: "team", count: 3, nodes: 2, nodePools: 1},
		{code: scheduling.ReasonInsufficientResource, resource: "cpu", count: 3, nodes: 3, needed: "1800m", available: "1500m"},
		{code: scheduling.ReasonNodePoolLimit, resource: "cpu", count: 1, nodePools: 1, needed: "2", available: "0"}, // the smallest type holding 1800m
	}, got)
	assert.Equal(t, sum.String(), e.Message(), "the message of a pod tried everywhere is its summary")
}

// TestReasonHostPortNotResources: a pod whose host port every instance type's DaemonSet
// binds is rejected for the port, not for resources (it fits them).
func TestReasonHostPortNotResources(t *testing.T) {
	ds := kcDS("proxy", "100m", "100Mi", func(spec *corev1.PodSpec) {
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolUDP}}
	})
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods: []*corev1.Pod{kcMut(fake.Pod("p").Obj(), func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{HostPort: 8080, Protocol: corev1.ProtocolUDP}}
		})},
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		DaemonSets:    []*appsv1.DaemonSet{ds},
	}), scheduling.Options{})
	require.Len(t, res.PodErrors, 1)
	c := res.PodErrors[0].Causes[0]
	assert.Equal(t, scheduling.ReasonHostPort, c.Code)
	assert.Equal(t, int32(8080), c.Port)
	assert.Equal(t, corev1.ProtocolUDP, c.Protocol)
}

// TestPropReasonsStructured: every pod error is data throughout. Its code is NoNodePool or
// its first cause's; causes name a NodePool of the input (or none, for a pod never tried);
// node causes name distinct nodes of the input, each with its own code, and only for a pod
// that was tried; an amount needed exceeds the one available; the summary counts every cause
// once; Reason is Message.
func TestPropReasonsStructured(t *testing.T) {
	known := map[scheduling.ReasonCode]bool{}
	for _, c := range []scheduling.ReasonCode{scheduling.ReasonUntoleratedTaint, scheduling.ReasonRequirementsUnsatisfiable, scheduling.ReasonInsufficientResource,
		scheduling.ReasonNodePoolLimit, scheduling.ReasonTopologySpread, scheduling.ReasonPodAffinity, scheduling.ReasonPodAntiAffinity, scheduling.ReasonHostPort,
		scheduling.ReasonVolumeTopology, scheduling.ReasonVolumeAttachLimit, scheduling.ReasonVolumeUnresolved, scheduling.ReasonOfferingUnavailable, scheduling.ReasonMinValues,
		scheduling.ReasonConsolidateAfter, scheduling.ReasonInvalidPodSpec, scheduling.ReasonNotProvisionable, scheduling.ReasonNodePoolNotReady, scheduling.ReasonNoNodePool} {
		known[c] = true
	}
	rapid.Check(t, func(t *rapid.T) {
		in, res := solve(t, scenarioGen().Draw(t, "scenario"))
		pools, nodes := map[string]bool{}, map[string]bool{}
		for _, np := range in.NodePools() {
			pools[np.Name] = true
		}
		for _, n := range in.Nodes() {
			nodes[n.Name()] = true
		}
		for _, e := range res.PodErrors {
			if len(e.Causes) == 0 {
				t.Fatalf("pod %s: no causes", e.Pod.Name)
			}
			if e.Code != scheduling.ReasonNoNodePool && e.Code != e.Causes[0].Code {
				t.Fatalf("pod %s: code %s, first cause %s", e.Pod.Name, e.Code, e.Causes[0].Code)
			}
			for _, c := range e.Causes {
				if !known[c.Code] || c.Node != "" || (c.NodePool != "" && !pools[c.NodePool]) {
					t.Fatalf("pod %s: bad NodePool cause %+v", e.Pod.Name, c)
				}
			}
			seen := map[string]bool{}
			for _, c := range e.NodeCauses {
				if !known[c.Code] || c.Code == scheduling.ReasonNoNodePool || !nodes[c.Node] || seen[c.Node] || c.NodePool != "" {
					t.Fatalf("pod %s: bad node cause %+v", e.Pod.Name, c)
				}
				seen[c.Node] = true
			}
			if len(e.NodeCauses) > 0 && e.Causes[0].NodePool == "" && e.Code != scheduling.ReasonNoNodePool {
				t.Fatalf("pod %s was never tried but has node causes: %+v", e.Pod.Name, e.NodeCauses)
			}
			for _, c := range append(append([]scheduling.Cause(nil), e.Causes...), e.NodeCauses...) {
				if c.Needed != nil && (c.Available == nil || c.Needed.Cmp(*c.Available) <= 0) {
					t.Fatalf("pod %s: %+v needs no more than is available", e.Pod.Name, c)
				}
			}
			sum, total := e.Summary(), 0
			for _, g := range sum.Counts {
				total += g.Count
			}
			if total != len(e.Causes)+len(e.NodeCauses) || sum.Nodes != len(e.NodeCauses) {
				t.Fatalf("pod %s: summary %+v counts %d of %d causes", e.Pod.Name, sum, total, len(e.Causes)+len(e.NodeCauses))
			}
		}
	})
}
