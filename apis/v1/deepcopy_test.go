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

// assertAllSet fails for every exported field of this package's types, reachable from v,
// that holds its zero value.
func assertAllSet(t *testing.T, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			assertAllSet(t, v.Elem(), path)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			assertAllSet(t, v.Index(i), path+"[]")
		}
	case reflect.Struct:
		if v.Type().PkgPath() != reflect.TypeOf(NodePool{}).PkgPath() {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if v.Field(i).IsZero() {
				t.Errorf("%s.%s is not set in the fixture", path, f.Name)
			}
			assertAllSet(t, v.Field(i), path+"."+f.Name)
		}
	}
}

// assertNoSharedMemory fails where a and b (a deep copy of a) share a pointer, slice or map.
func assertNoSharedMemory(t *testing.T, a, b reflect.Value, path string) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: pointer shared", path)
		}
		assertNoSharedMemory(t, a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() == 0 {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: slice shared", path)
		}
		for i := 0; i < a.Len(); i++ {
			assertNoSharedMemory(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Map:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: map shared", path)
		}
		for _, k := range a.MapKeys() {
			assertNoSharedMemory(t, a.MapIndex(k), b.MapIndex(k), path+"[]")
		}
	case reflect.Interface:
		if !a.IsNil() {
			assertNoSharedMemory(t, a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(time.Time{}) {
			return // its *Location is shared by design
		}
		for i := 0; i < a.NumField(); i++ {
			assertNoSharedMemory(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	}
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
			assertNoSharedMemory(t, reflect.ValueOf(obj), reflect.ValueOf(c), reflect.TypeOf(obj).Elem().Name())
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
