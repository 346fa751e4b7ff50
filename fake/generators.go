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

// NodePoolSettings are the probabilities (0..1) with which a drawn NodePool carries each
// restriction (see chance), and the bounds of its cpu limit.
type NodePoolSettings struct {
	// RestrictZones keeps it to 1..3 of the test zones, RestrictArch to one arch,
	// OneCapacityType to one of spot and on-demand (else both).
	RestrictZones, RestrictArch, OneCapacityType float64
	// Tainted taints it team=<team>:NoSchedule (with a matching label); pods without the
	// toleration cannot use it.
	Tainted float64
	// Weighted gives it a weight 1..100; Limited a cpu limit of MinCPULimit..MaxCPULimit
	// cores (0: 100 and 1000).
	Weighted, Limited        float64
	MinCPULimit, MaxCPULimit int
}

// DefaultNodePoolSettings keep most NodePools open to most pods: a fifth restrict zones or
// arch, a third one capacity type, a tenth are tainted, a fifth limited to 100..1000 cores,
// half weighted.
func DefaultNodePoolSettings() NodePoolSettings {
	return NodePoolSettings{RestrictZones: 0.2, RestrictArch: 0.2, OneCapacityType: 0.3, Tainted: 0.1, Weighted: 0.5, Limited: 0.2}
}

// HostileNodePoolSettings are for properties that want pods refused, as the generator's old
// defaults did (about two thirds of the pods unplaced): most NodePools restricted, tainted
// and limited, cpu limits from 1 core.
func HostileNodePoolSettings() NodePoolSettings {
	return NodePoolSettings{RestrictZones: 0.7, RestrictArch: 0.7, OneCapacityType: 0.7, Tainted: 0.7, Weighted: 0.5, Limited: 0.7,
		MinCPULimit: 1, MaxCPULimit: 1000}
}

// NodePoolsGenerator draws 1..most valid NodePools named nodepool-0, nodepool-1, ... (never
// two of one name) with the settings' probabilities; each is logged with Describe.
func NodePoolsGenerator(most int, s NodePoolSettings) *rapid.Generator[[]*v1.NodePool] {
	return rapid.Custom(func(t *rapid.T) []*v1.NodePool {
		n := rapid.IntRange(1, max(most, 1)).Draw(t, "nodepools")
		out := make([]*v1.NodePool, 0, n)
		for i := range n {
			out = append(out, drawNodePool(t, fmt.Sprintf("nodepool-%d", i), s))
		}
		return out
	})
}

// NodePoolGenerator draws one valid NodePool named name with the settings' probabilities
// (NodePoolsGenerator draws several of distinct names).
func NodePoolGenerator(name string, s NodePoolSettings) *rapid.Generator[*v1.NodePool] {
	return rapid.Custom(func(t *rapid.T) *v1.NodePool { return drawNodePool(t, name, s) })
}

func drawNodePool(t *rapid.T, name string, s NodePoolSettings) *v1.NodePool {
	b := NodePool(name)
	if chance(t, s.RestrictZones, name+"/restrict-zones") {
		zones := rapid.SliceOfNDistinct(rapid.SampledFrom(genZones), 1, 3, rapid.ID[string]).Draw(t, name+"/zones")
		b.Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...)
	}
	if chance(t, s.RestrictArch, name+"/restrict-arch") {
		b.Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, rapid.SampledFrom(genArches).Draw(t, name+"/arch"))
	}
	cts := []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}
	if chance(t, s.OneCapacityType, name+"/one-capacity-type") {
		cts = []string{rapid.SampledFrom(cts).Draw(t, name+"/capacity-type")}
	}
	b.Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...)
	if chance(t, s.Tainted, name+"/tainted") {
		team := rapid.SampledFrom(genTaints).Draw(t, name+"/team")
		b.Taint("team", team, corev1.TaintEffectNoSchedule).Label("team", team)
	}
	if chance(t, s.Weighted, name+"/weighted") {
		b.Weight(int32(rapid.IntRange(1, 100).Draw(t, name+"/weight")))
	}
	if chance(t, s.Limited, name+"/limited") {
		lo, hi := s.MinCPULimit, s.MaxCPULimit
		if lo <= 0 {
			lo = 100
		}
		if hi < lo {
			hi = max(lo, 1000)
		}
		b.Limit(corev1.ResourceCPU, fmt.Sprint(rapid.IntRange(lo, hi).Draw(t, name+"/cpu-limit")))
	}
	np := b.Obj()
	t.Logf("%s", Describe(np))
	return np
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
			t.Logf("%s", Describe(out[len(out)-1]))
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
