package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// Karpenter-core reference 6.6 / 1.8: DaemonSet overhead.
func TestKCoreSemDaemonSets(t *testing.T) {
	pod := func() []*corev1.Pod { return []*corev1.Pod{fake.Pod("p").CPU("1").Memory("1Gi").Obj()} }
	ds := func(f func(spec *corev1.PodSpec)) []*appsv1.DaemonSet {
		return []*appsv1.DaemonSet{kcDS("ds", "1", "1Gi", f)}
	}
	small := map[string]kcWant{"p": {itype: kcSmall}}
	def := map[string]kcWant{"p": {itype: kcDefault}}
	affinity := func(terms ...corev1.NodeSelectorTerm) func(spec *corev1.PodSpec) {
		return func(spec *corev1.PodSpec) {
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
	}
	term := func(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: exprs}
	}
	existing16 := func(bound ...*corev1.Pod) []*cluster.Node {
		return []*cluster.Node{kcNode("n1", map[string]string{kcArch: v1.ArchitectureAmd64, kcOS: "linux"},
			kcRL("cpu", "16", "memory", "32Gi", "pods", "50"), bound...)}
	}
	dsPod := kcMut(kcBound("ds-n1", "n1").CPU("1").Obj(), func(p *corev1.Pod) {
		p.Namespace = "kube-system"
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", Controller: kcPtr(true)}}
	})

	kcRun(t, []kcCase{
		{name: "without DaemonSets a 1cpu/1Gi pod fits the small type", pods: pod(), claims: kcInt(1), want: small},
		{
			name: "DaemonSet requests are counted: default type instead of small", pods: pod(), daemonSets: ds(nil),
			claims: kcInt(1), want: def,
			check: func(t *testing.T, r *kcRes) {
				req := r.claimOf("p").Requests[corev1.ResourceCPU]
				assert.Equal(t, 0, req.Cmp(resource.MustParse("2")), "claim cpu requests = pod + daemon, got %s", req.String())
			},
		},
		{
			name:       "NodeClaim requests: 2 pods x 1 cpu + 1 cpu DaemonSet = 3 cpu (overhead not double-counted)",
			pods:       kcPods(2, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).CPU("1") }),
			daemonSets: []*appsv1.DaemonSet{kcDS("ds", "1", "0", nil)},
			claims:     kcInt(1), want: map[string]kcWant{"p-0": {itype: kcDefault}},
			check: func(t *testing.T, r *kcRes) {
				req := r.claimOf("p-0").Requests[corev1.ResourceCPU]
				assert.Equal(t, 0, req.Cmp(resource.MustParse("3")), "claim cpu requests %s", req.String())
			},
		},
		{
			name: "DaemonSet host port equal to the pod's: not scheduled",
			pods: []*corev1.Pod{fake.Pod("p").HostPort(8080).Obj()},
			daemonSets: ds(func(spec *corev1.PodSpec) {
				spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
			}),
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "NodePool startup taint not tolerated by the DaemonSet: still counted",
			pools: kcPools(kcPool("default").StartupTaint("startup", "x", corev1.TaintEffectNoSchedule)),
			pods:  pod(), daemonSets: ds(nil), claims: kcInt(1), want: def,
		},
		{
			name: "DaemonSet larger than any type: pod not scheduled",
			pods: pod(), daemonSets: []*appsv1.DaemonSet{kcDS("ds", "100", "1Gi", nil)},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:       "DaemonSet not tolerating the NodePool taint: ignored",
			pools:      kcPools(kcPool("default").Taint("team", "a", corev1.TaintEffectNoSchedule)),
			pods:       []*corev1.Pod{fake.Pod("p").CPU("1").Memory("1Gi").Tolerate("team", "a", corev1.TaintEffectNoSchedule).Obj()},
			daemonSets: ds(nil), claims: kcInt(1), want: small,
		},
		{
			name:  "DaemonSet tolerating the NodePool taint: counted",
			pools: kcPools(kcPool("default").Taint("team", "a", corev1.TaintEffectNoSchedule)),
			pods:  []*corev1.Pod{fake.Pod("p").CPU("1").Memory("1Gi").Tolerate("team", "a", corev1.TaintEffectNoSchedule).Obj()},
			daemonSets: ds(func(spec *corev1.PodSpec) {
				spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			}),
			claims: kcInt(1), want: def,
		},
		{
			name:       "NodePool PreferNoSchedule taint: DaemonSet counted",
			pools:      kcPools(kcPool("default").Taint("soft", "x", corev1.TaintEffectPreferNoSchedule)),
			pods:       []*corev1.Pod{fake.Pod("p").CPU("1").Memory("1Gi").Tolerate("soft", "x", corev1.TaintEffectPreferNoSchedule).Obj()},
			daemonSets: ds(nil), claims: kcInt(1), want: def,
		},
		{
			name:       "DaemonSet nodeSelector matching a NodePool label: counted",
			pools:      kcPools(kcPool("default").Label("team", "a")),
			pods:       pod(),
			daemonSets: ds(func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{"team": "a"} }),
			claims:     kcInt(1), want: def,
		},
		{
			name:       "DaemonSet nodeSelector on a value the NodePool does not have: ignored",
			pools:      kcPools(kcPool("default").Label("team", "a")),
			pods:       pod(),
			daemonSets: ds(func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{"team": "b"} }),
			claims:     kcInt(1), want: small,
		},
		{
			name:       "DaemonSet matching no instance type (arm64 only, amd64 pod): ignored",
			pods:       []*corev1.Pod{fake.Pod("p").CPU("1").Memory("1Gi").NodeSelector(kcArch, v1.ArchitectureAmd64).Obj()},
			daemonSets: ds(func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{kcArch: v1.ArchitectureArm64} }),
			claims:     kcInt(1), want: small,
		},
		{
			name:       "DaemonSet filtered by instance type: counted only on the default type it selects",
			pods:       pod(),
			daemonSets: ds(func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{kcIT: kcSmall} }),
			claims:     kcInt(1), want: def,
		},
		{
			name:       "DaemonSet NotIn on an undefined key: counted",
			pods:       pod(),
			daemonSets: ds(affinity(term(kcTerm("undefined-key", kcNotIn, "x")))),
			claims:     kcInt(1), want: def,
		},
		{
			name:       "DaemonSet whose second affinity term matches: counted",
			pods:       pod(),
			daemonSets: ds(affinity(term(kcTerm("undefined-key", kcIn, "x")), term(kcTerm(kcOS, kcIn, "linux")))),
			claims:     kcInt(1), want: def,
		},
		{
			name: "DaemonSet with an incompatible preference: counted",
			pods: pod(),
			daemonSets: ds(func(spec *corev1.PodSpec) {
				spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
					{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{kcTerm(kcZone, kcIn, "invalid")}}}}}}
			}),
			claims: kcInt(1), want: def,
		},
		{
			name: "DaemonSet affinity on karpenter.sh/initialized: counted, key absent from the NodeClaim",

			pods:       pod(),
			daemonSets: ds(affinity(term(kcTerm(v1.NodeInitializedLabelKey, kcIn, "true")))),
			claims:     kcInt(1), want: def,
			check: func(t *testing.T, r *kcRes) {
				c := r.claimOf("p")
				assert.False(t, c.Requirements.Has(v1.NodeInitializedLabelKey), "initialized key in requirements")
				assert.False(t, c.Requirements.Has(v1.NodeRegisteredLabelKey), "registered key in requirements")
				assert.NotContains(t, c.Labels, v1.NodeInitializedLabelKey)
			},
		},
		{
			name: "DaemonSet host port only on types it runs on: the pod's same port still fits the small type",
			pods: []*corev1.Pod{fake.Pod("p").HostPort(80).Obj()},
			daemonSets: ds(func(spec *corev1.PodSpec) {
				spec.NodeSelector = map[string]string{kcArch: v1.ArchitectureArm64}
				spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80, Protocol: corev1.ProtocolTCP}}
			}),
			claims: kcInt(1), want: small,
		},
		{
			name: "DaemonSet with DRA claims is ignored",
			pods: pod(),
			daemonSets: ds(func(spec *corev1.PodSpec) {
				spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: kcPtr("gpu")}}
				spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
			}),
			claims: kcInt(1), want: small,
		},
		{
			name:       "existing node: DaemonSet pod already bound is not subtracted twice (14.9 cpu pod fits)",
			pods:       []*corev1.Pod{fake.Pod("p").CPU("14.9").Obj()},
			nodes:      existing16(dsPod),
			daemonSets: []*appsv1.DaemonSet{kcDS("ds", "1", "0", nil)},
			claims:     kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name:       "existing node: DaemonSet not yet running there is subtracted (15.5 cpu pod does not fit)",
			pods:       []*corev1.Pod{fake.Pod("p").CPU("15.5").Obj()},
			nodes:      existing16(),
			daemonSets: []*appsv1.DaemonSet{kcDS("ds", "1", "0", nil)},
			failed:     []string{"p"}, claims: kcInt(0),
		},
		{
			name:       "existing node: DaemonSet incompatible with the node is not subtracted",
			pods:       []*corev1.Pod{fake.Pod("p").CPU("15.5").Obj()},
			nodes:      existing16(),
			daemonSets: []*appsv1.DaemonSet{kcDS("ds", "1", "0", func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{kcArch: v1.ArchitectureArm64} })},
			claims:     kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name:       "DaemonSet incompatible with an existing node but whose 100 cpu blocks every new node",
			pools:      kcPools(kcPool("default").Label("team", "a")),
			pods:       []*corev1.Pod{fake.Pod("a").CPU("1").Obj(), fake.Pod("b").CPU("15.5").Obj()},
			nodes:      existing16(),
			daemonSets: []*appsv1.DaemonSet{kcDS("ds", "100", "0", func(spec *corev1.PodSpec) { spec.NodeSelector = map[string]string{"team": "a"} })},
			claims:     kcInt(0), failed: []string{"a"}, want: map[string]kcWant{"b": {existing: "n1"}},
		},
	})
}

