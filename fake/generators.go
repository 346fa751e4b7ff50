package fake

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Vocabulary the generators draw from, so that drawn pods, NodePools and instance types
// refer to each other's labels.
var (
	genApps   = []string{"web", "db", "cache"}
	genZones  = []string{TestZone1, TestZone2, TestZone3}
	genArches = []string{v1.ArchitectureAmd64, v1.ArchitectureArm64}
	genTaints = []string{"team-a", "team-b"}
)

// PodGenerator draws valid pending pods named "pod-<n>" in namespace "default" with
// DefaultPodSettings: cpu 1m..4000m, memory 1Mi..8Gi, label app from {web, db, cache}, and
// optionally a zone or arch nodeSelector, a toleration of the team taint (key "team",
// NoSchedule), a required node requirement on the capacity type, a zone topology spread over
// the pod's app, a hostname anti-affinity against its app, and a host port. Every draw is
// labelled.
func PodGenerator() *rapid.Generator[*corev1.Pod] {
	return rapid.Custom(func(t *rapid.T) *corev1.Pod {
		return drawPodWith(t, fmt.Sprintf("pod-%d", rapid.IntRange(0, 9999).Draw(t, "index")), DefaultPodSettings())
	})
}

// PodsGenerator draws 0..max pods with unique names pod-0, pod-1, ... (see PodGenerator).
func PodsGenerator(max int) *rapid.Generator[[]*corev1.Pod] {
	return PodsGeneratorWith(max, "pod", DefaultPodSettings())
}

// NodePoolGenerator draws valid NodePools named "nodepool-<n>": optionally restricted to some
// zones, arches and capacity types, optionally tainted team=<team>:NoSchedule with a matching
// label, with a weight 0..100 and optionally a cpu limit.
func NodePoolGenerator() *rapid.Generator[*v1.NodePool] {
	return rapid.Custom(func(t *rapid.T) *v1.NodePool {
		b := NodePool(fmt.Sprintf("nodepool-%d", rapid.IntRange(0, 99).Draw(t, "index")))
		if rapid.Bool().Draw(t, "restrict-zones") {
			zones := rapid.SliceOfNDistinct(rapid.SampledFrom(genZones), 1, 3, rapid.ID[string]).Draw(t, "zones")
			b.Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...)
		}
		if rapid.Bool().Draw(t, "restrict-arch") {
			b.Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, rapid.SampledFrom(genArches).Draw(t, "arch"))
		}
		cts := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}), 1, 2, rapid.ID[string]).Draw(t, "capacity-types")
		b.Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...)
		if rapid.Bool().Draw(t, "tainted") {
			team := rapid.SampledFrom(genTaints).Draw(t, "team")
			b.Taint("team", team, corev1.TaintEffectNoSchedule).Label("team", team)
		}
		if w := rapid.IntRange(0, 100).Draw(t, "weight"); w > 0 {
			b.Weight(int32(w))
		}
		if rapid.Bool().Draw(t, "limited") {
			b.Limit(corev1.ResourceCPU, fmt.Sprint(rapid.IntRange(1, 1000).Draw(t, "cpu-limit")))
		}
		return b.Obj()
	})
}

// InstanceTypesGenerator draws 1..max instance types named "gen-it-<i>" with 1..64 CPUs,
// 1..256 GiB memory, 1..110 pods, an arch, and 1..5 offerings over test-zone-1..3 x
// {spot, on-demand} with prices 0.001..10 (some unavailable).
func InstanceTypesGenerator(max int) *rapid.Generator[cloudprovider.InstanceTypes] {
	return rapid.Custom(func(t *rapid.T) cloudprovider.InstanceTypes {
		n := rapid.IntRange(1, max).Draw(t, "instance-types")
		out := make(cloudprovider.InstanceTypes, 0, n)
		type place struct{ zone, ct string }
		var places []place
		for _, z := range genZones {
			for _, ct := range []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand} {
				places = append(places, place{z, ct})
			}
		}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("gen-it-%d", i)
			ps := rapid.SliceOfNDistinct(rapid.SampledFrom(places), 1, 5, func(p place) string { return p.zone + "/" + p.ct }).Draw(t, name+"/places")
			var ofs cloudprovider.Offerings
			for j, p := range ps {
				price := float64(rapid.IntRange(1, 10000).Draw(t, fmt.Sprintf("%s/price-%d", name, j))) / 1000
				ofs = append(ofs, cloudprovider.NewOffering(p.zone, p.ct, price,
					rapid.Float64Range(0, 1).Draw(t, fmt.Sprintf("%s/availability-%d", name, j)) < 0.9))
			}
			arch := rapid.SampledFrom(genArches).Draw(t, name+"/arch")
			cpu := rapid.IntRange(1, 64).Draw(t, name+"/cpu")
			memGi := rapid.IntRange(1, 256).Draw(t, name+"/memory-gi")
			pods := rapid.IntRange(1, 110).Draw(t, name+"/pods")
			out = append(out, linuxType(name, arch, cpu, memGi, pods, ofs))
		}
		return out
	})
}

// linuxType is a linux instance type of the generators: cpu CPUs, memGi GiB and room for
// pods pods.
func linuxType(name, arch string, cpu, memGi, pods int, ofs cloudprovider.Offerings) *cloudprovider.InstanceType {
	return NewInstanceType(InstanceTypeOptions{
		Name:             name,
		Architecture:     arch,
		OperatingSystems: []string{"linux"},
		Resources: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(memGi)<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
		},
		Offerings: ofs,
	})
}
