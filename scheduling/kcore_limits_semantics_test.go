package scheduling_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter-core reference 6.12 / 1.4 / 1.16 / 1.19: limits, weights and NodeClaim labels.
func TestKCoreSemLimitsAndWeights(t *testing.T) {
	one := func(b *fake.PodBuilder) []*corev1.Pod { return []*corev1.Pod{b.Obj()} }
	antiHost := func(n int, cpu string) []*corev1.Pod {
		return kcPods(n, "p", func(name string) *fake.PodBuilder {
			return fake.Pod(name).CPU(cpu).Label("app", "a").PodAntiAffinity(kcHost, map[string]string{"app": "a"})
		})
	}
	// a full (one pod slot, one bound pod) 16-cpu node of NodePool "default"
	managed16 := kcManaged("n1", "default", true, map[string]string{kcZone: kcZ1, kcIT: kcArm},
		kcRL("cpu", "16", "memory", "128Gi", "pods", "1"), kcBound("b", "n1").Obj())
	intLabel := func(key string, cmp func(n int) bool) func(t *testing.T, r *kcRes) {
		return func(t *testing.T, r *kcRes) {
			v, ok := r.claimOf("p").Labels[key]
			require.True(t, ok, "label %s missing: %v", key, r.claimOf("p").Labels)
			n, err := strconv.Atoi(v)
			require.NoError(t, err, "label %s=%q is not an integer", key, v)
			assert.True(t, cmp(n), "label %s=%d out of range", key, n)
		}
	}

	kcRun(t, []kcCase{
		{
			name:  "cpu limit 10: a 14-cpu pod (only the 16-cpu type fits) is not scheduled",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "10")),
			pods:  one(fake.Pod("p").CPU("14")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "no limit: the same 14-cpu pod is scheduled",
			pods: one(fake.Pod("p").CPU("14")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name:  "cpu limit 2: a 2.1-cpu pod is not scheduled",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "2")),
			pods:  one(fake.Pod("p").CPU("2.1")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "cpu limit 2: a 1.75-cpu pod gets the 2-cpu type, a second one does not fit the limit",
			pools:  kcPools(kcPool("default").Limit(corev1.ResourceCPU, "2")),
			pods:   []*corev1.Pod{fake.Pod("a").CPU("1.75").Obj(), fake.Pod("b").CPU("1.75").Obj()},
			claims: kcInt(1), nFailed: kcInt(1),
			check: func(t *testing.T, r *kcRes) { assert.Equal(t, kcSmall, r.res.NewNodeClaims[0].InstanceType.Name) },
		},
		{
			name:  "cpu limit 2: the NodeClaim's options are limited to types within the limit",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "2")),
			pods:  one(fake.Pod("p").CPU("1")), claims: kcInt(1),
			check: func(t *testing.T, r *kcRes) {
				for _, it := range r.claimOf("p").InstanceTypeOptions {
					assert.Equal(t, kcSmall, it.Name)
				}
			},
		},
		{
			name:  "cpu limit 3: two 1.5-cpu pods with hostname anti-affinity, exactly one scheduled",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "3")),
			pods:  antiHost(2, "1.5"), claims: kcInt(1), nFailed: kcInt(1),
		},
		{
			name:  "memory limit 3Gi: a 1Gi pod gets the 2Gi type only",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceMemory, "3Gi")),
			pods:  one(fake.Pod("p").Memory("1Gi").PreferredNodeRequirement(1, kcIT, kcIn, kcDefault)), claims: kcInt(1),
			want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name:  "pods limit 1: every type has 5 pods of capacity, not scheduled",
			pools: kcPools(kcPool("default").Limit(corev1.ResourcePods, "1").Requirement(kcIT, kcNotIn, kcSinglePod)),
			pods:  one(fake.Pod("p")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "cpu limit 20 with an existing 16-cpu node of the NodePool: 3-cpu pod fits a 4-cpu type",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "20")),
			nodes: []*cluster.Node{managed16}, pods: one(fake.Pod("p").CPU("3")), claims: kcInt(1),
			want: map[string]kcWant{"p": {itype: kcDefault}},
		},
		{
			name:  "cpu limit 20 with an existing 16-cpu node of the NodePool: 14-cpu pod exceeds the limit",
			pools: kcPools(kcPool("default").Limit(corev1.ResourceCPU, "20")),
			nodes: []*cluster.Node{managed16}, pods: one(fake.Pod("p").CPU("14")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "pods limit 1: only the single-pod type (1 pod of capacity) is within the limit",
			pools: kcPools(kcPool("default").Limit(corev1.ResourcePods, "1")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSinglePod}},
		},
		{
			name:  "nodes limit 0: not scheduled",
			pools: kcPools(kcPool("default").Limit("nodes", "0")),
			pods:  one(fake.Pod("p")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "nodes limit 1 with an existing node of the NodePool: exhausted, not scheduled",
			pools: kcPools(kcPool("default").Limit("nodes", "1")),
			nodes: []*cluster.Node{managed16}, pods: one(fake.Pod("p").CPU("1")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "nodes limit 2, three pods needing one node each: final outcome two nodes, one pod pending",
			pools: kcPools(kcPool("default").Limit("nodes", "2")),
			pods:  antiHost(3, "1"), claims: kcInt(2), nFailed: kcInt(1),
		},
		{
			name:  "weights 20 and 100: the weight-100 NodePool is used",
			pools: kcPools(kcPool("low").Weight(20), kcPool("high").Weight(100)),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {pool: "high"}},
		},
		{
			name:  "explicit karpenter.sh/nodepool selector beats weight",
			pools: kcPools(kcPool("low").Weight(20), kcPool("high").Weight(100)),
			pods:  one(fake.Pod("p").NodeSelector(v1.NodePoolLabelKey, "low")), claims: kcInt(1), want: map[string]kcWant{"p": {pool: "low"}},
		},
		{
			name:  "selection by a NodePool template label",
			pools: kcPools(kcPool("a").Weight(50).Label("team", "a"), kcPool("b").Label("team", "b")),
			pods:  one(fake.Pod("p").NodeSelector("team", "b")), claims: kcInt(1),
			want: map[string]kcWant{"p": {pool: "b", labels: map[string]string{"team": "b"}}},
		},
		{
			name:  "equal weights: name descending wins",
			pools: kcPools(kcPool("alpha"), kcPool("beta")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {pool: "beta"}},
		},
		{
			name:  "higher-weight NodePool that cannot fit the pod falls back to the lower one",
			pools: kcPools(kcPool("high").Weight(100).Requirement(kcZone, kcIn, kcZ1), kcPool("low").Weight(1)),
			pods:  one(fake.Pod("p").NodeSelector(kcZone, kcZ2)), claims: kcInt(1), want: map[string]kcWant{"p": {pool: "low", zone: kcZ2}},
		},
		{
			name:  "higher-weight NodePool over its limit falls back to the lower one",
			pools: kcPools(kcPool("high").Weight(100).Limit(corev1.ResourceCPU, "2"), kcPool("low").Weight(1)),
			pods:  one(fake.Pod("p").CPU("3")), claims: kcInt(1), want: map[string]kcWant{"p": {pool: "low"}},
		},
		{
			name:  "labels: template labels copied onto the NodeClaim",
			pools: kcPools(kcPool("default").Label("team", "a").Label("tier", "gold")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {labels: map[string]string{"team": "a", "tier": "gold"}}},
		},
		{
			name:  "labels: custom In requirement resolved to its value",
			pools: kcPools(kcPool("default").Requirement("foo", kcIn, "bar")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {labels: map[string]string{"foo": "bar"}}},
		},
		{
			name:  "labels: custom NotIn requirement gets some value other than the excluded one",
			pools: kcPools(kcPool("default").Requirement("foo", kcNotIn, "bar")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {notValues: map[string]string{"foo": "bar"}}},
			check: func(t *testing.T, r *kcRes) { assert.Contains(t, r.claimOf("p").Labels, "foo") },
		},
		{
			name:  "labels: custom Gt 10 requirement gets an integer above 10",
			pools: kcPools(kcPool("default").Requirement("foo", kcGt, "10")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), check: intLabel("foo", func(n int) bool { return n > 10 }),
		},
		{
			name:  "labels: custom Lt 10 requirement gets an integer below 10",
			pools: kcPools(kcPool("default").Requirement("foo", kcLt, "10")),
			pods:  one(fake.Pod("p")), claims: kcInt(1), check: intLabel("foo", func(n int) bool { return n < 10 && n >= 0 }),
		},
		{
			name:  "labels: custom Exists requirement puts the key on the node",
			pools: kcPools(kcPool("default").Requirement("foo", kcExists)),
			pods:  one(fake.Pod("p")), claims: kcInt(1),
			check: func(t *testing.T, r *kcRes) { assert.Contains(t, r.claimOf("p").Labels, "foo") },
		},
		{
			name:  "labels: custom DoesNotExist requirement keeps the key off the node",
			pools: kcPools(kcPool("default").Requirement("foo", kcDoesNotExist)),
			pods:  one(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {noLabels: []string{"foo"}}},
		},
		{
			name:  "labels: a well-known key (windows-build) from requirements is not labelled, a custom one is",
			pools: kcPools(kcPool("default").Requirement(v1.LabelWindowsBuild, kcIn, "10.0.17763").Requirement("foo", kcIn, "bar")),
			pods:  one(fake.Pod("p")), claims: kcInt(1),
			want: map[string]kcWant{"p": {labels: map[string]string{"foo": "bar"}, noLabels: []string{v1.LabelWindowsBuild}}},
		},
		{
			name:  "labels: custom key narrowed by the pod resolves to the pod's value",
			pools: kcPools(kcPool("default").Requirement("foo", kcIn, "a", "b", "c")),
			pods:  one(fake.Pod("p").NodeSelector("foo", "b")), claims: kcInt(1), want: map[string]kcWant{"p": {labels: map[string]string{"foo": "b"}}},
		},
	})
}

