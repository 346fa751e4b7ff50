package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

func TestReservedCapacityIsLimited(t *testing.T) {
	small := fake.NewInstanceType(fake.InstanceTypeOptions{
		Name:      "small",
		Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("10")},
		Offerings: cloudprovider.Offerings{
			cloudprovider.NewReservedOffering(fake.TestZone1, "cr-1", 0.01, 2),
			cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.10, true),
		},
	})
	var pods []*corev1.Pod
	for _, n := range []string{"a", "b", "c"} {
		pods = append(pods, fake.Pod(n).Label("app", "x").PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "x"}).Requests("1", "1Gi").Obj())
	}
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods:          pods,
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": {small}},
	}), scheduling.Options{})
	require.Len(t, res.NewNodeClaims, 3)
	var reserved, onDemand int
	for _, c := range res.NewNodeClaims {
		switch c.Offering.CapacityType() {
		case v1.CapacityTypeReserved:
			reserved++
			assert.Equal(t, "cr-1", c.Offering.ReservationID())
			assert.Equal(t, []string{"cr-1"}, c.Requirements.Get(cloudprovider.ReservationIDLabel).Values())
			assert.Equal(t, []string{v1.CapacityTypeReserved}, c.Requirements.Get(v1.CapacityTypeLabelKey).Values())
		case v1.CapacityTypeOnDemand:
			onDemand++
			assert.False(t, c.Requirements.Get(v1.CapacityTypeLabelKey).Has(v1.CapacityTypeReserved), "a claim without a reservation may not launch reserved capacity")
		}
	}
	assert.Equal(t, 2, reserved, "the reservation has room for two instances")
	assert.Equal(t, 1, onDemand)
}

func TestMinValues(t *testing.T) {
	np := fake.NodePool("default").RequirementWithMinValues(v1.LabelInstanceType, corev1.NodeSelectorOpExists, 3).Obj()
	types := fake.InstanceTypes(4)                      // 1, 2, 3, 4 vCPU
	pod := fake.Pod("p").Requests("2500m", "1Gi").Obj() // only the 3 and 4 vCPU types fit
	t.Run("strict leaves the pod unscheduled", func(t *testing.T) {
		res := mustSolve(t, snapOf(t, cluster.Objects{Pods: []*corev1.Pod{pod}, NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}), scheduling.Options{})
		require.Len(t, res.PodErrors, 1)
		assert.Equal(t, scheduling.ReasonMinValues, res.PodErrors[0].Code, res.PodErrors[0].Message())
		assert.Equal(t, v1.LabelInstanceType, res.PodErrors[0].Causes[0].Key)
	})
	t.Run("best effort lowers minValues and says so", func(t *testing.T) {
		res := mustSolve(t, snapOf(t, cluster.Objects{Pods: []*corev1.Pod{pod}, NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}),
			scheduling.Options{MinValuesPolicy: scheduling.MinValuesBestEffort})
		require.Empty(t, res.PodErrors)
		require.Len(t, res.NewNodeClaims, 1)
		c := res.NewNodeClaims[0]
		assert.True(t, c.MinValuesRelaxed)
		assert.Equal(t, 2, c.Requirements.Get(v1.LabelInstanceType).MinValues())
		assert.Len(t, c.InstanceTypeOptions, 2)
	})
	t.Run("satisfied minValues keeps enough options", func(t *testing.T) {
		small := fake.Pod("s").Requests("500m", "1Gi").Obj()
		res := mustSolve(t, snapOf(t, cluster.Objects{Pods: []*corev1.Pod{small}, NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}), scheduling.Options{})
		require.Len(t, res.NewNodeClaims, 1)
		assert.GreaterOrEqual(t, len(res.NewNodeClaims[0].InstanceTypeOptions), 3)
		assert.Equal(t, 3, res.NewNodeClaims[0].Requirements.Get(v1.LabelInstanceType).MinValues())
	})
}

func node(name string, cpu string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, v1.LabelTopologyZone: fake.TestZone1, v1.LabelArch: "amd64", v1.LabelOS: "linux",
			v1.NodePoolLabelKey: "default", v1.NodeInitializedLabelKey: "true", v1.CapacityTypeLabelKey: v1.CapacityTypeOnDemand}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("50")}},
	}
}

func TestNodeMarkedForDeletion(t *testing.T) {
	owned := func(p *corev1.Pod, kind string) *corev1.Pod {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: "owner", Controller: &yes}}
		return p
	}
	draining := &cluster.Node{Node: node("old", "8"), Pods: []*corev1.Pod{
		owned(fake.Pod("app").Label("app", "web").Requests("1", "1Gi").NodeName("old").Obj(), "ReplicaSet"),
		owned(fake.Pod("agent").Requests("100m", "100Mi").NodeName("old").Obj(), "DaemonSet"),
		owned(fake.Pod("guarded").Label("app", "db").Requests("1", "1Gi").NodeName("old").Obj(), "StatefulSet"),
	}}
	zero := intstr.FromInt32(0)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods:                 []*corev1.Pod{fake.Pod("new").Requests("1", "1Gi").Obj()},
		NodePools:            []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:        map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(4)},
		PodDisruptionBudgets: []*policyv1.PodDisruptionBudget{pdb},
	}, draining, &cluster.Node{Node: node("spare", "4")}).Deleting("old"), scheduling.Options{})
	require.Empty(t, res.PodErrors)
	assert.Empty(t, res.NewNodeClaims, "the spare node takes both pods")
	var names []string
	for _, b := range res.Bindings {
		assert.Equal(t, "spare", b.To)
		names = append(names, b.Pod.Name)
	}
	assert.ElementsMatch(t, []string{"new", "app"}, names, "the DaemonSet pod stays, the PDB-guarded pod is not evicted")
}

