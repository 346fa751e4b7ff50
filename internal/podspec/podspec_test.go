package podspec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// TestValidSpecsPass: what the API server accepts, Check accepts.
func TestValidSpecsPass(t *testing.T) {
	two := int32(2)
	honor := corev1.NodeInclusionPolicyHonor
	secs := int64(30)
	spec := &corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), "hugepages-2Mi": resource.MustParse("1Gi"), "nvidia.com/gpu": resource.MustParse("1")},
			Limits:   corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
			{MaxSkew: 1, MinDomains: &two, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule, NodeAffinityPolicy: &honor},
			{MaxSkew: 3, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway},
		},
		Tolerations: []corev1.Toleration{
			{Operator: corev1.TolerationOpExists},
			{Key: "k", Value: "v"},
			{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs},
		},
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname"}}}}},
	}
	assert.NoError(t, Check("spec", spec))
	assert.NoError(t, Check("spec", &corev1.PodSpec{}))
	assert.NoError(t, CheckName("web-0.a"))
	assert.NoError(t, CheckNamespace("kube-system"))
}

func TestInvalidSpecsNameTheField(t *testing.T) {
	for want, spec := range map[string]*corev1.PodSpec{
		"spec.tolerations[0].operator: must be Exists when key is empty": {Tolerations: []corev1.Toleration{{Value: "v"}}},
		"spec.tolerations[0].effect: \"Never\"":                          {Tolerations: []corev1.Toleration{{Key: "k", Effect: "Never"}}},
		"spec.overhead: \"pods\" is not a resource name":                 {Overhead: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}},
		"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0": {Affinity: &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "k"}}}}}},
	} {
		err := Check("spec", spec)
		if assert.Error(t, err, want) {
			assert.Contains(t, err.Error(), want)
		}
	}
}

// TestFastNameChecksAgreeWithValidation: the fast paths accept exactly what the validation
// package accepts.
func TestFastNameChecksAgreeWithValidation(t *testing.T) {
	for _, s := range []string{"", "a", "web-0", "web-0.a", "-a", "a-", "a..b", ".a", "a.", "A", "a_b", "a.-b", "a-.b",
		"ip-10-0-0-1.ec2.internal", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254), "0", "a/b"} {
		assert.Equal(t, len(validation.IsDNS1123Subdomain(s)) == 0, isDNS1123Subdomain(s), "subdomain %q", s)
		assert.Equal(t, len(validation.IsDNS1123Label(s)) == 0, isDNS1123Label(s), "label %q", s)
	}
	for k := range commonTopologyKeys {
		assert.Empty(t, validation.IsQualifiedName(k), k)
	}
}

func TestQuantitiesNameTheField(t *testing.T) {
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init"}},
		Containers: []corev1.Container{{Name: "a"}, {Name: "b", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("-1")}}}},
	}
	assert.EqualError(t, Check("spec", spec), "spec.containers[1].resources.requests.memory: -1: must not be negative")
	spec.Containers[1].Resources.Requests = nil
	spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1e30")}
	assert.ErrorContains(t, Check("spec", spec), "spec.overhead.cpu: 1e30")
	spec.Overhead = nil
	spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1e30")}}
	assert.ErrorContains(t, Check("spec", spec), "spec.resources.limits.memory: 1e30")
	spec.Resources = nil
	spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1")}}}}}
	assert.ErrorContains(t, Check("spec", spec), "spec.ephemeralContainers[0].resources.requests.cpu: -1")
	spec.EphemeralContainers = nil
	assert.NoError(t, Check("spec", spec))
}