// kcMixedObjects is a varied workload touching most features, rebuilt fresh on every call.
func kcMixedObjects() cluster.Objects {
	var pods []*corev1.Pod
	pods = append(pods, kcPods(6, "zonal", func(n string) *fake.PodBuilder { return kcSpread(n, "z", kcZone, 1).CPU("500m") })...)
	pods = append(pods, kcPods(4, "host", func(n string) *fake.PodBuilder { return kcSpread(n, "h", kcHost, 1).Memory("1Gi") })...)
	pods = append(pods, kcPods(5, "anti", func(n string) *fake.PodBuilder {
		return fake.Pod(n).CPU("1").Label("app", "anti").PodAntiAffinity(kcHost, map[string]string{"app": "anti"})
	})...)
	pods = append(pods, kcPods(5, "aff", func(n string) *fake.PodBuilder {
		return fake.Pod(n).CPU("250m").Label("app", "aff").PodAffinity(kcZone, map[string]string{"app": "aff"})
	})...)
	pods = append(pods, kcPods(8, "plain", func(n string) *fake.PodBuilder {
		return fake.Pod(n).CPU(strconv.Itoa(int(n[len(n)-1]-'0')+1) + "00m").Memory("256Mi")
	})...)
	pods = append(pods, fake.Pod("arm").NodeSelector(kcArch, v1.ArchitectureArm64).Obj(),
		fake.Pod("custom").NodeRequirement("foo", kcExists).Obj(),
		fake.Pod("pref").PreferredNodeRequirement(5, kcZone, kcIn, kcZ3).Obj(),
		fake.Pod("bad").NodeSelector(kcHost, "x").Obj())
	return withNodes(cluster.Objects{
		Pods: pods,
		NodePools: kcPools(kcPool("default").Weight(10).Requirement("foo", kcNotIn, "x").Limit(corev1.ResourceCPU, "100"),
			kcPool("spot").Requirement(kcCT, kcIn, v1.CapacityTypeSpot).Taint("spot", "true", corev1.TaintEffectPreferNoSchedule)),
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": kcF1(), "spot": fake.InstanceTypes(8)},
		WellKnownLabels: fake.WellKnownLabels(),
		DaemonSets:      []*appsv1.DaemonSet{kcDS("ds", "100m", "100Mi", nil)},
	},
		kcNode("n1", map[string]string{kcZone: kcZ1}, kcRL("cpu", "2", "memory", "2Gi", "pods", "5"), kcBound("b1", "n1", "app", "z").Obj()),
		kcInflight("nc-1", "default", map[string]string{kcZone: kcZ2, kcIT: kcDefault}, kcRL("cpu", "4", "memory", "4Gi", "pods", "5")))
}

