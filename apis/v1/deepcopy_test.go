package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/internal/deepcopytest"
)

var stamp = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

func fullTaints(key string) []corev1.Taint {
	return []corev1.Taint{{Key: key, Value: "v", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &stamp}}
}

func fullRequirements() []NodeSelectorRequirementWithMinValues {
	return []NodeSelectorRequirementWithMinValues{{Key: LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}, MinValues: ptr(2)}}
}

func fullConditions() []metav1.Condition {
	return []metav1.Condition{{Type: ConditionTypeReady, Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: stamp, Reason: "Ready", Message: "ok"}}
}

func fullObjectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"},
		Finalizers: []string{TerminationFinalizer}, CreationTimestamp: stamp, DeletionTimestamp: &stamp,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: APIVersion, Kind: KindNodePool, Name: "x", Controller: ptr(true)}}}
}

// fullNodePool sets every field of every type of this package that a NodePool holds;
// TestFixturesSetEveryField keeps it that way when fields are added.
func fullNodePool() *NodePool {
	return &NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindNodePool},
		ObjectMeta: fullObjectMeta("default"),
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "x"}},
				Spec: NodeClaimTemplateSpec{
					Taints:                 fullTaints("t"),
					StartupTaints:          fullTaints("s"),
					Requirements:           fullRequirements(),
					NodeClassRef:           &NodeClassReference{Group: "g", Kind: "K", Name: "n"},
					TerminationGracePeriod: &metav1.Duration{Duration: time.Hour},
					ExpireAfter:            MustParseNillableDuration("720h"),
				},
			},
			Disruption: Disruption{
				ConsolidateAfter:    MustParseNillableDuration("30s"),
				ConsolidationPolicy: ConsolidationPolicyWhenEmpty,
				Budgets: []Budget{{Reasons: []DisruptionReason{DisruptionReasonDrifted}, Nodes: "10%",
					Schedule: ptr("@daily"), Duration: &metav1.Duration{Duration: time.Hour}}},
			},
			Limits:   Limits{corev1.ResourceCPU: resource.MustParse("100"), "nodes": resource.MustParse("10")},
			Weight:   ptr[int32](10),
			Replicas: ptr[int64](3),
		},
		Status: NodePoolStatus{
			NodeClassObservedGeneration: 2,
			Resources:                   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")},
			Nodes:                       ptr[int64](2),
			Conditions:                  fullConditions(),
		},
	}
}

func fullNodeClaim() *NodeClaim {
	return &NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindNodeClaim},
		ObjectMeta: fullObjectMeta("default-x"),
		Spec: NodeClaimSpec{
			Taints:                 fullTaints("t"),
			StartupTaints:          fullTaints("s"),
			Requirements:           fullRequirements(),
			Resources:              ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
			NodeClassRef:           &NodeClassReference{Group: "g", Kind: "K", Name: "n"},
			TerminationGracePeriod: &metav1.Duration{Duration: time.Minute},
			ExpireAfter:            MustParseNillableDuration("24h"),
		},
		Status: NodeClaimStatus{
			NodeName:         "node",
			ProviderID:       "aws:///us-east-1a/i-1",
			ImageID:          "ami-1",
			Capacity:         corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Allocatable:      corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1900m")},
			Conditions:       fullConditions(),
			LastPodEventTime: stamp,
		},
	}
}

func assertAllSet(t *testing.T, v reflect.Value, path string) {
	deepcopytest.AssertAllSet(t, v, reflect.TypeOf(NodePool{}).PkgPath(), path)
}

func TestFixturesSetEveryField(t *testing.T) {
	assertAllSet(t, reflect.ValueOf(fullNodePool()), "NodePool")
	assertAllSet(t, reflect.ValueOf(fullNodeClaim()), "NodeClaim")
}

func TestDeepCopy(t *testing.T) {
	objects := []runtime.Object{
		fullNodePool(),
		fullNodeClaim(),
		&NodePoolList{TypeMeta: metav1.TypeMeta{Kind: KindNodePoolList}, ListMeta: metav1.ListMeta{ResourceVersion: "1", RemainingItemCount: ptr[int64](0)}, Items: []NodePool{*fullNodePool(), *fullNodePool()}},
		&NodeClaimList{TypeMeta: metav1.TypeMeta{Kind: KindNodeClaimList}, ListMeta: metav1.ListMeta{Continue: "c", RemainingItemCount: ptr[int64](1)}, Items: []NodeClaim{*fullNodeClaim()}},
	}
	for _, obj := range objects {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			c := obj.DeepCopyObject()
			require.IsType(t, obj, c)
			assert.Empty(t, cmp.Diff(obj, c))
			assert.True(t, reflect.DeepEqual(obj, c))
			deepcopytest.AssertNoSharedMemory(t, reflect.ValueOf(obj), reflect.ValueOf(c), reflect.TypeOf(obj).Elem().Name())
		})
	}
}

func TestDeepCopyMutationDoesNotLeak(t *testing.T) {
	np := fullNodePool()
	c := np.DeepCopy()
	c.Spec.Template.Spec.Requirements[0].Values[0] = "changed"
	*c.Spec.Template.Spec.Requirements[0].MinValues = 9
	c.Spec.Template.ObjectMeta.Labels["team"] = "changed"
	c.Spec.Disruption.Budgets[0].Reasons[0] = DisruptionReasonEmpty
	*c.Spec.Disruption.Budgets[0].Schedule = "@hourly"
	*c.Spec.Template.Spec.ExpireAfter.Duration = time.Second
	c.Spec.Template.Spec.ExpireAfter.Raw[1] = 'X'
	c.Spec.Limits[corev1.ResourceCPU] = resource.MustParse("1")
	c.Spec.Template.Spec.NodeClassRef.Name = "changed"
	assert.Empty(t, cmp.Diff(fullNodePool(), np))
}

func TestDeepCopyNil(t *testing.T) {
	assert.Nil(t, (*NodePool)(nil).DeepCopy())
	assert.Nil(t, (*NodeClaim)(nil).DeepCopy())
	assert.Nil(t, (*NodePool)(nil).DeepCopyObject())
	assert.Nil(t, (*NodeClaimList)(nil).DeepCopyObject())
	assert.Empty(t, cmp.Diff(&NodePool{}, (&NodePool{}).DeepCopy()))
}

// TestFullObjectsRoundTrip checks that every field survives JSON and YAML encoding.
func TestFullObjectsRoundTrip(t *testing.T) {
	for _, obj := range []any{fullNodePool(), fullNodeClaim()} {
		b, err := yaml.Marshal(obj)
		require.NoError(t, err)
		back := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
		require.NoError(t, yaml.UnmarshalStrict(b, back), "%s", b)
		assert.Empty(t, cmp.Diff(obj, back))

		j, err := json.Marshal(obj)
		require.NoError(t, err)
		j2, err := json.Marshal(back)
		require.NoError(t, err)
		assert.Equal(t, string(j), string(j2))
	}
	// An empty NodeClaim status (zero lastPodEventTime) is left out.
	nc := validNodeClaim()
	b, err := json.Marshal(nc)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "status")
	assert.NotContains(t, string(b), "lastPodEventTime")
	assert.NotContains(t, string(b), "resources")
}
