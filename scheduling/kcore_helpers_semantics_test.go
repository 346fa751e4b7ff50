package scheduling_test

// Shared fixtures and helpers of the Karpenter-core semantics tests (kcore_*_semantics_test.go).
// Every identifier here starts with "kc" so that other test files of the package are not
// disturbed.

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Names of the F1 instance types (Karpenter's fake default types).
const (
	kcDefault   = "default-instance-type"
	kcSmall     = "small-instance-type"
	kcGPU       = "gpu-vendor-instance-type"
	kcGPUB      = "gpu-vendor-b-instance-type"
	kcArm       = "arm-instance-type"
	kcSinglePod = "single-pod-instance-type"

	kcZ1 = fake.TestZone1
	kcZ2 = fake.TestZone2
	kcZ3 = fake.TestZone3

	kcZone = v1.LabelTopologyZone
	kcHost = v1.LabelHostname
	kcCT   = v1.CapacityTypeLabelKey
	kcIT   = v1.LabelInstanceType
	kcArch = v1.LabelArch
	kcOS   = v1.LabelOS
)

// Node selector operators, short.
const (
	kcIn           = corev1.NodeSelectorOpIn
	kcNotIn        = corev1.NodeSelectorOpNotIn
	kcExists       = corev1.NodeSelectorOpExists
	kcDoesNotExist = corev1.NodeSelectorOpDoesNotExist
	kcGt           = corev1.NodeSelectorOpGt
	kcLt           = corev1.NodeSelectorOpLt
	kcGte          = corev1.NodeSelectorOperator("Gte")
	kcLte          = corev1.NodeSelectorOperator("Lte")
)

func kcRL(kv ...string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		rl[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return rl
}

// kcF1 is Karpenter's fake default instance-type set: default 4cpu/4Gi/5 pods, small 2cpu/2Gi,
// two GPU types, arm 16cpu/128Gi arm64 (os incl. ios) and single-pod (1 pod).
func kcF1() cloudprovider.InstanceTypes {
	return cloudprovider.InstanceTypes{
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcDefault}),
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcSmall, Resources: kcRL("cpu", "2", "memory", "2Gi")}),
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcGPU, Resources: kcRL("fake.com/vendor-a", "2")}),
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcGPUB, Resources: kcRL("fake.com/vendor-b", "2")}),
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcArm, Architecture: v1.ArchitectureArm64,
			OperatingSystems: []string{"linux", "windows", "darwin", "ios"},
			Resources:        kcRL("cpu", "16", "memory", "128Gi")}),
		fake.NewInstanceType(fake.InstanceTypeOptions{Name: kcSinglePod, Resources: kcRL("pods", "1")}),
	}
}

// kcCPUTypes are types "cN" with N cpu, N Gi memory and 110 pods (allocatable N-0.1 cpu).
func kcCPUTypes(cpus ...int) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, n := range cpus {
		out = append(out, fake.NewInstanceType(fake.InstanceTypeOptions{
			Name:             fmt.Sprintf("c%d", n),
			OperatingSystems: []string{"linux"},
			Resources:        kcRL("cpu", fmt.Sprint(n), "memory", fmt.Sprintf("%dGi", n), "pods", "110"),
		}))
	}
	return out
}

func kcPool(name string) *fake.NodePoolBuilder { return fake.NodePool(name) }

func kcPools(bs ...*fake.NodePoolBuilder) []*v1.NodePool {
	out := make([]*v1.NodePool, 0, len(bs))
	for _, b := range bs {
		out = append(out, b.Obj())
	}
	return out
}

// kcMut applies f to pod and returns it.
func kcMut(pod *corev1.Pod, f func(p *corev1.Pod)) *corev1.Pod { f(pod); return pod }

// kcPods makes n pods named prefix-0 .. prefix-(n-1) from b (b is called once per pod).
func kcPods(n int, prefix string, b func(name string) *fake.PodBuilder) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, b(fmt.Sprintf("%s-%d", prefix, i)).Obj())
	}
	return out
}

// kcPodsP is kcPods for a function that returns the finished pod.
func kcPodsP(n int, prefix string, f func(name string) *corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, f(fmt.Sprintf("%s-%d", prefix, i)))
	}
	return out
}

