package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestReasonCodes: one input per code; the pod's error carries the code, and its first
// cause names the NodePool and key the reason is about.
func TestReasonCodes(t *testing.T) {
	pool := func() *fake.NodePoolBuilder { return fake.NodePool("default") }
	unavailable := fake.NewInstanceType(fake.InstanceTypeOptions{
		Name:      "gone",
		Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("10")},
		Offerings: cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.1, false)},
	})
	notReady := pool().Obj()
	notReady.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}
	withPVC := fake.Pod("p").Requests("1", "1Gi").Obj()
	withPVC.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "missing"}}}}
	daemon := fake.Pod("p").Requests("100m", "100Mi").Obj()
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent"}}
	cases := []struct {
		name      string
		pod       *corev1.Pod
		pools     []*v1.NodePool // nil: one plain NodePool "default"
		types     cloudprovider.InstanceTypes
		code      scheduling.ReasonCode
		causeCode scheduling.ReasonCode // "": same as code
		nodePool  string
		key       string
		resource  string
	}{
		{name: "taint", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{pool().Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj()},
			code: scheduling.UntoleratedTaint, nodePool: "default"},
		{name: "requirements", pod: fake.Pod("p").NodeSelector(v1.LabelArch, "arm64").Obj(), pools: []*v1.NodePool{pool().Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64").Obj()},
			code: scheduling.RequirementsUnsatisfiable, nodePool: "default"},
		{name: "resources", pod: fake.Pod("p").Requests("100", "1Gi").Obj(),
			code: scheduling.InsufficientResource, nodePool: "default", resource: "cpu"},
		{name: "memory", pod: fake.Pod("p").Requests("1", "1Ti").Obj(),
			code: scheduling.InsufficientResource, nodePool: "default", resource: "memory"},
		{name: "limits", pod: fake.Pod("p").Requests("500m", "1Gi").Obj(), pools: []*v1.NodePool{pool().Limit(corev1.ResourceCPU, "0").Obj()},
			code: scheduling.NodePoolLimit, nodePool: "default", resource: "cpu"},
		{name: "topology", pod: fake.Pod("p").PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "nobody"}).Obj(),
			code: scheduling.TopologyUnsatisfiable, nodePool: "default", key: v1.LabelTopologyZone},
		{name: "minValues", pod: fake.Pod("p").Requests("2500m", "1Gi").Obj(), pools: []*v1.NodePool{pool().RequirementWithMinValues(v1.LabelInstanceType, corev1.NodeSelectorOpExists, 3).Obj()},
			code: scheduling.MinValues, nodePool: "default", key: v1.LabelInstanceType},
		{name: "volume", pod: withPVC, code: scheduling.VolumeUnresolved},
		{name: "invalid spec", pod: fake.Pod("Bad_Name").Obj(), code: scheduling.InvalidPodSpec},
		{name: "daemonset", pod: daemon, code: scheduling.NotProvisionable},
		{name: "no NodePool", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{}, code: scheduling.NoNodePool},
		{name: "not ready", pod: fake.Pod("p").Obj(), pools: []*v1.NodePool{notReady},
			code: scheduling.NoNodePool, causeCode: scheduling.NodePoolNotReady, nodePool: "default"},
		{name: "offerings", pod: fake.Pod("p").Obj(), types: cloudprovider.InstanceTypes{unavailable},
			code: scheduling.NoNodePool, causeCode: scheduling.OfferingUnavailable, nodePool: "default"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pools, types := c.pools, c.types
			if pools == nil {
				pools = []*v1.NodePool{pool().Obj()}
			}
			if types == nil {
				types = fake.InstanceTypes(4)
			}
			res := mustSolve(t, &scheduling.Input{Pods: []*corev1.Pod{c.pod}, NodePools: pools, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}})
			require.Len(t, res.PodErrors, 1)
			e := res.PodErrors[0]
			assert.Equal(t, c.code, e.Code, e.Reason)
			require.NotEmpty(t, e.Causes)
			want := c.causeCode
			if want == "" {
				want = c.code
			}
			first := e.Causes[0]
			assert.Equal(t, want, first.Code, first.Reason)
			assert.Equal(t, c.nodePool, first.NodePool)
			assert.Equal(t, c.key, first.Key)
			assert.Equal(t, c.resource, first.Resource)
			assert.Contains(t, e.Reason, first.Reason, "the English reason is built from its causes")
		})
	}
}

// TestReasonCausePerNodePool: a pod every NodePool rejects has one cause per NodePool, in
// weight order, each with its own code.
func TestReasonCausePerNodePool(t *testing.T) {
	res := mustSolve(t, &scheduling.Input{
		Pods: []*corev1.Pod{fake.Pod("p").Requests("100", "1Gi").Obj()},
		NodePools: []*v1.NodePool{
			fake.NodePool("tainted").Weight(10).Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj(),
			fake.NodePool("small").Obj(),
		},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"tainted": fake.InstanceTypes(4), "small": fake.InstanceTypes(4)},
	})
	require.Len(t, res.PodErrors, 1)
	e := res.PodErrors[0]
	assert.Equal(t, scheduling.UntoleratedTaint, e.Code)
	require.Len(t, e.Causes, 2)
	assert.Equal(t, []string{"tainted", "small"}, []string{e.Causes[0].NodePool, e.Causes[1].NodePool})
	assert.Equal(t, []scheduling.ReasonCode{scheduling.UntoleratedTaint, scheduling.InsufficientResource}, []scheduling.ReasonCode{e.Causes[0].Code, e.Causes[1].Code})
	assert.Equal(t, e.Causes[0].Reason+"; "+e.Causes[1].Reason, e.Reason)
}