// Karpenter-core reference 6.7 / 1.5: existing nodes, in-flight NodeClaims and taints.
func TestKCoreSemExistingNodes(t *testing.T) {
	room := kcRL("cpu", "4", "memory", "4Gi", "pods", "5")
	zl := func(zone string) map[string]string {
		return map[string]string{kcZone: zone, kcIT: kcDefault, kcCT: v1.CapacityTypeOnDemand, kcArch: v1.ArchitectureAmd64, kcOS: "linux"}
	}
	inflight := func(name, zone string) *cluster.Node { return kcInflight(name, "default", zl(zone), room) }
	uninit := func(name string, taints ...corev1.Taint) *cluster.Node {
		return kcWithTaints(kcManaged(name, "default", false, zl(kcZ1), room), taints...)
	}
	initd := func(name string, taints ...corev1.Taint) *cluster.Node {
		return kcWithTaints(kcManaged(name, "default", true, zl(kcZ1), room), taints...)
	}
	withStartup := func(n *cluster.Node, t corev1.Taint) *cluster.Node {
		n.NodeClaim.Spec.StartupTaints = append(n.NodeClaim.Spec.StartupTaints, t)
		return kcWithTaints(n, t)
	}
	notReady := kcTaint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoExecute)
	custom := kcTaint("custom", "x", corev1.TaintEffectNoSchedule)
	startup := kcTaint("startup", "x", corev1.TaintEffectNoSchedule)
	deletingClaim := inflight("nc-1", kcZ1)
	now := metav1.Now()
	deletingClaim.NodeClaim.DeletionTimestamp = &now
	marked := kcNode("n1", zl(kcZ1), room)
	p1 := func() []*corev1.Pod { return []*corev1.Pod{fake.Pod("p").CPU("1").Obj()} }
	onNew := map[string]kcWant{"p": {pool: "default"}}

	kcRun(t, []kcCase{
		{
			name:  "unmanaged existing node with room takes the pods, nothing launched",
			pods:  kcPods(3, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).CPU("1") }),
			nodes: []*cluster.Node{kcNode("n1", zl(kcZ1), room)}, claims: kcInt(0),
			want: map[string]kcWant{"p-0": {existing: "n1"}, "p-1": {existing: "n1"}, "p-2": {existing: "n1"}},
		},
		{
			name:   "existing node capacity is reduced by its bound pods",
			pods:   []*corev1.Pod{fake.Pod("p").CPU("2").Obj()},
			nodes:  []*cluster.Node{kcNode("n1", zl(kcZ1), room, kcBound("b", "n1").CPU("3").Obj())},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "default"}},
		},
		{
			name:  "existing node without a zone label is not used by a pod requiring z1",
			pods:  []*corev1.Pod{fake.Pod("p").NodeSelector(kcZone, kcZ1).Obj()},
			nodes: []*cluster.Node{kcNode("n1", nil, room)}, claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ1}},
		},
		{
			name:  "existing node missing a custom label is fine for a pod requiring NotIn on it",
			pods:  []*corev1.Pod{fake.Pod("p").NodeRequirement("team", kcNotIn, "a").Obj()},
			nodes: []*cluster.Node{kcNode("n1", zl(kcZ1), room)}, claims: kcInt(0),
			want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name:  "existing node with an untolerated NoSchedule taint is skipped",
			pods:  p1(),
			nodes: []*cluster.Node{kcWithTaints(kcNode("n1", zl(kcZ1), room), custom)}, claims: kcInt(1), want: onNew,
		},
		{
			name:  "existing node with a tolerated taint is used",
			pods:  []*corev1.Pod{fake.Pod("p").CPU("1").Tolerate("custom", "x", corev1.TaintEffectNoSchedule).Obj()},
			nodes: []*cluster.Node{kcWithTaints(kcNode("n1", zl(kcZ1), room), custom)}, claims: kcInt(0),
			want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name:   "existing node with a PreferNoSchedule taint is used (after relaxation)",
			pods:   p1(),
			pools:  kcPools(kcPool("default").Taint("soft", "x", corev1.TaintEffectPreferNoSchedule)),
			nodes:  []*cluster.Node{kcWithTaints(kcNode("n1", zl(kcZ1), room), kcTaint("soft", "x", corev1.TaintEffectPreferNoSchedule))},
			claims: kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name: "second pod fits the in-flight NodeClaim: no new node", pods: p1(),
			nodes: []*cluster.Node{inflight("nc-1", kcZ1)}, claims: kcInt(0), want: map[string]kcWant{"p": {existing: "nc-1"}},
		},
		{
			name:  "selector intersecting the in-flight zone reuses it",
			pods:  []*corev1.Pod{fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2).Obj()},
			nodes: []*cluster.Node{inflight("nc-1", kcZ1)}, claims: kcInt(0), want: map[string]kcWant{"p": {existing: "nc-1"}},
		},
		{
			name:  "selector disjoint from the in-flight zone opens a new node",
			pods:  []*corev1.Pod{fake.Pod("p").NodeSelector(kcZone, kcZ2).Obj()},
			nodes: []*cluster.Node{inflight("nc-1", kcZ1)}, claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name:   "pod too big for the in-flight NodeClaim's remaining capacity opens a new node",
			pods:   []*corev1.Pod{fake.Pod("p").CPU("3").Obj()},
			nodes:  []*cluster.Node{kcInflight("nc-1", "default", zl(kcZ1), room, kcBound("b", "nc-1").CPU("2").Obj())},
			claims: kcInt(1), want: onNew,
		},
		{
			name: "terminating in-flight NodeClaim is not used", pods: p1(),
			nodes: []*cluster.Node{deletingClaim}, claims: kcInt(1), want: onNew,
		},
		{
			name: "node marked for deletion takes no pods", pods: p1(),
			nodes: []*cluster.Node{marked}, deleting: []string{"n1"}, claims: kcInt(1), want: onNew,
		},
		{
			name: "uninitialized node with only the not-ready NoExecute taint is reused", pods: p1(),
			nodes: []*cluster.Node{uninit("n1", notReady)}, claims: kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name: "uninitialized node with a readiness.k8s.io taint is reused", pods: p1(),
			nodes:  []*cluster.Node{uninit("n1", kcTaint("readiness.k8s.io/network", "", corev1.TaintEffectNoSchedule))},
			claims: kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name: "initialized node with the not-ready NoExecute taint is not reused", pods: p1(),
			nodes: []*cluster.Node{initd("n1", notReady)}, claims: kcInt(1), want: onNew,
		},
		{
			name: "node with a custom NoSchedule taint is not reused", pods: p1(),
			nodes: []*cluster.Node{uninit("n1", custom)}, claims: kcInt(1), want: onNew,
		},
		{
			name: "uninitialized node with its startup taint is reused", pods: p1(),
			nodes: []*cluster.Node{withStartup(uninit("n1"), startup)}, claims: kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name: "initialized node whose startup taint re-appeared is not reused", pods: p1(),
			nodes: []*cluster.Node{withStartup(initd("n1"), startup)}, claims: kcInt(1), want: onNew,
		},
		{
			name: "initialized nodes are preferred over uninitialized ones, regardless of name", pods: p1(),
			nodes:  []*cluster.Node{uninit("a-1"), uninit("a-2"), uninit("a-3"), initd("z-1")},
			claims: kcInt(0), want: map[string]kcWant{"p": {existing: "z-1"}},
		},
		{
			name: "among initialized nodes the first by name wins", pods: p1(),
			nodes:  []*cluster.Node{kcNode("node-b", zl(kcZ1), room), kcNode("node-a", zl(kcZ1), room)},
			claims: kcInt(0), want: map[string]kcWant{"p": {existing: "node-a"}},
		},
		{
			name:   "two pods with the same host port land on different new nodes",
			pods:   []*corev1.Pod{fake.Pod("a").HostPort(80).Obj(), fake.Pod("b").HostPort(80).Obj()},
			claims: kcInt(2), apart: [][]string{{"a", "b"}},
		},
		{
			name:   "two pods with different host ports share a node",
			pods:   []*corev1.Pod{fake.Pod("a").HostPort(80).Obj(), fake.Pod("b").HostPort(81).Obj()},
			claims: kcInt(1), together: [][]string{{"a", "b"}},
		},
		{
			name:   "host port used by a pod bound to the existing node: new node",
			pods:   []*corev1.Pod{fake.Pod("p").HostPort(80).Obj()},
			nodes:  []*cluster.Node{kcNode("n1", zl(kcZ1), room, kcBound("b", "n1").HostPort(80).Obj())},
			claims: kcInt(1), want: onNew,
		},
		{
			name: "zonal spread across in-flight NodeClaims in three zones: no extra nodes",
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpread(kcZone, 1, map[string]string{"app": "a"})
			}),
			nodes:  []*cluster.Node{inflight("nc-1", kcZ1), inflight("nc-2", kcZ2), inflight("nc-3", kcZ3)},
			claims: kcInt(0), dist: []kcDist{{key: kcZone, want: []int{1, 1, 1}}},
		},
		{
			name: "hostname spread with one in-flight NodeClaim: new nodes rather than stacking",
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).Label("app", "a").TopologySpread(kcHost, 1, map[string]string{"app": "a"})
			}),
			nodes:  []*cluster.Node{inflight("nc-1", kcZ1)},
			claims: kcInt(2), apart: [][]string{kcNamesN(3, "p")},
		},
		{
			name: "zonal self-affinity reuses the in-flight NodeClaim's zone",
			pods: kcPods(3, "p", func(n string) *fake.PodBuilder {
				return fake.Pod(n).CPU("1").Label("app", "a").PodAffinity(kcZone, map[string]string{"app": "a"})
			}),
			nodes: []*cluster.Node{inflight("nc-1", kcZ2)},
			dist:  []kcDist{{key: kcZone, want: []int{3}}},
			want:  map[string]kcWant{"p-0": {existing: "nc-1"}},
		},
		{
			name:  "existing nodes are filled before a new node is launched",
			pods:  kcPods(4, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).CPU("1.5") }),
			nodes: []*cluster.Node{kcNode("n1", zl(kcZ1), room)}, claims: kcInt(1),
			check: func(t *testing.T, r *kcRes) {
				assert.Len(t, byNode(r.res), 1)
				assert.Len(t, r.res.Bindings, 2)
			},
		},
	})
}
