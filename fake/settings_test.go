package fake

import (
	"testing"

	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

func TestGeneratorsWithSettings(t *testing.T) {
	all := PodSettings{ZoneSelector: 1, ArchSelector: 1, Toleration: 1, CapacityTypeRequirement: 1, ZoneSpread: 1,
		HostnameSpread: 1, MinDomains: 1, HonorTaints: 1, IgnoreAffinity: 1, ZoneAffinity: 1, HostnameAntiAffinity: 1,
		ZoneAntiAffinity: 1, HostPort: 1}
	rapid.Check(t, func(t *rapid.T) {
		pods := PodsGeneratorWith(5, "p", all).Draw(t, "pods")
		for i, p := range pods {
			if want := "p-" + string(rune('0'+i)); p.Name != want {
				t.Fatalf("name %s, want %s", p.Name, want)
			}
			if _, err := requirements.ForPod(p); err != nil {
				t.Fatal(err)
			}
			if len(p.Spec.TopologySpreadConstraints) != 2 || p.Spec.TopologySpreadConstraints[0].MinDomains == nil ||
				p.Spec.Affinity.PodAffinity == nil || len(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 2 {
				t.Fatalf("probability 1 must give every constraint: %+v", p.Spec)
			}
		}
		for _, p := range PodsGeneratorWith(3, "q", PodSettings{}).Draw(t, "bare") {
			if p.Spec.Affinity != nil || len(p.Spec.TopologySpreadConstraints) > 0 || len(p.Spec.NodeSelector) > 0 {
				t.Fatalf("probability 0 must give none: %+v", p.Spec)
			}
		}
		types := InstanceTypesGenerator(3).Draw(t, "types")
		n := NodeGenerator("n", "pool", types).Draw(t, "node")
		if n.Labels[v1.NodePoolLabelKey] != "pool" || n.Labels[v1.LabelTopologyZone] == "" || n.Labels[v1.LabelInstanceType] == "" || n.Status.Allocatable.Cpu().IsZero() {
			t.Fatalf("node labels or allocatable missing: %v %v", n.Labels, n.Status.Allocatable)
		}
		ds := DaemonSetGenerator("ds").Draw(t, "ds")
		if ds.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().IsZero() {
			t.Fatal("DaemonSet without requests")
		}
	})
}