func kcJoin(groups ...[]*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func kcNames(pods []*corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func kcNamesN(n int, prefix string) []string {
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

func kcSel(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func kcTerm(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// kcBound is a running pod bound to node.
func kcBound(name, node string, labels ...string) *fake.PodBuilder {
	b := fake.Pod(name).NodeName(node)
	for i := 0; i+1 < len(labels); i += 2 {
		b.Label(labels[i], labels[i+1])
	}
	return b
}

// kcNode is an existing node with the given labels and allocatable (= capacity) resources.
func kcNode(name string, labels map[string]string, alloc corev1.ResourceList, bound ...*corev1.Pod) *cluster.Node {
	lbls := map[string]string{kcHost: name}
	for k, v := range labels {
		lbls[k] = v
	}
	return &cluster.Node{
		Node: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
			Status:     corev1.NodeStatus{Allocatable: alloc.DeepCopy(), Capacity: alloc.DeepCopy()},
		},
		Pods: bound,
	}
}

// kcManaged is an existing node launched by a NodePool (initialized or not), with its NodeClaim.
func kcManaged(name, pool string, initialized bool, labels map[string]string, alloc corev1.ResourceList, bound ...*corev1.Pod) *cluster.Node {
	lbls := map[string]string{v1.NodePoolLabelKey: pool, v1.NodeRegisteredLabelKey: "true"}
	if initialized {
		lbls[v1.NodeInitializedLabelKey] = "true"
	}
	for k, v := range labels {
		lbls[k] = v
	}
	n := kcNode(name, lbls, alloc, bound...)
	n.NodeClaim = &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-claim", Labels: n.Node.Labels},
		Spec:       v1.NodeClaimSpec{NodeClassRef: &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}},
		Status:     v1.NodeClaimStatus{NodeName: name, Allocatable: alloc.DeepCopy(), Capacity: alloc.DeepCopy()},
	}
	return n
}

// kcInflight is an in-flight NodeClaim (no Node yet) of pool with the given labels and
// allocatable resources.
func kcInflight(name, pool string, labels map[string]string, alloc corev1.ResourceList, bound ...*corev1.Pod) *cluster.Node {
	lbls := map[string]string{v1.NodePoolLabelKey: pool}
	for k, v := range labels {
		lbls[k] = v
	}
	return &cluster.Node{
		NodeClaim: &v1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
			Spec:       v1.NodeClaimSpec{NodeClassRef: &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}},
			Status:     v1.NodeClaimStatus{Allocatable: alloc.DeepCopy(), Capacity: alloc.DeepCopy()},
		},
		Pods: bound,
	}
}

func kcWithTaints(n *cluster.Node, taints ...corev1.Taint) *cluster.Node {
	if n.Node != nil {
		n.Node.Spec.Taints = append(n.Node.Spec.Taints, taints...)
	} else {
		n.NodeClaim.Spec.Taints = append(n.NodeClaim.Spec.Taints, taints...)
	}
	return n
}

func kcTaint(key, value string, effect corev1.TaintEffect) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: effect}
}

// kcDS is a DaemonSet whose pods request cpu and memory; f may modify the pod template spec.
func kcDS(name, cpu, mem string, f func(spec *corev1.PodSpec)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: kcSel("ds", name),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"ds": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "ds", Image: "pause",
					Resources: corev1.ResourceRequirements{Requests: kcRL("cpu", cpu, "memory", mem)}}}},
			},
		},
	}
	if f != nil {
		f(&ds.Spec.Template.Spec)
	}
	return ds
}

func kcInt(n int) *int { return &n }

// kcWant is what one pod's placement must look like ("" fields are not checked).
type kcWant struct {
	pool, itype, zone, ct, arch string
	// labels must be on the NodeClaim's Labels; noLabels must not be.
	labels   map[string]string
	noLabels []string
	// notValues: the NodeClaim's label key, if present, must not have that value.
	notValues map[string]string
	// existing is the name of the existing node (or in-flight NodeClaim) the pod lands on.
	existing string
}

