package fake

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// PodSettings are the probabilities (0..1) with which a drawn pod carries each constraint
// (somewhat less in practice: rapid's draws lean towards the pod without it).
// Constraints over the pod's app select the pods of the same app, so pods with and without
// a constraint mix in one group.
type PodSettings struct {
	ZoneSelector, ArchSelector, Toleration, CapacityTypeRequirement float64
	// ZoneSpread and HostnameSpread are DoNotSchedule spreads over the pod's app (maxSkew
	// 1..3); given one, MinDomains sets minDomains 2..4, HonorTaints sets nodeTaintsPolicy
	// Honor and IgnoreAffinity nodeAffinityPolicy Ignore.
	ZoneSpread, HostnameSpread, MinDomains, HonorTaints, IgnoreAffinity float64
	// ZoneAffinity is a required zone affinity to the pod's app; HostnameAntiAffinity and
	// ZoneAntiAffinity required anti-affinities to it.
	ZoneAffinity, HostnameAntiAffinity, ZoneAntiAffinity float64
	HostPort                                             float64
	// MaxCPUMillis and MaxMemoryMi bound the requests (0: 4000m and 8192Mi).
	MaxCPUMillis, MaxMemoryMi int
}

// DefaultPodSettings are PodGenerator's probabilities, chosen so that over the default
// generators (InstanceTypesGenerator, NodePoolsGenerator with DefaultNodePoolSettings) most
// pods can be placed, while every constraint still comes up: a fifth of pods select a
// zone, an arch or a capacity type or have a hostname anti-affinity or a host port, a
// quarter spread over zones, half tolerate the team taint.
func DefaultPodSettings() PodSettings {
	return PodSettings{ZoneSelector: 0.2, ArchSelector: 0.2, Toleration: 0.5, CapacityTypeRequirement: 0.2,
		ZoneSpread: 0.25, HostnameAntiAffinity: 0.2, HostPort: 0.2}
}

// HostilePodSettings are the old defaults, for properties that want pods refused: one half
// for each of PodGenerator's constraints.
func HostilePodSettings() PodSettings {
	return PodSettings{ZoneSelector: 0.5, ArchSelector: 0.5, Toleration: 0.5, CapacityTypeRequirement: 0.5,
		ZoneSpread: 0.5, HostnameAntiAffinity: 0.5, HostPort: 0.5}
}

// PodsGeneratorWith draws 0..max pods named prefix-0, prefix-1, ... with the settings'
// probabilities; every draw is labelled.
func PodsGeneratorWith(max int, prefix string, s PodSettings) *rapid.Generator[[]*corev1.Pod] {
	return rapid.Custom(func(t *rapid.T) []*corev1.Pod {
		n := rapid.IntRange(0, max).Draw(t, prefix+"/pods")
		out := make([]*corev1.Pod, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, drawPodWith(t, fmt.Sprintf("%s-%d", prefix, i), s))
		}
		return out
	})
}

// chance draws whether an event of probability p happens (no draw when p is 0 or 1). The
// event is the high end of the draw: rapid favours small values and shrinks towards them,
// so that failures shrink to pods without the constraint.
func chance(t *rapid.T, p float64, label string) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return rapid.IntRange(0, 9999).Draw(t, label) >= int(10000*(1-p))
}

