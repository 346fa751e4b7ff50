package scheduling_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// kcSpread makes a pod labelled app=<app> with a DoNotSchedule spread over key selecting app=<app>.
func kcSpread(name, app, key string, maxSkew int32) *fake.PodBuilder {
	return fake.Pod(name).Label("app", app).TopologySpread(key, maxSkew, map[string]string{"app": app})
}

// kcSpreadC makes a pod labelled app=<app> with the given constraint (selector app=<app> unless set).
func kcSpreadC(name, app string, c corev1.TopologySpreadConstraint) *fake.PodBuilder {
	if c.LabelSelector == nil {
		c.LabelSelector = kcSel("app", app)
	}
	if c.MaxSkew == 0 {
		c.MaxSkew = 1
	}
	if c.WhenUnsatisfiable == "" {
		c.WhenUnsatisfiable = corev1.DoNotSchedule
	}
	return fake.Pod(name).Label("app", app).TopologySpreadConstraint(c)
}

func kcItoa(n int) string { return strconv.Itoa(n) }

// kcFull is an existing node with no room left (allocatable pods = bound pods).
func kcFull(name string, labels map[string]string, bound ...*corev1.Pod) *cluster.Node {
	return kcNode(name, labels, kcRL("cpu", "4", "memory", "4Gi", "pods", kcItoa(len(bound))), bound...)
}