// Determinism and purity (doc.go): same input gives identical results; the input is never modified.
func TestKCoreSemDeterminismAndPurity(t *testing.T) {
	inputs := []struct {
		name string
		objs func() cluster.Objects
	}{
		{"mixed workload", kcMixedObjects},
		{"zonal spread only", func() cluster.Objects {
			c := kcCase{pods: kcPods(10, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcZone, 1) })}
			return c.objects()
		}},
		{"custom labels from NotIn/Exists/Gt requirements", func() cluster.Objects {
			c := kcCase{pools: kcPools(kcPool("default").Requirement("a", kcNotIn, "x").Requirement("b", kcExists).Requirement("c", kcGt, "5")),
				pods: kcPods(3, "p", func(n string) *fake.PodBuilder { return fake.Pod(n).CPU("1") })}
			return c.objects()
		}},
		{"assorted instance types", func() cluster.Objects {
			c := kcCase{types: fake.InstanceTypesAssorted(),
				pods: kcPods(12, "p", func(n string) *fake.PodBuilder { return kcSpread(n, "a", kcHost, 1).CPU("3").Memory("5Gi") })}
			return c.objects()
		}},
	}
	for _, tc := range inputs {
		t.Run(tc.name+": Solve on two deep copies gives identical results", func(t *testing.T) {
			objs := tc.objs()
			r1 := mustSolve(t, snapOf(t, kcCopyObjects(objs)), scheduling.Options{})
			r2 := mustSolve(t, snapOf(t, kcCopyObjects(objs)), scheduling.Options{})
			require.NotEmpty(t, r1.NewNodeClaims)
			assert.Equal(t, kcSummary(r1), kcSummary(r2))
			assert.True(t, reflect.DeepEqual(kcComparable(r1), kcComparable(r2)), "results differ")
		})
		t.Run(tc.name+": Solve twice on the same input gives identical results", func(t *testing.T) {
			snap := snapOf(t, tc.objs())
			r1 := mustSolve(t, snap, scheduling.Options{})
			r2 := mustSolve(t, snap, scheduling.Options{})
			assert.Equal(t, kcSummary(r1), kcSummary(r2))
		})
		t.Run(tc.name+": Solve does not modify its input", func(t *testing.T) {
			objs := tc.objs()
			pristine := kcCopyObjects(objs)
			mustSolve(t, snapOf(t, objs), scheduling.Options{})
			assert.True(t, reflect.DeepEqual(pristine.Pods, objs.Pods), "pods modified")
			assert.True(t, reflect.DeepEqual(pristine.NodePools, objs.NodePools), "NodePools modified")
			assert.True(t, reflect.DeepEqual(pristine.Nodes, objs.Nodes), "nodes modified")
			assert.True(t, reflect.DeepEqual(pristine.NodeClaims, objs.NodeClaims), "NodeClaims modified")
			assert.True(t, reflect.DeepEqual(pristine.DaemonSets, objs.DaemonSets), "DaemonSets modified")
			assert.True(t, reflect.DeepEqual(pristine.WellKnownLabels, objs.WellKnownLabels), "well-known labels modified")
			kcSameInstanceTypes(t, pristine.InstanceTypes, objs.InstanceTypes)
		})
	}
}