// kcDist asserts the distribution of pods over the domains of key: the sorted list of
// per-domain pod counts (domains with no pod are not listed).
type kcDist struct {
	key  string
	pods []string // nil: every placed pod
	want []int    // sorted ascending
}

// kcCase is one row of a semantics table.
type kcCase struct {
	name string
	// skip, when set, is the reason the case is skipped ("BUG: ...").
	skip string

	pools    []*v1.NodePool // nil: one unconstrained NodePool "default"
	types    cloudprovider.InstanceTypes
	typesFor map[string]cloudprovider.InstanceTypes // per NodePool, overrides types
	pods     []*corev1.Pod
	nodes    []*cluster.Node
	// deleting are the nodes marked for deletion (cluster.Snapshot.Deleting).
	deleting   []string
	daemonSets []*appsv1.DaemonSet
	opts       scheduling.Options

	// claims is the number of new NodeClaims (nil: not checked).
	claims *int
	// failed is the exact set of pods in PodErrors, unless nFailed is set (then only their number).
	failed  []string
	nFailed *int
	want    map[string]kcWant
	// together: each group lands on one node; apart: each group on pairwise different nodes.
	together [][]string
	apart    [][]string
	dist     []kcDist
	check    func(t *testing.T, r *kcRes)
}

// objects are the case's pods, NodePools, instance types, nodes and DaemonSets.
func (c *kcCase) objects() cluster.Objects {
	pools := c.pools
	if pools == nil {
		pools = kcPools(kcPool("default"))
	}
	types := c.types
	if types == nil {
		types = kcF1()
	}
	its := map[string]cloudprovider.InstanceTypes{}
	for _, np := range pools {
		if ts, ok := c.typesFor[np.Name]; ok {
			its[np.Name] = ts
		} else {
			its[np.Name] = types
		}
	}
	return withNodes(cluster.Objects{
		Pods: c.pods, NodePools: pools, InstanceTypes: its, WellKnownLabels: fake.WellKnownLabels(),
		DaemonSets: c.daemonSets,
	}, c.nodes...)
}

// snapshot is the case's cluster snapshot, its deleting nodes marked.
func (c *kcCase) snapshot(t tb) *cluster.Snapshot {
	t.Helper()
	return snapOf(t, c.objects()).Deleting(c.deleting...)
}

// kcRun runs the table: one subtest per case.
func kcRun(t *testing.T, cases []kcCase) {
	t.Helper()
	seen := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		require.False(t, seen[c.name], "duplicate case name %q", c.name)
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			if c.skip != "" {
				t.Skip(c.skip)
			}
			snap := c.snapshot(t)
			r := kcIndex(t, snap, mustSolve(t, snap, c.opts))
			c.verify(t, r)
		})
	}
}

