package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter-core reference 6.4 / 1.13: preference relaxation.
func TestKCoreSemPreferences(t *testing.T) {
	kcRun(t, []kcCase{
		{
			name:   "single required term that cannot be met is never relaxed",
			pools:  kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1).Requirement(kcIT, kcIn, kcDefault)),
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(kcZone, kcIn, "invalid").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "required terms [invalid] [invalid] [z1] [z2]: the first satisfiable term (z1) wins",
			pods: []*corev1.Pod{fake.Pod("p").
				NodeRequirementTerm(kcTerm(kcZone, kcIn, "invalid")).
				NodeRequirementTerm(kcTerm(kcZone, kcIn, "invalid")).
				NodeRequirementTerm(kcTerm(kcZone, kcIn, kcZ1)).
				NodeRequirementTerm(kcTerm(kcZone, kcIn, kcZ2)).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ1}},
		},
		{
			name: "required term is relaxed before the preference: second term with preference z2 honoured",
			pods: []*corev1.Pod{fake.Pod("p").
				NodeRequirementTerm(kcTerm(kcZone, kcIn, "invalid")).
				NodeRequirementTerm(kcTerm(kcZone, kcIn, kcZ1, kcZ2)).
				PreferredNodeRequirement(1, kcZone, kcIn, kcZ2).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name: "two impossible preferred terms are relaxed and the pod scheduled",
			pods: []*corev1.Pod{fake.Pod("p").
				PreferredNodeRequirement(1, kcZone, kcIn, "invalid").
				PreferredNodeRequirement(1, kcIT, kcIn, "invalid").Obj()},
			claims: kcInt(1),
		},
		{
			name:  "preferred weights 100 (impossible) > 50 (z2) > 1 (z1): z2",
			pools: kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			pods: []*corev1.Pod{fake.Pod("p").
				PreferredNodeRequirement(100, kcIT, kcIn, kcZ3).
				PreferredNodeRequirement(50, kcZone, kcIn, kcZ2).
				PreferredNodeRequirement(1, kcZone, kcIn, kcZ1).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name: "preferred weights in spec order 1 (z1) then 50 (z2): heaviest first gives z2",
			pods: []*corev1.Pod{fake.Pod("p").
				PreferredNodeRequirement(1, kcZone, kcIn, kcZ1).
				PreferredNodeRequirement(50, kcZone, kcIn, kcZ2).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name: "preferred NotIn [z3] conflicting with required In [z3]: z3",
			pods: []*corev1.Pod{fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ3).
				PreferredNodeRequirement(1, kcZone, kcNotIn, kcZ3).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ3}},
		},
		{
			name: "one preferred term with zone In [invalid] and NotIn [invalid] is relaxed",
			pods: []*corev1.Pod{kcMut(fake.Pod("p").Obj(), func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
					Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
						kcTerm(kcZone, kcIn, "invalid"), kcTerm(kcZone, kcNotIn, "invalid")}},
				}}}}
			})},
			claims: kcInt(1),
		},
		{
			name:   "only NodePool has a PreferNoSchedule taint: pod scheduled after relaxation, node keeps the taint",
			pools:  kcPools(kcPool("default").Taint("pref", "x", corev1.TaintEffectPreferNoSchedule)),
			pods:   []*corev1.Pod{fake.Pod("p").PreferredNodeRequirement(1, kcZone, kcIn, "invalid").Obj()},
			claims: kcInt(1),
			check: func(t *testing.T, r *kcRes) {
				require.Len(t, r.claimOf("p").Taints, 1)
				assert.Equal(t, "pref", r.claimOf("p").Taints[0].Key)
			},
		},
		{
			name: "NodePool with PreferNoSchedule taint (higher weight) loses to an untainted NodePool",
			pools: kcPools(kcPool("tainted").Weight(100).Taint("pref", "x", corev1.TaintEffectPreferNoSchedule),
				kcPool("plain")),
			pods:   []*corev1.Pod{fake.Pod("p").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "plain"}},
		},
		{
			name:   "NodePool NoSchedule taint not tolerated: not scheduled (taints are never relaxed)",
			pools:  kcPools(kcPool("default").Taint("team", "a", corev1.TaintEffectNoSchedule)),
			pods:   []*corev1.Pod{fake.Pod("p").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "NodePool NoSchedule taint tolerated: scheduled",
			pools:  kcPools(kcPool("default").Taint("team", "a", corev1.TaintEffectNoSchedule)),
			pods:   []*corev1.Pod{fake.Pod("p").Tolerate("team", "a", corev1.TaintEffectNoSchedule).Obj()},
			claims: kcInt(1),
		},
		{
			name:   "Respect: preferred node affinity to the arm type is honoured",
			pods:   []*corev1.Pod{fake.Pod("p").PreferredNodeRequirement(1, kcIT, kcIn, kcArm).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name:   "Ignore: preferred node affinity to the arm type is ignored (cheapest type)",
			opts:   scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
			pods:   []*corev1.Pod{fake.Pod("p").PreferredNodeRequirement(1, kcIT, kcIn, kcArm).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name: "Respect: ScheduleAnyway hostname spread gives one node per pod",
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpreadConstraint(corev1.TopologySpreadConstraint{
					MaxSkew: 1, TopologyKey: kcHost, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: kcSel("app", "a")})
			}),
			claims: kcInt(3), apart: [][]string{kcNamesN(3, "p")},
		},
		{
			name: "Ignore: ScheduleAnyway hostname spread is ignored, pods pack on one node",
			opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpreadConstraint(corev1.TopologySpreadConstraint{
					MaxSkew: 1, TopologyKey: kcHost, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: kcSel("app", "a")})
			}),
			claims: kcInt(1), together: [][]string{kcNamesN(3, "p")},
		},
		{
			name: "Ignore: DoNotSchedule hostname spread is still enforced",
			opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpread(kcHost, 1, map[string]string{"app": "a"})
			}),
			claims: kcInt(3), apart: [][]string{kcNamesN(3, "p")},
		},
		{
			name: "Respect: preferred hostname anti-affinity spreads pods over nodes",
			pods: kcPodsP(3, "p", func(n string) *corev1.Pod {
				return kcPreferredAnti(fake.Pod(n).Label("app", "a").Obj(), 10, kcHost, "app", "a")
			}),
			claims: kcInt(3), apart: [][]string{kcNamesN(3, "p")},
		},
		{
			name: "Ignore: preferred hostname anti-affinity is ignored",
			opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
			pods: kcPodsP(3, "p", func(n string) *corev1.Pod {
				return kcPreferredAnti(fake.Pod(n).Label("app", "a").Obj(), 10, kcHost, "app", "a")
			}),
			claims: kcInt(1), together: [][]string{kcNamesN(3, "p")},
		},
		{
			name:  "Respect: preferred zonal anti-affinity is violated when it cannot be met (NodePool z1 only)",
			pools: kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1)),
			pods: kcPodsP(2, "p", func(n string) *corev1.Pod {
				return kcPreferredAnti(fake.Pod(n).Label("app", "a").Obj(), 10, kcZone, "app", "a")
			}),
			want: map[string]kcWant{"p-0": {zone: kcZ1}, "p-1": {zone: kcZ1}},
		},
	})
}