func TestRefusedPods(t *testing.T) {
	notKarpenter := fake.Pod("controller").NodeRequirement(v1.NodePoolLabelKey, corev1.NodeSelectorOpDoesNotExist).Obj()
	badCapacity := fake.Pod("odd").NodeSelector(v1.CapacityTypeLabelKey, "preemptible").Obj()
	hostname := fake.Pod("pinned").NodeSelector(v1.LabelHostname, "red-node").Obj()
	ok := fake.Pod("fine").Requests("1", "1Gi").Obj()
	daemon := fake.Pod("daemon").Requests("100m", "100Mi").Obj()
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent"}}
	snap := snapOf(t, cluster.Objects{
		Pods:          []*corev1.Pod{notKarpenter, badCapacity, hostname, daemon, ok},
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)},
	})
	// A pending DaemonSet pod is the DaemonSet controller's: the snapshot does not plan it;
	// handed to Solve as a moved pod, it is refused.
	require.Len(t, snap.NotPlanned(), 1)
	assert.Equal(t, cluster.NotPlanned{Pod: daemon, Reason: cluster.NotPlannedDaemonSetPod}, snap.NotPlanned()[0])
	res := mustSolve(t, snap.WithMoving(daemon), scheduling.Options{})
	reasons := map[string]string{}
	codes := map[string]scheduling.ReasonCode{}
	for _, e := range res.PodErrors {
		reasons[e.Pod.Name] = e.Causes[0].Detail
		codes[e.Pod.Name] = e.Code
	}
	assert.Equal(t, map[string]scheduling.ReasonCode{
		"controller": scheduling.ReasonNotProvisionable, "odd": scheduling.ReasonNotProvisionable,
		"pinned": scheduling.ReasonInvalidPodSpec, "daemon": scheduling.ReasonNotProvisionable,
	}, codes, reasons)
	assert.Contains(t, reasons["odd"], "preemptible")
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "fine", res.NewNodeClaims[0].Pods[0].Name)
}

func TestNotReadyNodePoolIsSkipped(t *testing.T) {
	broken := fake.NodePool("a-broken").Weight(100).Obj()
	broken.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods:          []*corev1.Pod{fake.Pod("p").Requests("1", "1Gi").Obj()},
		NodePools:     []*v1.NodePool{broken, fake.NodePool("b-ok").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"a-broken": fake.InstanceTypes(2), "b-ok": fake.InstanceTypes(2)},
	}), scheduling.Options{})
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "b-ok", res.NewNodeClaims[0].NodePool)
}

func TestCacheChangesNothing(t *testing.T) {
	snap := snapOf(t, benchmarkObjects(500), &cluster.Node{Node: node("spare", "4"), Pods: []*corev1.Pod{fake.Pod("bound").Label("my-label", "a").Requests("1", "1Gi").NodeName("spare").Obj()}})
	render := func(res *scheduling.Result) []string {
		var out []string
		for _, c := range res.NewNodeClaims {
			for _, p := range c.Pods {
				out = append(out, p.Name+"@"+c.Hostname+"/"+c.InstanceType.Name)
			}
		}
		for _, b := range res.Bindings {
			out = append(out, b.Pod.Name+"@"+b.To)
		}
		return out
	}
	want := render(mustSolve(t, snap, scheduling.Options{}))
	cache := scheduling.NewCache()
	cached := func() *scheduling.Result {
		res, err := solveVerified(t, cache, snap, scheduling.Options{})
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, want, render(cached()), "first Solve with a cache")
	assert.Equal(t, want, render(cached()), "second Solve, from the cache")
}

func TestPodSelectsAReservation(t *testing.T) {
	small := fake.NewInstanceType(fake.InstanceTypeOptions{
		Name:      "small",
		Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("10")},
		Offerings: cloudprovider.Offerings{
			cloudprovider.NewReservedOffering(fake.TestZone1, "cr-1", 0.01, 5),
			cloudprovider.NewReservedOffering(fake.TestZone2, "cr-2", 0.01, 5),
			cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.10, true),
		},
	})
	pod := fake.Pod("p").NodeSelector(cloudprovider.ReservationIDLabel, "cr-2").Requests("1", "1Gi").Obj()
	res := mustSolve(t, snapOf(t, cluster.Objects{
		Pods:            []*corev1.Pod{pod},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": {small}},
		WellKnownLabels: cloudprovider.AllowUndefinedWellKnownLabels(),
	}), scheduling.Options{})
	require.Len(t, res.NewNodeClaims, 1, "%v", res.PodErrors)
	assert.Equal(t, "cr-2", res.NewNodeClaims[0].Offering.ReservationID())
	assert.Equal(t, fake.TestZone2, res.NewNodeClaims[0].Offering.Zone())
}