func (c *kcCase) verify(t *testing.T, r *kcRes) {
	t.Helper()
	if c.claims != nil {
		assert.Len(t, r.res.NewNodeClaims, *c.claims, "number of new NodeClaims\n%s", r.dump())
	}
	var failed []string
	for _, e := range r.res.PodErrors {
		failed = append(failed, e.Pod.Name)
	}
	if c.nFailed != nil {
		assert.Len(t, failed, *c.nFailed, "number of pods in PodErrors\n%s", r.dump())
	} else {
		assert.ElementsMatch(t, c.failed, failed, "pods in PodErrors\n%s", r.dump())
	}
	for _, name := range kcSortedKeys(c.want) {
		w := c.want[name]
		if !r.placed(name) {
			t.Errorf("pod %s: not placed (%s)\n%s", name, r.reason(name), r.dump())
			continue
		}
		if w.existing != "" {
			assert.Equal(t, w.existing, r.existing[name], "pod %s: existing node\n%s", name, r.dump())
			continue
		}
		if w.zone != "" {
			assert.Equal(t, w.zone, r.domain(name, kcZone), "pod %s: zone\n%s", name, r.dump())
		}
		if w.ct != "" {
			assert.Equal(t, w.ct, r.domain(name, kcCT), "pod %s: capacity type\n%s", name, r.dump())
		}
		if w.arch != "" {
			assert.Equal(t, w.arch, r.domain(name, kcArch), "pod %s: arch\n%s", name, r.dump())
		}
		if w.pool == "" && w.itype == "" && len(w.labels) == 0 && len(w.noLabels) == 0 && len(w.notValues) == 0 {
			continue
		}
		cl := r.claimOf(name)
		if cl == nil {
			t.Errorf("pod %s: on existing node %s, want a new NodeClaim", name, r.existing[name])
			continue
		}
		if w.pool != "" {
			assert.Equal(t, w.pool, cl.NodePool, "pod %s: NodePool", name)
		}
		if w.itype != "" {
			assert.Equal(t, w.itype, r.itype(name), "pod %s: instance type\n%s", name, r.dump())
		}
		for k, v := range w.labels {
			assert.Equal(t, v, cl.Labels[k], "pod %s: label %s (labels %v)", name, k, cl.Labels)
		}
		for k, v := range w.notValues {
			assert.NotEqual(t, v, cl.Labels[k], "pod %s: label %s must not be %q", name, k, v)
		}
		for _, k := range w.noLabels {
			assert.NotContains(t, cl.Labels, k, "pod %s: label %s must be absent", name, k)
		}
	}
	for _, g := range c.together {
		for _, name := range g {
			require.True(t, r.placed(name), "pod %s not placed (%s)\n%s", name, r.reason(name), r.dump())
			assert.Equal(t, r.nodeOf(g[0]), r.nodeOf(name), "pods %s and %s must share a node\n%s", g[0], name, r.dump())
		}
	}
	for _, g := range c.apart {
		nodes := map[string]string{}
		for _, name := range g {
			require.True(t, r.placed(name), "pod %s not placed (%s)\n%s", name, r.reason(name), r.dump())
			n := r.nodeOf(name)
			if other, ok := nodes[n]; ok {
				t.Errorf("pods %s and %s share node %s\n%s", other, name, n, r.dump())
			}
			nodes[n] = name
		}
	}
	for _, d := range c.dist {
		assert.Equal(t, d.want, r.counts(d.key, d.pods), "distribution over %s\n%s", d.key, r.dump())
	}
	if c.check != nil {
		c.check(t, r)
	}
}

func kcSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// kcRes indexes a Result by pod name.
type kcRes struct {
	snap     *cluster.Snapshot
	res      *scheduling.Result
	claim    map[string]*scheduling.NodeClaim
	existing map[string]string
	errs     map[string]string
	nodes    map[string]*cluster.Node
}

// kcIndex indexes res and checks that every pending and moving pod is in exactly one place.
func kcIndex(t *testing.T, snap *cluster.Snapshot, res *scheduling.Result) *kcRes {
	t.Helper()
	r := &kcRes{snap: snap, res: res, claim: map[string]*scheduling.NodeClaim{}, existing: map[string]string{},
		errs: map[string]string{}, nodes: map[string]*cluster.Node{}}
	count := map[string]int{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			r.claim[p.Name] = c
			count[p.Name]++
		}
	}
	for _, b := range res.Bindings {
		r.existing[b.Pod.Name] = b.To
		count[b.Pod.Name]++
	}
	for _, e := range res.PodErrors {
		r.errs[e.Pod.Name] = e.Message()
		count[e.Pod.Name]++
	}
	for _, n := range snap.Nodes() {
		r.nodes[n.Name()] = n
	}
	for _, p := range kcToPlace(snap) {
		require.Equal(t, 1, count[p.Name], "pod %s must be in exactly one place\n%s", p.Name, r.dump())
	}
	return r
}

// kcToPlace are the pods Solve places: the snapshot's pending, then its moving pods.
func kcToPlace(snap *cluster.Snapshot) []*corev1.Pod {
	return append(append([]*corev1.Pod(nil), snap.Pending()...), snap.Moving()...)
}

func (r *kcRes) placed(pod string) bool { _, bad := r.errs[pod]; return !bad }

func (r *kcRes) reason(pod string) string { return r.errs[pod] }

// claimOf is the new NodeClaim a pod lands on, or nil.
func (r *kcRes) claimOf(pod string) *scheduling.NodeClaim { return r.claim[pod] }