// kcPreferredAnti adds a preferred pod anti-affinity term against selector kv within key.
func kcPreferredAnti(p *corev1.Pod, weight int32, key string, kv ...string) *corev1.Pod {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.PodAntiAffinity == nil {
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(
		p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: kcSel(kv...)}})
	return p
}

// kcPreferredAffinity adds a preferred pod affinity term to selector kv within key.
func kcPreferredAffinity(p *corev1.Pod, weight int32, key string, kv ...string) *corev1.Pod {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.PodAffinity == nil {
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(
		p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: kcSel(kv...)}})
	return p
}

// Karpenter-core reference 6.5 / 1.7: instance types, price and bin packing.
func TestKCoreSemInstanceTypes(t *testing.T) {
	amd := kcPools(kcPool("default").Requirement(kcArch, kcIn, v1.ArchitectureAmd64))
	gpuTypes := func() cloudprovider.InstanceTypes {
		its := fake.InstanceTypes(5)
		its[0].Capacity["fake.com/vendor-a"] = resource.MustParse("1")
		its[1].Capacity["fake.com/vendor-b"] = resource.MustParse("1")
		return its
	}
	priced := func() cloudprovider.InstanceTypes {
		mk := func(name string, price float64) *cloudprovider.InstanceType {
			return fake.NewInstanceType(fake.InstanceTypeOptions{Name: name, Offerings: cloudprovider.Offerings{
				cloudprovider.NewOffering(kcZ1, v1.CapacityTypeOnDemand, price, true)}})
		}
		return cloudprovider.InstanceTypes{mk("medium", 3), mk("small", 2), mk("large", 1)}
	}
	odSpot := func() cloudprovider.InstanceTypes {
		mk := func(name string, od, spot float64) *cloudprovider.InstanceType {
			return fake.NewInstanceType(fake.InstanceTypeOptions{Name: name, Offerings: cloudprovider.Offerings{
				cloudprovider.NewOffering(kcZ1, v1.CapacityTypeOnDemand, od, true),
				cloudprovider.NewOffering(kcZ1, v1.CapacityTypeSpot, spot, true)}})
		}
		return cloudprovider.InstanceTypes{mk("type1", 1, 0.2), mk("type2", 1.3, 0.1)}
	}
	unavailable := func() cloudprovider.InstanceTypes {
		its := kcF1()
		for _, it := range its {
			if it.Name == kcSmall {
				for _, o := range it.Offerings {
					o.Available = false
				}
			}
		}
		return its
	}
	cpu := kcCPUTypes(2, 4, 6, 8, 10, 12, 16)
	initPod := func(name string, f func(p *corev1.Pod)) []*corev1.Pod {
		return []*corev1.Pod{kcMut(fake.Pod(name).CPU("1").Obj(), f)}
	}
	ctr := func(name, cpu string, sidecar bool) corev1.Container {
		c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: kcRL("cpu", cpu)}}
		if sidecar {
			always := corev1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		return c
	}

	kcRun(t, []kcCase{
		{name: "512 cpu request is not scheduled", pods: []*corev1.Pod{fake.Pod("p").CPU("512").Obj()}, failed: []string{"p"}, claims: kcInt(0)},
		{name: "2Ti memory request is not scheduled", pods: []*corev1.Pod{fake.Pod("p").Memory("2Ti").Obj()}, failed: []string{"p"}, claims: kcInt(0)},
		{
			name: "init container requesting 1Ti memory is not scheduled",
			pods: initPod("p", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: kcRL("memory", "1Ti")}}}
			}),
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "amd64 and arm64 pods get two nodes",
			pods:   []*corev1.Pod{fake.Pod("amd").NodeSelector(kcArch, v1.ArchitectureAmd64).Obj(), fake.Pod("arm").NodeSelector(kcArch, v1.ArchitectureArm64).Obj()},
			claims: kcInt(2), want: map[string]kcWant{"amd": {itype: kcSmall, arch: v1.ArchitectureAmd64}, "arm": {itype: kcArm, arch: v1.ArchitectureArm64}},
		},
		{
			name:   "linux and windows pods get two nodes",
			pods:   []*corev1.Pod{fake.Pod("lin").NodeSelector(kcOS, "linux").Obj(), fake.Pod("win").NodeSelector(kcOS, "windows").Obj()},
			claims: kcInt(2), apart: [][]string{{"lin", "win"}},
		},
		{
			name:   "pods selecting the small and the default type get two nodes",
			pods:   []*corev1.Pod{fake.Pod("s").NodeSelector(kcIT, kcSmall).Obj(), fake.Pod("d").NodeSelector(kcIT, kcDefault).Obj()},
			claims: kcInt(2), want: map[string]kcWant{"s": {itype: kcSmall}, "d": {itype: kcDefault}},
		},
		{
			name:   "pods selecting the beta instance-type alias get the type",
			pods:   []*corev1.Pod{fake.Pod("d").NodeSelector("beta.kubernetes.io/instance-type", kcDefault).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"d": {itype: kcDefault}},
		},
		{
			name:   "pods selecting z1 and z2 get two nodes",
			pods:   []*corev1.Pod{fake.Pod("a").NodeSelector(kcZone, kcZ1).Obj(), fake.Pod("b").NodeSelector(kcZone, kcZ2).Obj()},
			claims: kcInt(2), want: map[string]kcWant{"a": {zone: kcZ1}, "b": {zone: kcZ2}},
		},
		{
			name: "amd64 NodePool and pod requiring the arm type: not scheduled", pools: amd,
			pods: []*corev1.Pod{fake.Pod("p").NodeSelector(kcIT, kcArm).Obj()}, failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "pod requiring os ios gets the arm type", pods: []*corev1.Pod{fake.Pod("p").NodeSelector(kcOS, "ios").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name: "amd64 NodePool and pod requiring os ios: not scheduled", pools: amd,
			pods: []*corev1.Pod{fake.Pod("p").NodeSelector(kcOS, "ios").Obj()}, failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "14-cpu pod gets the arm type", pods: []*corev1.Pod{fake.Pod("p").CPU("14").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name: "amd64 NodePool and 14-cpu pod: not scheduled", pools: amd,
			pods: []*corev1.Pod{fake.Pod("p").CPU("14").Obj()}, failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "vendor-a GPU pod gets the vendor-a type", pods: []*corev1.Pod{fake.Pod("p").Request("fake.com/vendor-a", "1").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcGPU}},
		},
		{
			name: "F2 with GPUs: one pod per vendor gets two nodes", types: gpuTypes(),
			pods:   []*corev1.Pod{fake.Pod("a").Request("fake.com/vendor-a", "1").Obj(), fake.Pod("b").Request("fake.com/vendor-b", "1").Obj()},
			claims: kcInt(2), want: map[string]kcWant{"a": {itype: "fake-it-0"}, "b": {itype: "fake-it-1"}},
		},
		{
			name: "F2 with GPUs: one pod requesting both vendors is not scheduled", types: gpuTypes(),
			pods:   []*corev1.Pod{fake.Pod("p").Request("fake.com/vendor-a", "1").Request("fake.com/vendor-b", "1").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "F2: special Exists gets fake-it-4", types: fake.InstanceTypes(5),
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(fake.ExoticInstanceLabelKey, kcExists).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "fake-it-4"}},
		},
		{
			name: "F2: special DoesNotExist never gets fake-it-4", types: fake.InstanceTypes(5),
			pods:   []*corev1.Pod{fake.Pod("p").CPU("4").NodeRequirement(fake.ExoticInstanceLabelKey, kcDoesNotExist).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "F2: special DoesNotExist gets the cheapest type without the label", types: fake.InstanceTypes(5),
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(fake.ExoticInstanceLabelKey, kcDoesNotExist).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "fake-it-0"}},
		},
		{name: "100M memory pod gets the small type", pods: []*corev1.Pod{fake.Pod("p").Memory("100M").Obj()}, claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}}},
		{name: "2000M memory pod gets the small type", pods: []*corev1.Pod{fake.Pod("p").Memory("2000M").Obj()}, claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}}},
		{name: "2200M memory pod needs the default type", pods: []*corev1.Pod{fake.Pod("p").Memory("2200M").Obj()}, claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}}},
		{
			name:   "pod overhead 2 cpu + 1 cpu request gets the default type, not small",
			pods:   initPod("p", func(p *corev1.Pod) { p.Spec.Overhead = kcRL("cpu", "2") }),
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}},
		},
		{
			name:   "5 pods of 10M pack on one small node",
			pods:   kcPods(5, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).Memory("10M") }),
			claims: kcInt(1), together: [][]string{kcNamesN(5, "p")}, want: map[string]kcWant{"p-0": {itype: kcSmall}},
		},
		{
			name:   "25 pods of 1m cpu need 5 small nodes (5 pods per node)",
			pods:   kcPods(25, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).CPU("1m") }),
			claims: kcInt(5), dist: []kcDist{{key: kcHost, want: []int{5, 5, 5, 5, 5}}},
			check: func(t *testing.T, r *kcRes) {
				for _, c := range r.res.NewNodeClaims {
					assert.Equal(t, kcSmall, c.InstanceType.Name)
				}
			},
		},
		{
			name:  "40 pods of 1.8G (amd64) need 20 default nodes; 20 pods of 400M fill the gaps",
			pools: amd,
			pods: kcJoin(kcPods(40, "big", func(n string) *fake.PodBuilder { return fake.Pod(n).Memory("1.8G") }),
				kcPods(20, "small", func(n string) *fake.PodBuilder { return fake.Pod(n).Memory("400M") })),
			claims: kcInt(20),
			check: func(t *testing.T, r *kcRes) {
				for _, c := range r.res.NewNodeClaims {
					assert.Equal(t, kcDefault, c.InstanceType.Name)
					assert.Len(t, c.Pods, 3)
				}
			},
		},
		{
			name: "F2: pods of 4.5 cpu and 1 cpu get two nodes of different types", types: fake.InstanceTypes(5),
			pods:   []*corev1.Pod{fake.Pod("big").CPU("4.5").Obj(), fake.Pod("small").CPU("1").Obj()},
			claims: kcInt(2), want: map[string]kcWant{"big": {itype: "fake-it-4"}, "small": {itype: "fake-it-1"}},
		},
		{
			name:   "zero-quantity request of an unknown resource is scheduled",
			pods:   []*corev1.Pod{fake.Pod("p").Request("example.com/unknown", "0").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name:   "non-zero request of an unknown resource is not scheduled",
			pods:   []*corev1.Pod{fake.Pod("p").Request("example.com/unknown", "1").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "init container 2 cpu + app 1 cpu/1Gi gets the default type (init max respected)",
			pods: []*corev1.Pod{kcMut(fake.Pod("p").CPU("1").Memory("1Gi").Obj(), func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{ctr("init", "2", false)}
			})},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}},
		},
		{
			name: "init container smaller than the app does not add to it: small type",
			pods: []*corev1.Pod{kcMut(fake.Pod("p").CPU("1.5").Obj(), func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{ctr("init", "1", false)}
			})},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name: "regular init 7 cpu + app 1 cpu: 7 cpu needed (c8)", types: cpu,
			pods:   initPod("p", func(p *corev1.Pod) { p.Spec.InitContainers = []corev1.Container{ctr("init", "7", false)} }),
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c8"}},
		},
		{
			name: "sidecar 2 cpu + app 1 cpu: 3 cpu needed (c4)", types: cpu,
			pods:   initPod("p", func(p *corev1.Pod) { p.Spec.InitContainers = []corev1.Container{ctr("side", "2", true)} }),
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c4"}},
		},
		{
			name: "sidecar 2 cpu started before a 5 cpu init container: 7 cpu needed (c8)", types: cpu,
			pods: initPod("p", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{ctr("side", "2", true), ctr("init", "5", false)}
			}),
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c8"}},
		},
		{
			name: "5 cpu init container before a 2 cpu sidecar: 5 cpu needed (c6)", types: cpu,
			pods: initPod("p", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{ctr("init", "5", false), ctr("side", "2", true)}
			}),
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c6"}},
		},
		{
			name: "10 cpu init before 4.9 cpu sidecar + 6 cpu app: 10.9 cpu needed (c12)", types: cpu,
			pods: []*corev1.Pod{kcMut(fake.Pod("p").CPU("6").Obj(), func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{ctr("init", "10", false), ctr("side", "4.9", true)}
			})},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c12"}},
		},
		{
			name: "pod overhead 2 cpu + app 3 cpu: 5 cpu needed (c6)", types: cpu,
			pods:   []*corev1.Pod{kcMut(fake.Pod("p").CPU("3").Obj(), func(p *corev1.Pod) { p.Spec.Overhead = kcRL("cpu", "2") })},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c6"}},
		},
		{
			name: "pod-level resources 9.9 cpu override the container sum (c10)", types: cpu,
			pods: []*corev1.Pod{kcMut(fake.Pod("p").CPU("1").Obj(), func(p *corev1.Pod) {
				p.Spec.Resources = &corev1.ResourceRequirements{Requests: kcRL("cpu", "9.9")}
			})},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "c10"}},
		},
		{
			name: "three types all fitting: the cheapest (large $1) launches, options cheapest first", types: priced(),
			pods: []*corev1.Pod{fake.Pod("p").Obj()}, claims: kcInt(1), want: map[string]kcWant{"p": {itype: "large"}},
			check: func(t *testing.T, r *kcRes) {
				var names []string
				for _, it := range r.claimOf("p").InstanceTypeOptions {
					names = append(names, it.Name)
				}
				assert.Equal(t, []string{"large", "small", "medium"}, names)
				assert.InDelta(t, 1.0, r.claimOf("p").Offering.Price, 1e-9)
			},
		},
		{
			name: "on-demand NodePool: price ordering uses on-demand offerings only (type1)", types: odSpot(),
			pools:  kcPools(kcPool("default").Requirement(kcCT, kcIn, v1.CapacityTypeOnDemand)),
			pods:   []*corev1.Pod{fake.Pod("p").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "type1", ct: v1.CapacityTypeOnDemand}},
		},
		{
			name: "no capacity-type constraint: the cheapest offering (type2 spot) launches", types: odSpot(),
			pods:   []*corev1.Pod{fake.Pod("p").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: "type2", ct: v1.CapacityTypeSpot}},
		},
		{
			name: "type whose offerings are all unavailable is not chosen", types: unavailable(),
			pods:   []*corev1.Pod{fake.Pod("p").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}},
			check: func(t *testing.T, r *kcRes) {
				for _, it := range r.claimOf("p").InstanceTypeOptions {
					assert.NotEqual(t, kcSmall, it.Name)
				}
			},
		},
		{
			name:   "single-pod type holds one pod; 6 pods restricted to it need 6 nodes",
			pools:  kcPools(kcPool("default").Requirement(kcIT, kcIn, kcSinglePod)),
			pods:   kcPods(6, "p", func(n string) *fake.PodBuilder { return fake.Pod(n) }),
			claims: kcInt(6),
		},
		{
			name:   "NodeClaim requirements restrict instance types by arch, os and requests",
			pods:   []*corev1.Pod{fake.Pod("p").CPU("3").NodeSelector(kcArch, v1.ArchitectureAmd64).NodeSelector(kcOS, "linux").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}},
			check: func(t *testing.T, r *kcRes) {
				var names []string
				for _, it := range r.claimOf("p").InstanceTypeOptions {
					names = append(names, it.Name)
				}
				assert.ElementsMatch(t, []string{kcDefault, kcGPU, kcGPUB, kcSinglePod}, names)
			},
		},
	})
}