// kcCopyObjects deep-copies objects (instance types field by field, without their caches).
// Copies are needed because the fake prices are float sums over a map, so two separately
// built fixtures may differ in the last bit.
func kcCopyObjects(in cluster.Objects) cluster.Objects {
	var out cluster.Objects
	for _, p := range in.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	for _, np := range in.NodePools {
		out.NodePools = append(out.NodePools, np.DeepCopy())
	}
	for _, n := range in.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	for _, nc := range in.NodeClaims {
		out.NodeClaims = append(out.NodeClaims, nc.DeepCopy())
	}
	for _, ds := range in.DaemonSets {
		out.DaemonSets = append(out.DaemonSets, ds.DeepCopy())
	}
	if in.WellKnownLabels != nil {
		out.WellKnownLabels = map[string]bool{}
		for k, v := range in.WellKnownLabels {
			out.WellKnownLabels[k] = v
		}
	}
	out.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
	for pool, its := range in.InstanceTypes {
		var cp cloudprovider.InstanceTypes
		for _, it := range its {
			c := &cloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements.Copy(), Capacity: it.Capacity.DeepCopy()}
			if it.Overhead != nil {
				c.Overhead = &cloudprovider.InstanceTypeOverhead{KubeReserved: it.Overhead.KubeReserved.DeepCopy(),
					SystemReserved: it.Overhead.SystemReserved.DeepCopy(), EvictionThreshold: it.Overhead.EvictionThreshold.DeepCopy()}
			}
			for _, o := range it.Offerings {
				oc := *o
				oc.Requirements = o.Requirements.Copy()
				c.Offerings = append(c.Offerings, &oc)
			}
			cp = append(cp, c)
		}
		out.InstanceTypes[pool] = cp
	}
	return out
}