// nodeOf names the node a pod lands on ("claim/<hostname>" or "node/<name>"), or "".
func (r *kcRes) nodeOf(pod string) string {
	if c := r.claim[pod]; c != nil {
		return "claim/" + c.Hostname
	}
	if n, ok := r.existing[pod]; ok {
		return "node/" + n
	}
	return ""
}

func (r *kcRes) itype(pod string) string {
	if c := r.claim[pod]; c != nil && c.InstanceType != nil {
		return c.InstanceType.Name
	}
	return ""
}

func kcSingle(reqs requirements.Requirements, key string) (string, bool) {
	if !reqs.Has(key) {
		return "", false
	}
	rq := reqs.Get(key)
	if rq.Operator() == requirements.In && len(rq.Values()) == 1 {
		return rq.Values()[0], true
	}
	return "", false
}

// domain is the value of key for the node a pod lands on: for a new NodeClaim the single
// value of its requirement, else the launched offering's zone/capacity type, else the
// launched type's single value, else its label; for an existing node its label.
func (r *kcRes) domain(pod, key string) string {
	if key == kcHost {
		return r.nodeOf(pod)
	}
	if c := r.claim[pod]; c != nil {
		if v, ok := kcSingle(c.Requirements, key); ok {
			return v
		}
		if c.Offering != nil && (key == kcZone || key == kcCT) {
			return c.Offering.Requirements.Get(key).Any()
		}
		if c.InstanceType != nil {
			if v, ok := kcSingle(c.InstanceType.Requirements, key); ok {
				return v
			}
		}
		return c.Labels[key]
	}
	if name, ok := r.existing[pod]; ok {
		n := r.nodes[name]
		if n.Node != nil {
			return n.Node.Labels[key]
		}
		return n.NodeClaim.Labels[key]
	}
	return ""
}

// counts is the sorted list of per-domain counts of pods (nil: all placed pods).
func (r *kcRes) counts(key string, pods []string) []int {
	if pods == nil {
		for _, p := range kcToPlace(r.snap) {
			pods = append(pods, p.Name)
		}
	}
	byDomain := map[string]int{}
	for _, p := range pods {
		if !r.placed(p) {
			continue
		}
		byDomain[r.domain(p, key)]++
	}
	out := []int{}
	for _, n := range byDomain {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func (r *kcRes) dump() string {
	var b strings.Builder
	for i, c := range r.res.NewNodeClaims {
		it, zone, ct := "-", "-", "-"
		if c.InstanceType != nil {
			it = c.InstanceType.Name
		}
		if c.Offering != nil {
			zone, ct = c.Offering.Zone(), c.Offering.CapacityType()
		}
		fmt.Fprintf(&b, "  claim[%d] %s pool=%s type=%s zone=%s ct=%s pods=%v labels=%v reqs=%s\n", i, c.Hostname, c.NodePool,
			it, zone, ct, kcNames(c.Pods), c.Labels, c.Requirements.String())
	}
	for _, m := range r.res.Bindings {
		fmt.Fprintf(&b, "  existing %s pod=%s\n", m.To, m.Pod.Name)
	}
	for _, e := range r.res.PodErrors {
		fmt.Fprintf(&b, "  error %s: %s\n", e.Pod.Name, e.Message())
	}
	return b.String()
}

// kcSameInstanceTypes compares what Solve may read of instance types (not their caches).
func kcSameInstanceTypes(t *testing.T, want, got map[string]cloudprovider.InstanceTypes) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for pool, ws := range want {
		gs := got[pool]
		require.Len(t, gs, len(ws), pool)
		for i := range ws {
			w, g := ws[i], gs[i]
			assert.Equal(t, w.Name, g.Name)
			assert.True(t, reflect.DeepEqual(w.Requirements, g.Requirements), "requirements of %s changed", w.Name)
			assert.True(t, reflect.DeepEqual(w.Offerings, g.Offerings), "offerings of %s changed", w.Name)
			assert.True(t, reflect.DeepEqual(w.Capacity, g.Capacity), "capacity of %s changed", w.Name)
			assert.True(t, reflect.DeepEqual(w.Overhead, g.Overhead), "overhead of %s changed", w.Name)
		}
	}
}