// Karpenter-core reference 6.9 / 1.14.3: topology spread constraints (maxSkew 1, DoNotSchedule unless noted).
func TestKCoreSemTopologySpread(t *testing.T) {
	zs := func(n int) []*corev1.Pod {
		return kcPods(n, "p", func(name string) *fake.PodBuilder { return kcSpread(name, "a", kcZone, 1) })
	}
	zone := func(z string) map[string]string { return map[string]string{kcZone: z} }
	matching := func(name, node string) *corev1.Pod { return kcBound(name, node, "app", "a").Obj() }
	// counting layout: z1 and z3 hold one counted pod each, z2 holds two pods given by ignored.
	counting := func(ignored ...*corev1.Pod) []*cluster.Node {
		return []*cluster.Node{
			kcFull("n1", zone(kcZ1), matching("c1", "n1")),
			kcFull("n2", zone(kcZ2), ignored...),
			kcFull("n3", zone(kcZ3), matching("c3", "n3")),
		}
	}
	phase := func(name string, ph corev1.PodPhase) *corev1.Pod {
		return kcMut(matching(name, "n2"), func(p *corev1.Pod) { p.Status.Phase = ph })
	}
	terminating := func(name string) *corev1.Pod {
		return kcMut(matching(name, "n2"), func(p *corev1.Pod) { now := metav1.Now(); p.DeletionTimestamp = &now })
	}
	otherNS := func(name string) *corev1.Pod {
		return kcMut(matching(name, "n2"), func(p *corev1.Pod) { p.Namespace = "other"; p.UID = "other/" + p.UID })
	}
	z2 := map[string]kcWant{"p-0": {zone: kcZ2}}
	spot := map[string]string{kcZone: kcZ1, kcCT: v1.CapacityTypeSpot}
	hostAndZone := func(n int) []*corev1.Pod {
		return kcPods(n, "p", func(name string) *fake.PodBuilder {
			return fake.Pod(name).Label("app", "a").TopologySpread(kcZone, 1, map[string]string{"app": "a"}).
				TopologySpread(kcHost, 3, map[string]string{"app": "a"})
		})
	}
	maxPerHost := func(limit int) func(t *testing.T, r *kcRes) {
		return func(t *testing.T, r *kcRes) {
			for _, c := range r.res.NewNodeClaims {
				assert.LessOrEqual(t, len(c.Pods), limit, "pods on %s", c.Hostname)
			}
		}
	}
	rack := func(name, value string) *cluster.Node {
		return kcFull(name, map[string]string{"rack": value, "team": "other"})
	}
	rackPods := func(policy *corev1.NodeInclusionPolicy) []*corev1.Pod {
		return kcPods(5, "p", func(name string) *fake.PodBuilder {
			return kcSpreadC(name, "a", corev1.TopologySpreadConstraint{TopologyKey: "rack", NodeAffinityPolicy: policy}).NodeSelector("team", "mine")
		})
	}
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	taintPools := kcPools(kcPool("tainted").Weight(10).Requirement(kcZone, kcIn, kcZ1).Taint("t", "x", corev1.TaintEffectNoSchedule),
		kcPool("plain").Requirement(kcZone, kcIn, kcZ2))
	taintPods := func(policy *corev1.NodeInclusionPolicy) []*corev1.Pod {
		return kcPods(3, "p", func(name string) *fake.PodBuilder {
			return kcSpreadC(name, "a", corev1.TopologySpreadConstraint{TopologyKey: kcZone, NodeTaintsPolicy: policy})
		})
	}
	md := func(n int, minDomains int32) []*corev1.Pod {
		return kcPods(n, "p", func(name string) *fake.PodBuilder {
			return kcSpreadC(name, "a", corev1.TopologySpreadConstraint{TopologyKey: kcZone, MinDomains: &minDomains})
		})
	}
	deploy := func(prefix, hash string, n int, keys ...string) []*corev1.Pod {
		return kcPods(n, prefix, func(name string) *fake.PodBuilder {
			return kcSpreadC(name, "x", corev1.TopologySpreadConstraint{TopologyKey: kcHost, MatchLabelKeys: keys}).Label("pod-template-hash", hash)
		})
	}

	kcRun(t, []kcCase{
		{
			name:   "spread on an unknown key: that pod is not scheduled, an unconstrained pod is",
			pods:   []*corev1.Pod{kcSpread("p", "a", "unknown-key", 1).Obj(), fake.Pod("plain").Obj()},
			failed: []string{"p"}, claims: kcInt(1),
		},
		{
			name: "nil labelSelector: no spreading, two pods share a node",
			pods: kcPods(2, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpreadConstraint(corev1.TopologySpreadConstraint{
					MaxSkew: 1, TopologyKey: kcZone, WhenUnsatisfiable: corev1.DoNotSchedule})
			}),
			claims: kcInt(1), together: [][]string{{"p-0", "p-1"}},
		},
		{name: "4 pods over 3 zones: 1/1/2", pods: zs(4), dist: []kcDist{{key: kcZone, want: []int{1, 1, 2}}}},
		{
			name: "matchExpressions selector: 1/1/2",
			pods: kcPods(4, "p", func(n string) *fake.PodBuilder {
				return kcSpreadC(n, "a", corev1.TopologySpreadConstraint{TopologyKey: kcZone, LabelSelector: &metav1.LabelSelector{
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}}})
			}),
			dist: []kcDist{{key: kcZone, want: []int{1, 1, 2}}},
		},
		{name: "9 pods over 3 zones: 3/3/3", pods: zs(9), dist: []kcDist{{key: kcZone, want: []int{3, 3, 3}}}},
		{
			name: "spread collapses the NodeClaim's zone requirement to one zone", pods: zs(3),
			check: func(t *testing.T, r *kcRes) {
				for _, c := range r.res.NewNodeClaims {
					_, ok := kcSingle(c.Requirements, kcZone)
					assert.True(t, ok, "zone requirement of %s not collapsed: %s", c.Hostname, c.Requirements.Get(kcZone).String())
				}
			},
		},
		{
			name: "NodePool zones z1,z2: 2/2", pools: kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			pods: zs(4), dist: []kcDist{{key: kcZone, want: []int{2, 2}}},
		},
		{
			name: "NodePool label zone=z1: all 4 in z1", pools: kcPools(kcPool("default").Label(kcZone, kcZ1)),
			pods: zs(4), dist: []kcDist{{key: kcZone, want: []int{4}}}, want: map[string]kcWant{"p-0": {zone: kcZ1}},
		},
		{
			name:  "two NodePools each z1,z2: 2/2",
			pools: kcPools(kcPool("a").Requirement(kcZone, kcIn, kcZ1, kcZ2), kcPool("b").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			pods:  zs(4), dist: []kcDist{{key: kcZone, want: []int{2, 2}}},
		},
		{
			name:  "existing matching pod in z3, NodePool z1,z2, 5 pods: 2/2 and one pending",
			pools: kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			nodes: []*cluster.Node{kcFull("n3", zone(kcZ3), matching("e", "n3"))},
			pods:  zs(5), nFailed: kcInt(1), dist: []kcDist{{key: kcZone, want: []int{2, 2}}},
		},
		{
			name: "required node affinity z1,z2: 3/3",
			pods: kcPods(6, "p", func(n string) *fake.PodBuilder {
				return kcSpread(n, "a", kcZone, 1).NodeRequirement(kcZone, kcIn, kcZ1, kcZ2)
			}),
			dist: []kcDist{{key: kcZone, want: []int{3, 3}}},
		},
		{
			name: "preferred node affinity does not narrow the spread domains: 2/2/2",
			pods: kcPods(6, "p", func(n string) *fake.PodBuilder {
				return kcSpread(n, "a", kcZone, 1).PreferredNodeRequirement(1, kcZone, kcIn, kcZ1)
			}),
			dist: []kcDist{{key: kcZone, want: []int{2, 2, 2}}},
		},
		{
			name: "zone pinned by nodeSelector per deployment: each sees only its own zone, 5/5",
			pods: kcJoin(
				kcPods(5, "a", func(n string) *fake.PodBuilder { return kcSpread(n, "x", kcZone, 1).NodeSelector(kcZone, kcZ1) }),
				kcPods(5, "b", func(n string) *fake.PodBuilder { return kcSpread(n, "x", kcZone, 1).NodeSelector(kcZone, kcZ2) })),
			dist: []kcDist{{key: kcZone, pods: kcNamesN(5, "a"), want: []int{5}}, {key: kcZone, pods: kcNamesN(5, "b"), want: []int{5}}},
		},
		{name: "counting: live matching pods in z2 are counted (control)", nodes: counting(matching("x1", "n2"), matching("x2", "n2")), pods: zs(1),
			check: func(t *testing.T, r *kcRes) { assert.NotEqual(t, kcZ2, r.domain("p-0", kcZone)) }},
		{name: "counting ignores pods in another namespace", nodes: counting(otherNS("x1"), otherNS("x2")), pods: zs(1), want: z2},
		{name: "counting ignores pods with non-matching labels", nodes: counting(kcBound("x1", "n2", "app", "b").Obj(), kcBound("x2", "n2", "app", "b").Obj()), pods: zs(1), want: z2},
		{name: "counting ignores Failed pods", nodes: counting(phase("x1", corev1.PodFailed), phase("x2", corev1.PodFailed)), pods: zs(1), want: z2},
		{name: "counting ignores Succeeded pods", nodes: counting(phase("x1", corev1.PodSucceeded), phase("x2", corev1.PodSucceeded)), pods: zs(1), want: z2},
		{name: "counting ignores terminating pods", nodes: counting(terminating("x1"), terminating("x2")), pods: zs(1), want: z2},
		{
			name: "pods not matching their own selector pack on one node",
			pods: kcPods(4, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpread(kcHost, 1, map[string]string{"app": "b"})
			}),
			claims: kcInt(1), together: [][]string{kcNamesN(4, "p")},
		},
		{
			name:  "minDomains 3 with only z1,z2 allowed: 1/1 and the third pending",
			pools: kcPools(kcPool("default").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			pods:  md(3, 3), nFailed: kcInt(1), dist: []kcDist{{key: kcZone, want: []int{1, 1}}},
		},
		{name: "minDomains 3 with 3 zones, 11 pods: 4/4/3", pods: md(11, 3), dist: []kcDist{{key: kcZone, want: []int{3, 4, 4}}}},
		{name: "minDomains 2 with 3 zones, 11 pods: 4/4/3", pods: md(11, 2), dist: []kcDist{{key: kcZone, want: []int{3, 4, 4}}}},
		{
			name:   "hostname spread: 4 pods on 4 nodes",
			pods:   kcPods(4, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcHost, 1) }),
			claims: kcInt(4), apart: [][]string{kcNamesN(4, "p")},
		},
		{
			name:   "hostname spread maxSkew 4: one node with 4 pods",
			pods:   kcPods(4, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcHost, 4) }),
			claims: kcInt(1), together: [][]string{kcNamesN(4, "p")},
		},
		{
			name: "two deployments with hostname spread share 2 nodes",
			pods: kcJoin(kcPods(2, "a", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcHost, 1) }),
				kcPods(2, "b", func(n string) *fake.PodBuilder { return kcSpread(n, "b", kcHost, 1) })),
			claims: kcInt(2), apart: [][]string{{"a-0", "a-1"}, {"b-0", "b-1"}},
		},
		{
			name: "two deployments with hostname spread and different arch: 4 nodes",
			pods: kcJoin(kcPods(2, "a", func(n string) *fake.PodBuilder {
				return kcSpread(n, "a", kcHost, 1).NodeSelector(kcArch, v1.ArchitectureAmd64)
			}),
				kcPods(2, "b", func(n string) *fake.PodBuilder {
					return kcSpread(n, "b", kcHost, 1).NodeSelector(kcArch, v1.ArchitectureArm64)
				})),
			claims: kcInt(4),
		},
		{
			name: "capacity-type spread: 2/2",
			pods: kcPods(4, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcCT, 1) }),
			dist: []kcDist{{key: kcCT, want: []int{2, 2}}},
		},
		{
			name:    "capacity-type spread, existing spot pod, on-demand-only NodePool (DoNotSchedule): 1/2, rest pending",
			pools:   kcPools(kcPool("default").Requirement(kcCT, kcIn, v1.CapacityTypeOnDemand)),
			nodes:   []*cluster.Node{kcFull("n1", spot, matching("e", "n1"))},
			pods:    kcPods(5, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcCT, 1) }),
			nFailed: kcInt(3), dist: []kcDist{{key: kcCT, want: []int{2}}},
		},
		{
			name:  "capacity-type spread, existing spot pod, on-demand-only NodePool (ScheduleAnyway): all 5 on-demand",
			pools: kcPools(kcPool("default").Requirement(kcCT, kcIn, v1.CapacityTypeOnDemand)),
			nodes: []*cluster.Node{kcFull("n1", spot, matching("e", "n1"))},
			pods: kcPods(5, "p", func(n string) *fake.PodBuilder {
				return kcSpreadC(n, "a", corev1.TopologySpreadConstraint{TopologyKey: kcCT, WhenUnsatisfiable: corev1.ScheduleAnyway})
			}),
			dist: []kcDist{{key: kcCT, want: []int{5}}}, want: map[string]kcWant{"p-0": {ct: v1.CapacityTypeOnDemand}},
		},
		{name: "zonal(1) + hostname(3), 5 pods: 2/2/1, at most 3 per node", pods: hostAndZone(5), dist: []kcDist{{key: kcZone, want: []int{1, 2, 2}}}, check: maxPerHost(3)},
		{name: "zonal(1) + hostname(3), 11 pods: 4/4/3, at most 3 per node", pods: hostAndZone(11), dist: []kcDist{{key: kcZone, want: []int{3, 4, 4}}}, check: maxPerHost(3)},
		{name: "zonal(1) + hostname(3), 21 pods: 7/7/7, at most 3 per node", pods: hostAndZone(21), dist: []kcDist{{key: kcZone, want: []int{7, 7, 7}}}, check: maxPerHost(3)},
		{
			name:   "matchLabelKeys on pod-template-hash: two deployments spread independently on 2 nodes",
			pods:   kcJoin(deploy("a", "1", 2, "pod-template-hash"), deploy("b", "2", 2, "pod-template-hash")),
			claims: kcInt(2), apart: [][]string{{"a-0", "a-1"}, {"b-0", "b-1"}},
		},
		{
			name:   "without matchLabelKeys the two deployments spread together: 4 nodes",
			pods:   kcJoin(deploy("a", "1", 2), deploy("b", "2", 2)),
			claims: kcInt(4),
		},
		{
			name:   "matchLabelKeys with an unknown key is ignored: 4 nodes",
			pods:   kcJoin(deploy("a", "1", 2, "unknown"), deploy("b", "2", 2, "unknown")),
			claims: kcInt(4),
		},
		{
			name:  "nodeTaintsPolicy Ignore (default): the tainted NodePool's zone counts, 1 pod schedules",
			pools: taintPools, pods: taintPods(nil), nFailed: kcInt(2), dist: []kcDist{{key: kcZone, want: []int{1}}},
		},
		{
			name: "nodeTaintsPolicy Honor: the tainted NodePool's zone is excluded, 3 pods in z2",

			pools: taintPools, pods: taintPods(&honor), dist: []kcDist{{key: kcZone, want: []int{3}}},
			want: map[string]kcWant{"p-0": {zone: kcZ2, pool: "plain"}},
		},
		{
			name: "nodeAffinityPolicy Honor (default): nodes the pod cannot use do not count, 5 pods in r3",

			pools: kcPools(kcPool("default").Label("team", "mine").Label("rack", "r3")),
			nodes: []*cluster.Node{rack("n1", "r1"), rack("n2", "r2")},
			pods:  rackPods(&honor), dist: []kcDist{{key: "rack", want: []int{5}}},
		},
		{
			name:  "nodeAffinityPolicy Ignore: other racks count, 1 pod schedules",
			pools: kcPools(kcPool("default").Label("team", "mine").Label("rack", "r3")),
			nodes: []*cluster.Node{rack("n1", "r1"), rack("n2", "r2")},
			pods:  rackPods(&ignore), nFailed: kcInt(4), dist: []kcDist{{key: "rack", want: []int{1}}},
		},
		{
			name: "custom-key spread over two NodePools' values: 20 pods, 4 per value",
			pools: kcPools(kcPool("spot").Requirement(kcCT, kcIn, v1.CapacityTypeSpot).Requirement("slot", kcIn, "2", "3", "4", "5"),
				kcPool("od").Requirement(kcCT, kcIn, v1.CapacityTypeOnDemand).Requirement("slot", kcIn, "1")),
			pods: kcPods(20, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", "slot", 1) }),
			dist: []kcDist{{key: "slot", want: []int{4, 4, 4, 4, 4}}, {key: kcCT, want: []int{4, 16}}},
		},
	})
}