// kcSummary is a readable, complete text of a result.
func kcSummary(r *scheduling.Result) []string {
	var out []string
	for _, c := range r.NewNodeClaims {
		s := "claim " + c.NodePool + " " + c.Hostname + " pods=" + kcJoinNames(c.Pods) + " reqs=" + c.Requirements.String()
		if c.InstanceType != nil {
			s += " type=" + c.InstanceType.Name
		}
		if c.Offering != nil {
			s += " offering=" + c.Offering.Zone() + "/" + c.Offering.CapacityType()
		}
		s += " labels=" + kcMapString(c.Labels)
		var opts []string
		for _, it := range c.InstanceTypeOptions {
			opts = append(opts, it.Name)
		}
		s += " options=" + kcJoinStrings(opts)
		reqs := map[string]string{}
		for name, q := range c.Requests {
			reqs[string(name)] = q.String()
		}
		s += " requests=" + kcMapString(reqs)
		out = append(out, s)
	}
	for _, b := range r.Bindings {
		out = append(out, "existing "+b.To+" pod="+b.Pod.Name)
	}
	for _, e := range r.PodErrors {
		out = append(out, "error "+e.Pod.Name+": "+e.Message())
	}
	return out
}

// kcComparable strips instance-type pointers (they hold caches) from a result for DeepEqual.
func kcComparable(r *scheduling.Result) any {
	type claim struct {
		NodePool, Hostname string
		Pods               []*corev1.Pod
		Reqs               string
		Labels             map[string]string
		Taints             []corev1.Taint
		Requests           corev1.ResourceList
		Offering           *cloudprovider.Offering
		Options            []string
	}
	var out []any
	for _, c := range r.NewNodeClaims {
		cl := claim{NodePool: c.NodePool, Hostname: c.Hostname, Pods: c.Pods, Reqs: c.Requirements.String(), Labels: c.Labels,
			Taints: c.Taints, Requests: c.Requests, Offering: c.Offering}
		for _, it := range c.InstanceTypeOptions {
			cl.Options = append(cl.Options, it.Name)
		}
		out = append(out, cl)
	}
	return []any{out, r.Bindings, r.PodErrors}
}

func kcJoinNames(pods []*corev1.Pod) string { return kcJoinStrings(kcNames(pods)) }

func kcJoinStrings(xs []string) string {
	s := "["
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s + "]"
}

func kcMapString(m map[string]string) string {
	var kv []string
	for _, k := range kcSortedKeys(m) {
		kv = append(kv, k+"="+m[k])
	}
	return kcJoinStrings(kv)
}
