package fake

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

func TestPodBuilder(t *testing.T) {
	b := Pod("web-0").Namespace("prod").Label("app", "web").Requests("500m", "1Gi").
		NodeSelector(v1.LabelArch, "arm64").
		Tolerate("team", "a", corev1.TaintEffectNoSchedule).
		NodeRequirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z1", "z2").
		PreferredNodeRequirement(10, v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot").
		TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "web"}).
		PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).
		PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}).
		HostPort(8080)
	p := b.Obj()
	assert.Equal(t, "prod", p.Namespace)
	assert.Equal(t, "prod/web-0", string(p.UID))
	assert.Equal(t, "web", p.Labels["app"])
	cpu := p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	assert.True(t, cpu.Equal(resource.MustParse("500m")))
	assert.Equal(t, corev1.PodPending, p.Status.Phase)
	assert.Empty(t, p.Spec.NodeName)
	assert.Len(t, p.Spec.Tolerations, 1)
	assert.Len(t, p.Spec.TopologySpreadConstraints, 1)
	assert.Len(t, p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, 1)
	assert.Len(t, p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, 1)
	assert.Equal(t, int32(8080), p.Spec.Containers[0].Ports[0].HostPort)

	reqs, err := requirements.ForPodStrict(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"arm64"}, reqs.Get(v1.LabelArch).Values())
	assert.Equal(t, []string{"z1", "z2"}, reqs.Get(v1.LabelTopologyZone).Values())
	withPref, err := requirements.ForPod(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"spot"}, withPref.Get(v1.CapacityTypeLabelKey).Values())

	// Obj returns independent copies.
	p.Labels["app"] = "changed"
	assert.Equal(t, "web", b.Obj().Labels["app"])

	bound := Pod("x").NodeName("node-a").Obj()
	assert.Equal(t, "node-a", bound.Spec.NodeName)
	assert.Equal(t, corev1.PodRunning, bound.Status.Phase)
}

func TestNodePoolBuilder(t *testing.T) {
	np := NodePool("default").
		Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand").
		RequirementWithMinValues(v1.LabelInstanceType, corev1.NodeSelectorOpExists, 3).
		Taint("team", "a", corev1.TaintEffectNoSchedule).
		StartupTaint("init", "", corev1.TaintEffectNoExecute).
		Label("team", "a").Weight(50).Limit(corev1.ResourceCPU, "100").Limit("nodes", "10").
		Disruption(v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmpty}).
		Obj()
	assert.Equal(t, "default", np.Name)
	assert.Equal(t, "NodePool", np.Kind)
	require.Len(t, np.Spec.Template.Spec.Requirements, 2)
	assert.Equal(t, 3, *np.Spec.Template.Spec.Requirements[1].MinValues)
	assert.Len(t, np.Spec.Template.Spec.Taints, 1)
	assert.Len(t, np.Spec.Template.Spec.StartupTaints, 1)
	assert.Equal(t, "a", np.Spec.Template.ObjectMeta.Labels["team"])
	assert.Equal(t, int32(50), *np.Spec.Weight)
	nodes := np.Spec.Limits["nodes"]
	assert.Equal(t, int64(10), nodes.Value())
	assert.Equal(t, v1.ConsolidationPolicyWhenEmpty, np.Spec.Disruption.ConsolidationPolicy)
	assert.NotNil(t, np.Spec.Template.Spec.NodeClassRef)
	_, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
	assert.NoError(t, err)
}

func TestGeneratorsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := PodsGenerator(5).Draw(t, "pods")
		names := map[string]bool{}
		for _, p := range pods {
			if names[p.Name] {
				t.Fatalf("duplicate pod name %s", p.Name)
			}
			names[p.Name] = true
			if errs := validation.IsDNS1123Subdomain(p.Name); len(errs) > 0 {
				t.Fatalf("bad name: %v", errs)
			}
			if _, err := requirements.ForPod(p); err != nil {
				t.Fatalf("pod requirements: %v", err)
			}
			if p.Spec.NodeName != "" {
				t.Fatalf("generated pods are pending")
			}
		}
		_ = PodGenerator().Draw(t, "pod")
		for _, settings := range []NodePoolSettings{DefaultNodePoolSettings(), HostileNodePoolSettings()} {
			pools := NodePoolsGenerator(4, settings).Draw(t, "nodepools")
			seen := map[string]bool{}
			for _, np := range pools {
				if seen[np.Name] {
					t.Fatalf("two NodePools named %s", np.Name)
				}
				seen[np.Name] = true
				if _, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...); err != nil {
					t.Fatalf("nodepool requirements: %v", err)
				}
			}
		}
		its := InstanceTypesGenerator(4).Draw(t, "types")
		for _, it := range its {
			if len(it.Offerings) == 0 || len(it.Allocatable()) == 0 {
				t.Fatalf("bad instance type %s", it.Name)
			}
		}
	})
}