// Karpenter-core reference 6.10 / 1.14.4-1.14.6: pod affinity and anti-affinity.
func TestKCoreSemPodAffinity(t *testing.T) {
	zone := func(z string) map[string]string { return map[string]string{kcZone: z} }
	selfHost := func(n int) []*corev1.Pod {
		return kcPods(n, "p", func(name string) *fake.PodBuilder {
			return fake.Pod(name).Label("app", "s").PodAffinity(kcHost, map[string]string{"app": "s"})
		})
	}
	antiZone := func(name string) *fake.PodBuilder {
		return fake.Pod(name).Label("app", "a").PodAntiAffinity(kcZone, map[string]string{"app": "a"})
	}
	target := func(name, z string) *corev1.Pod {
		return fake.Pod(name).Label("app", "t").NodeSelector(kcZone, z).Obj()
	}
	inverse := func(name, z string) *corev1.Pod {
		return fake.Pod(name).NodeSelector(kcZone, z).PodAntiAffinity(kcZone, map[string]string{"app": "x"}).Obj()
	}
	boundInverse := func(name, node string) *corev1.Pod {
		return kcBound(name, node).PodAntiAffinity(kcZone, map[string]string{"app": "x"}).Obj()
	}
	x := func() *corev1.Pod { return fake.Pod("x").Label("app", "x").Obj() }
	nsTerm := func(f func(term *corev1.PodAffinityTerm)) *corev1.Pod {
		p := fake.Pod("follower").PodAffinity(kcHost, map[string]string{"app": "t"}).Obj()
		f(&p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0])
		return p
	}
	otherTarget := func() *corev1.Pod { return fake.Pod("target").Namespace("other").Label("app", "t").Obj() }
	followers := func(n int, key string) []*corev1.Pod {
		return kcPods(n, "f", func(name string) *fake.PodBuilder {
			return fake.Pod(name).PodAffinity(key, map[string]string{"app": "t"})
		})
	}

	kcRun(t, []kcCase{
		{
			name: "empty PodAffinity and PodAntiAffinity objects are ignored",
			pods: []*corev1.Pod{kcMut(fake.Pod("p").Obj(), func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{}, PodAntiAffinity: &corev1.PodAntiAffinity{}}
			})},
			claims: kcInt(1),
		},
		{
			name: "hostname affinity: the follower lands with its target",
			pods: []*corev1.Pod{fake.Pod("target").Label("app", "t").CPU("1").Obj(),
				fake.Pod("follower").CPU("1").PodAffinity(kcHost, map[string]string{"app": "t"}).Obj()},
			claims: kcInt(1), together: [][]string{{"target", "follower"}},
		},
		{
			name: "arch affinity + hostname spread: same arch, different nodes",
			pods: []*corev1.Pod{fake.Pod("target").CPU("1").Label("app", "t").NodeSelector(kcArch, v1.ArchitectureArm64).Obj(),
				fake.Pod("follower").Label("app", "t").PodAffinity(kcArch, map[string]string{"app": "t"}).TopologySpread(kcHost, 1, map[string]string{"app": "t"}).Obj()},
			claims: kcInt(2), apart: [][]string{{"target", "follower"}},
			want: map[string]kcWant{"target": {arch: v1.ArchitectureArm64}, "follower": {arch: v1.ArchitectureArm64}},
		},
		{name: "self hostname affinity: all 3 pods on one node", pods: selfHost(3), claims: kcInt(1), together: [][]string{kcNamesN(3, "p")}},
		{
			name: "self hostname affinity with 10 pods and 5-pod nodes: 5 scheduled on one node, 5 not",
			pods: selfHost(10), claims: kcInt(1), nFailed: kcInt(5),
		},
		{
			name: "self zone affinity: all in one zone",
			pods: kcPods(4, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).CPU("1.5").Label("app", "s").PodAffinity(kcZone, map[string]string{"app": "s"})
			}),
			dist: []kcDist{{key: kcZone, want: []int{4}}},
		},
		{
			name: "self zone affinity with zone In [z3]: all in z3",
			pods: kcPods(4, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).CPU("1.5").Label("app", "s").PodAffinity(kcZone, map[string]string{"app": "s"}).NodeRequirement(kcZone, kcIn, kcZ3)
			}),
			dist: []kcDist{{key: kcZone, want: []int{4}}}, want: map[string]kcWant{"p-0": {zone: kcZ3}},
		},
		{
			name:   "preferred affinity to a missing pod: scheduled",
			pods:   []*corev1.Pod{kcPreferredAffinity(fake.Pod("p").Obj(), 10, kcHost, "app", "missing")},
			claims: kcInt(1),
		},
		{
			name:   "required affinity to a missing pod: not scheduled",
			pods:   []*corev1.Pod{fake.Pod("p").PodAffinity(kcHost, map[string]string{"app": "missing"}).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "hostname anti-affinity: one node per pod",
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").PodAntiAffinity(kcHost, map[string]string{"app": "a"})
			}),
			claims: kcInt(3), apart: [][]string{kcNamesN(3, "p")},
		},
		{
			name:   "hostname anti-affinity against a pod bound to an existing node: new node",
			pods:   []*corev1.Pod{fake.Pod("p").PodAntiAffinity(kcHost, map[string]string{"app": "t"}).Obj()},
			nodes:  []*cluster.Node{kcNode("n1", zone(kcZ1), kcRL("cpu", "4", "memory", "4Gi", "pods", "5"), kcBound("t", "n1", "app", "t").Obj())},
			claims: kcInt(1),
		},
		{
			name: "zone anti-affinity among identical pods: one per zone in one Solve, the 4th pending",

			pods:    kcPods(4, "p", func(n string) *fake.PodBuilder { return antiZone(n) }),
			nFailed: kcInt(1), dist: []kcDist{{key: kcZone, want: []int{1, 1, 1}}},
		},
		{
			name: "anti-affinity pod avoids the zone of a pinned target placed before it",

			pods:  []*corev1.Pod{target("t1", kcZ1), fake.Pod("anti").PodAntiAffinity(kcZone, map[string]string{"app": "t"}).Obj()},
			want:  map[string]kcWant{"t1": {zone: kcZ1}},
			check: func(t *testing.T, r *kcRes) { assert.NotEqual(t, kcZ1, r.domain("anti", kcZone)) },
		},
		{
			// A target that nothing can ever take (no type has its cpu) holds no zone: the
			// anti-affinity pod launches in z1 as it would without it (issue #15, R6).
			name:   "anti-affinity pod ignores a pinned target no NodePool can take",
			pods:   []*corev1.Pod{fake.Pod("t1").Label("app", "t").NodeSelector(kcZone, kcZ1).CPU("100000").Obj(), fake.Pod("anti").PodAntiAffinity(kcZone, map[string]string{"app": "t"}).Obj()},
			failed: []string{"t1"},
			want:   map[string]kcWant{"anti": {zone: kcZ1}},
		},
		{
			// All four pods are equal in size, so the order (and which one is left out) follows
			// the pods' UIDs, as in Karpenter: here "anti" sorts first and takes a zone.
			name: "zone anti-affinity against targets pinned in every zone: one pod is left out",
			pods: []*corev1.Pod{target("t1", kcZ1), target("t2", kcZ2), target("t3", kcZ3),
				fake.Pod("anti").PodAntiAffinity(kcZone, map[string]string{"app": "t"}).Obj()},
			nFailed: kcInt(1),
			check: func(t *testing.T, r *kcRes) {
				for _, p := range []string{"t1", "t2", "t3"} {
					if r.placed(p) && r.placed("anti") {
						assert.NotEqual(t, r.domain("anti", kcZone), r.domain(p, kcZone))
					}
				}
			},
		},
		{
			name: "zone anti-affinity against targets in z1 and z2: z3",

			pods: []*corev1.Pod{target("t1", kcZ1), target("t2", kcZ2),
				fake.Pod("anti").PodAntiAffinity(kcZone, map[string]string{"app": "t"}).Obj()},
			want: map[string]kcWant{"anti": {zone: kcZ3}},
		},
		{
			name: "arch anti-affinity: the two pods get different architectures",

			pods: kcPods(2, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").PodAntiAffinity(kcArch, map[string]string{"app": "a"})
			}),
			dist: []kcDist{{key: kcArch, want: []int{1, 1}}},
		},
		{
			name: "Schroedinger: unpinned anti-affinity pod placed first, targets pinned in 3 zones: final outcome anti + 2 targets",

			pods: []*corev1.Pod{fake.Pod("anti").CPU("2").PodAntiAffinity(kcZone, map[string]string{"app": "t"}).Obj(),
				fake.Pod("t1").Label("app", "t").NodeSelector(kcZone, kcZ1).Obj(), fake.Pod("t2").Label("app", "t").NodeSelector(kcZone, kcZ2).Obj(),
				fake.Pod("t3").Label("app", "t").NodeSelector(kcZone, kcZ3).Obj()},
			nFailed: kcInt(1),
			check: func(t *testing.T, r *kcRes) {
				assert.True(t, r.placed("anti"))
				for _, p := range []string{"t1", "t2", "t3"} {
					if r.placed(p) {
						assert.NotEqual(t, r.domain("anti", kcZone), r.domain(p, kcZone), "target %s shares the anti pod's zone", p)
					}
				}
			},
		},
		{
			name:   "inverse anti-affinity: pinned pods in every zone repel X",
			pods:   []*corev1.Pod{inverse("i1", kcZ1), inverse("i2", kcZ2), inverse("i3", kcZ3), x()},
			failed: []string{"x"},
		},
		{
			name: "inverse anti-affinity: pinned pods in z1 and z2 send X to z3",
			pods: []*corev1.Pod{inverse("i1", kcZ1), inverse("i2", kcZ2), x()},
			want: map[string]kcWant{"x": {zone: kcZ3}},
		},
		{
			name: "preferred anti-affinity is not tracked inversely: X scheduled",
			pods: []*corev1.Pod{
				kcPreferredAnti(fake.Pod("i1").NodeSelector(kcZone, kcZ1).Obj(), 10, kcZone, "app", "x"),
				kcPreferredAnti(fake.Pod("i2").NodeSelector(kcZone, kcZ2).Obj(), 10, kcZone, "app", "x"),
				kcPreferredAnti(fake.Pod("i3").NodeSelector(kcZone, kcZ3).Obj(), 10, kcZone, "app", "x"),
				x()},
			failed: nil,
		},
		{
			name: "inverse anti-affinity from pods bound in every zone: X not scheduled",
			nodes: []*cluster.Node{kcFull("n1", zone(kcZ1), boundInverse("b1", "n1")), kcFull("n2", zone(kcZ2), boundInverse("b2", "n2")),
				kcFull("n3", zone(kcZ3), boundInverse("b3", "n3"))},
			pods: []*corev1.Pod{x()}, failed: []string{"x"},
		},
		{
			name:  "inverse anti-affinity from a pod bound in z1: X avoids z1",
			nodes: []*cluster.Node{kcFull("n1", zone(kcZ1), boundInverse("b1", "n1"))},
			pods:  []*corev1.Pod{fake.Pod("x").Label("app", "x").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2).Obj()},
			want:  map[string]kcWant{"x": {zone: kcZ2}},
		},
		{
			name: "inverse hostname anti-affinity from a bound pod keeps X off that node",
			nodes: []*cluster.Node{kcNode("n1", zone(kcZ1), kcRL("cpu", "4", "memory", "4Gi", "pods", "5"),
				kcBound("b", "n1").PodAntiAffinity(kcHost, map[string]string{"app": "x"}).Obj())},
			pods: []*corev1.Pod{x()}, claims: kcInt(1), want: map[string]kcWant{"x": {pool: "default"}},
		},
		{
			name: "affinity to a zone-pinned target: all 10 followers in its zone",
			pods: kcJoin([]*corev1.Pod{target("target", kcZ2)}, followers(10, kcZone)),
			dist: []kcDist{{key: kcZone, want: []int{11}}}, want: map[string]kcWant{"f-0": {zone: kcZ2}},
		},
		{
			name: "affinity to an unpinned target in the same batch: all followers in the target's zone",

			pods: kcJoin([]*corev1.Pod{fake.Pod("target").Label("app", "t").Obj()}, followers(10, kcZone)),
			dist: []kcDist{{key: kcZone, want: []int{11}}},
		},
		{
			name:  "affinity to a pod bound on an existing full node: follower in its zone",
			nodes: []*cluster.Node{kcFull("n2", zone(kcZ2), kcBound("t", "n2", "app", "t").Obj())},
			pods:  followers(1, kcZone), want: map[string]kcWant{"f-0": {zone: kcZ2}},
		},
		{
			name: "dependency chain db <- web <- cache <- ui (hostname affinity): all on one node",
			pods: []*corev1.Pod{
				fake.Pod("ui").Label("app", "ui").PodAffinity(kcHost, map[string]string{"app": "cache"}).Obj(),
				fake.Pod("cache").Label("app", "cache").PodAffinity(kcHost, map[string]string{"app": "web"}).Obj(),
				fake.Pod("web").Label("app", "web").PodAffinity(kcHost, map[string]string{"app": "db"}).Obj(),
				fake.Pod("db").Label("app", "db").Obj(),
			},
			claims: kcInt(1), together: [][]string{{"db", "web", "cache", "ui"}},
		},
		{
			name: "unsatisfiable dependency terminates: both dependants pending",
			pods: []*corev1.Pod{
				fake.Pod("a").Label("app", "a").PodAffinity(kcHost, map[string]string{"app": "b"}).Obj(),
				fake.Pod("b").Label("app", "b").PodAffinity(kcHost, map[string]string{"app": "missing"}).Obj(),
			},
			failed: []string{"a", "b"}, claims: kcInt(0),
		},
		{
			name:   "affinity term without namespaces does not see a target in another namespace",
			pods:   []*corev1.Pod{otherTarget(), nsTerm(func(*corev1.PodAffinityTerm) {})},
			failed: []string{"follower"},
		},
		{
			name:     "affinity term listing the target's namespace: same node",
			pods:     []*corev1.Pod{otherTarget(), nsTerm(func(term *corev1.PodAffinityTerm) { term.Namespaces = []string{"other"} })},
			together: [][]string{{"target", "follower"}},
		},
		{
			name:     "affinity term with an empty namespaceSelector (all namespaces): same node",
			pods:     []*corev1.Pod{otherTarget(), nsTerm(func(term *corev1.PodAffinityTerm) { term.NamespaceSelector = &metav1.LabelSelector{} })},
			together: [][]string{{"target", "follower"}},
		},
		{
			name: "preferred self-affinity conflicting with a required hostname spread: 3 nodes",
			pods: kcPodsP(3, "p", func(n string) *corev1.Pod {
				return kcPreferredAffinity(kcSpread(n, "a", kcHost, 1).Obj(), 10, kcHost, "app", "a")
			}),
			claims: kcInt(3), apart: [][]string{kcNamesN(3, "p")},
		},
	})
}