func drawPodWith(t *rapid.T, name string, s PodSettings) *corev1.Pod {
	app := rapid.SampledFrom(genApps).Draw(t, name+"/app")
	sel := map[string]string{"app": app}
	maxCPU, maxMem := s.MaxCPUMillis, s.MaxMemoryMi
	if maxCPU <= 0 {
		maxCPU = 4000
	}
	if maxMem <= 0 {
		maxMem = 8192
	}
	b := Pod(name).Label("app", app).
		Request(corev1.ResourceCPU, fmt.Sprintf("%dm", rapid.IntRange(1, maxCPU).Draw(t, name+"/cpu-millis"))).
		Request(corev1.ResourceMemory, fmt.Sprintf("%dMi", rapid.IntRange(1, maxMem).Draw(t, name+"/memory-mi")))
	if chance(t, s.ZoneSelector, name+"/zone-selector") {
		b.NodeSelector(v1.LabelTopologyZone, rapid.SampledFrom(genZones).Draw(t, name+"/zone"))
	}
	if chance(t, s.ArchSelector, name+"/arch-selector") {
		b.NodeSelector(v1.LabelArch, rapid.SampledFrom(genArches).Draw(t, name+"/arch"))
	}
	if chance(t, s.Toleration, name+"/tolerates-team") {
		b.Tolerate("team", rapid.SampledFrom(genTaints).Draw(t, name+"/team"), corev1.TaintEffectNoSchedule)
	}
	if chance(t, s.CapacityTypeRequirement, name+"/capacity-type-requirement") {
		b.NodeRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn,
			rapid.SampledFrom([]string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}).Draw(t, name+"/capacity-type"))
	}
	for _, sp := range []struct {
		key string
		p   float64
	}{{v1.LabelTopologyZone, s.ZoneSpread}, {v1.LabelHostname, s.HostnameSpread}} {
		label := name + "/spread-" + sp.key
		if !chance(t, sp.p, label) {
			continue
		}
		c := corev1.TopologySpreadConstraint{MaxSkew: int32(rapid.IntRange(1, 3).Draw(t, label+"/max-skew")),
			TopologyKey: sp.key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}}
		if chance(t, s.MinDomains, label+"/min-domains?") {
			md := int32(rapid.IntRange(2, 4).Draw(t, label+"/min-domains"))
			c.MinDomains = &md
		}
		if chance(t, s.HonorTaints, label+"/honor-taints") {
			honor := corev1.NodeInclusionPolicyHonor
			c.NodeTaintsPolicy = &honor
		}
		if chance(t, s.IgnoreAffinity, label+"/ignore-affinity") {
			ignore := corev1.NodeInclusionPolicyIgnore
			c.NodeAffinityPolicy = &ignore
		}
		b.TopologySpreadConstraint(c)
	}
	if chance(t, s.ZoneAffinity, name+"/zone-affinity") {
		b.PodAffinity(v1.LabelTopologyZone, sel)
	}
	if chance(t, s.HostnameAntiAffinity, name+"/hostname-anti-affinity") {
		b.PodAntiAffinity(v1.LabelHostname, sel)
	}
	if chance(t, s.ZoneAntiAffinity, name+"/zone-anti-affinity") {
		b.PodAntiAffinity(v1.LabelTopologyZone, sel)
	}
	if chance(t, s.HostPort, name+"/host-port") {
		b.HostPort(int32(rapid.IntRange(8000, 8003).Draw(t, name+"/port")))
	}
	p := b.Obj()
	t.Logf("%s", Describe(p))
	return p
}

// NodeGenerator draws an existing, initialized node named name of NodePool pool ("" for
// none), launched on one of types in one of its offerings: labelled like a node of that
// type, offering and pool (taints are the caller's), with the type's capacity and
// allocatable.
func NodeGenerator(name, pool string, types cloudprovider.InstanceTypes) *rapid.Generator[*corev1.Node] {
	return rapid.Custom(func(t *rapid.T) *corev1.Node {
		it := rapid.SampledFrom(types).Draw(t, name+"/instance-type")
		o := rapid.SampledFrom(it.Offerings).Draw(t, name+"/offering")
		lbls := launchedLabels(name, pool, it, o)
		n := &corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
			Status: corev1.NodeStatus{Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable().DeepCopy(),
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
		t.Logf("%s", Describe(n))
		return n
	})
}

// DaemonSetGenerator draws a DaemonSet named name in kube-system whose pod requests cpu
// 10m..500m and memory 16..512Mi, optionally selects an arch and tolerates the team taint.
func DaemonSetGenerator(name string) *rapid.Generator[*appsv1.DaemonSet] {
	return rapid.Custom(func(t *rapid.T) *appsv1.DaemonSet {
		b := Pod(name).
			Request(corev1.ResourceCPU, fmt.Sprintf("%dm", rapid.IntRange(10, 500).Draw(t, name+"/cpu-millis"))).
			Request(corev1.ResourceMemory, fmt.Sprintf("%dMi", rapid.IntRange(16, 512).Draw(t, name+"/memory-mi")))
		if rapid.Bool().Draw(t, name+"/arch-selector") {
			b.NodeSelector(v1.LabelArch, rapid.SampledFrom(genArches).Draw(t, name+"/arch"))
		}
		if rapid.Bool().Draw(t, name+"/tolerates-team") {
			b.Tolerate("team", rapid.SampledFrom(genTaints).Draw(t, name+"/team"), corev1.TaintEffectNoSchedule)
		}
		ds := DaemonSet(name, b.Obj())
		ds.Namespace = "kube-system"
		t.Logf("%s", Describe(ds))
		return ds
	})
}
