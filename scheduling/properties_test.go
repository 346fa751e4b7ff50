package scheduling_test

// Property tests of scheduling.Solve with pgregory.net/rapid.
//
// A scenario is drawn as plain values (scenarioSpec) and turned into cluster.Objects by
// build, so that every call of build is an independent deep copy of the same input (solve
// builds the snapshot of them). Every Draw is labelled and every drawn scenario is valid by
// construction (no Skip).
//
// Reproduce a failure with -rapid.seed=<seed> (printed on failure) or the fail file rapid
// writes to testdata/rapid/; run more cases with -rapid.checks=N.

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Vocabulary shared by the drawn NodePools, instance types, nodes and pods.
var (
	propZones     = []string{fake.TestZone1, fake.TestZone2, fake.TestZone3}
	propCapTypes  = []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}
	propArches    = []string{v1.ArchitectureAmd64, v1.ArchitectureArm64}
	propTeams     = []string{"a", "b"}
	propHostPorts = []int32{8080, 8081}
)

const (
	groupLabel = "group" // pods of one group share their topology constraints
	teamKey    = "team"  // taint key of tainted NodePools and nodes
)

// poolSpec is a drawn NodePool.
type poolSpec struct {
	name      string
	zones     []string // nil: no zone requirement
	capTypes  []string // nil: no capacity-type requirement
	arch      string   // "": no arch requirement
	intOp     corev1.NodeSelectorOperator
	intValue  int // with intOp: `integer Gt|Lt intValue`
	taint     *corev1.Taint
	weight    int32 // 0: unset
	cpuLimit  int   // 0: none
	nodeLimit int   // 0: none
	types     []int // indexes of the instance types it may use
}

type offeringSpec struct {
	zone, capType string
	price         float64
	available     bool
}

// typeSpec is a drawn instance type (used unless the scenario uses fake.InstanceTypes).
type typeSpec struct {
	name       string
	cpu, memGi int
	pods       int
	arch       string
	offerings  []offeringSpec
}

// groupSpec are the topology constraints shared by every pod labelled group=<name>.
type groupSpec struct {
	name         string
	spreadKey    string // "": no spread
	when         corev1.UnsatisfiableConstraintAction
	maxSkew      int32
	antiAffinity bool // hostname anti-affinity to the group
	zoneAffinity bool // zone affinity to the group
}

type tolerationKind int

const (
	tolerateNone tolerationKind = iota
	tolerateTeamA
	tolerateTeamB
	tolerateAll
)

// podSpec is a drawn pod.
type podSpec struct {
	name        string
	cpuMilli    int
	memMi       int
	group       int    // index into groups, -1: none
	zone        string // nodeSelector zone, "": none
	capType     string // required node affinity on the capacity type, "": none
	tolerations tolerationKind
	hostPort    int32 // 0: none
}

type nodeSpec struct {
	name    string
	pool    int // index into pools, -1: not managed by a NodePool
	typ     int // index into the instance types
	zone    string
	capType string
	taint   *corev1.Taint
	bound   []podSpec
}

type daemonSpec struct {
	name        string
	cpuMilli    int
	memMi       int
	arch        string // nodeSelector arch, "": none
	tolerations tolerationKind
}

type scenarioSpec struct {
	fakeTypes int // > 0: the instance types are fake.InstanceTypes(fakeTypes)
	types     []typeSpec
	pools     []poolSpec
	groups    []groupSpec
	nodes     []nodeSpec
	daemons   []daemonSpec
	pods      []podSpec
}

func drawTolerations(t *rapid.T, label string) tolerationKind {
	return tolerationKind(rapid.IntRange(0, 3).Draw(t, label))
}

func drawPodSpec(t *rapid.T, name string, groups []groupSpec, maxCPU int) podSpec {
	p := podSpec{
		name:     name,
		cpuMilli: rapid.IntRange(10, maxCPU).Draw(t, name+"/cpu-millis"),
		memMi:    rapid.IntRange(16, maxCPU).Draw(t, name+"/memory-mi"),
		group:    rapid.IntRange(-1, len(groups)-1).Draw(t, name+"/group"),
	}
	// Pods of a spread group carry no node selector or node affinity, so that every pod the
	// group's selector selects has the same constraint (and the same node filter).
	spread := p.group >= 0 && groups[p.group].spreadKey != ""
	if !spread && rapid.IntRange(0, 3).Draw(t, name+"/zone-selector") == 0 {
		p.zone = rapid.SampledFrom(propZones).Draw(t, name+"/zone")
	}
	if !spread && rapid.IntRange(0, 4).Draw(t, name+"/capacity-type-requirement") == 0 {
		p.capType = rapid.SampledFrom(propCapTypes).Draw(t, name+"/capacity-type")
	}
	p.tolerations = drawTolerations(t, name+"/tolerations")
	if rapid.IntRange(0, 5).Draw(t, name+"/host-port?") == 0 {
		p.hostPort = rapid.SampledFrom(propHostPorts).Draw(t, name+"/host-port")
	}
	return p
}

// scenarioGen draws 1–3 NodePools, instance types (fake.InstanceTypes(n) or drawn ones),
// 0–3 existing nodes with bound pods, 0–2 DaemonSets and 1–60 pending pods.
func scenarioGen() *rapid.Generator[*scenarioSpec] {
	return rapid.Custom(func(t *rapid.T) *scenarioSpec {
		sc := &scenarioSpec{}
		// Instance types.
		if rapid.Bool().Draw(t, "fake-instance-types") {
			sc.fakeTypes = rapid.IntRange(1, 10).Draw(t, "fake-instance-types/n")
			for i := 0; i < sc.fakeTypes; i++ {
				sc.types = append(sc.types, typeSpec{name: fmt.Sprintf("fake-it-%d", i), cpu: i + 1, memGi: 2 * (i + 1),
					pods: 10 * (i + 1), arch: v1.ArchitectureAmd64})
			}
		} else {
			n := rapid.IntRange(1, 6).Draw(t, "instance-types")
			type place struct{ zone, ct string }
			var places []place
			for _, z := range propZones {
				for _, ct := range propCapTypes {
					places = append(places, place{z, ct})
				}
			}
			for i := 0; i < n; i++ {
				name := fmt.Sprintf("it-%d", i)
				ts := typeSpec{
					name:  name,
					cpu:   rapid.IntRange(1, 16).Draw(t, name+"/cpu"),
					memGi: rapid.IntRange(1, 32).Draw(t, name+"/memory-gi"),
					pods:  rapid.IntRange(2, 30).Draw(t, name+"/pods"),
					arch:  rapid.SampledFrom(propArches).Draw(t, name+"/arch"),
				}
				ps := rapid.SliceOfNDistinct(rapid.SampledFrom(places), 1, len(places),
					func(p place) string { return p.zone + "/" + p.ct }).Draw(t, name+"/offerings")
				for j, p := range ps {
					ts.offerings = append(ts.offerings, offeringSpec{
						zone: p.zone, capType: p.ct,
						price:     float64(rapid.IntRange(1, 50).Draw(t, fmt.Sprintf("%s/price-%d", name, j))) / 10,
						available: rapid.IntRange(0, 7).Draw(t, fmt.Sprintf("%s/available-%d", name, j)) > 0,
					})
				}
				sc.types = append(sc.types, ts)
			}
		}
		// NodePools.
		np := rapid.IntRange(1, 3).Draw(t, "nodepools")
		for i := 0; i < np; i++ {
			name := fmt.Sprintf("pool-%d", i)
			p := poolSpec{name: name}
			if rapid.Bool().Draw(t, name+"/restrict-zones") {
				p.zones = rapid.SliceOfNDistinct(rapid.SampledFrom(propZones), 1, 3, rapid.ID[string]).Draw(t, name+"/zones")
			}
			if rapid.Bool().Draw(t, name+"/restrict-capacity-types") {
				p.capTypes = rapid.SliceOfNDistinct(rapid.SampledFrom(propCapTypes), 1, 2, rapid.ID[string]).Draw(t, name+"/capacity-types")
			}
			if rapid.IntRange(0, 5).Draw(t, name+"/restrict-arch") == 0 {
				p.arch = rapid.SampledFrom(propArches).Draw(t, name+"/arch")
			}
			switch rapid.IntRange(0, 5).Draw(t, name+"/integer-requirement") {
			case 1:
				p.intOp, p.intValue = corev1.NodeSelectorOpGt, rapid.IntRange(0, 2).Draw(t, name+"/integer-gt")
			case 2:
				p.intOp, p.intValue = corev1.NodeSelectorOpLt, rapid.IntRange(3, 12).Draw(t, name+"/integer-lt")
			}
			switch rapid.IntRange(0, 5).Draw(t, name+"/taint") {
			case 1:
				team := rapid.SampledFrom(propTeams).Draw(t, name+"/taint-team")
				p.taint = &corev1.Taint{Key: teamKey, Value: team, Effect: corev1.TaintEffectNoSchedule}
			case 3:
				p.taint = &corev1.Taint{Key: "prefer", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}
			}
			p.weight = int32(rapid.IntRange(0, 3).Draw(t, name+"/weight") * 10)
			if rapid.IntRange(0, 3).Draw(t, name+"/cpu-limited") == 0 {
				p.cpuLimit = rapid.IntRange(1, 100).Draw(t, name+"/cpu-limit")
			}
			if rapid.IntRange(0, 3).Draw(t, name+"/nodes-limited") == 0 {
				p.nodeLimit = rapid.IntRange(1, 10).Draw(t, name+"/nodes-limit")
			}
			all := make([]int, len(sc.types))
			for j := range all {
				all[j] = j
			}
			if rapid.IntRange(0, 3).Draw(t, name+"/type-subset") == 0 {
				p.types = rapid.SliceOfNDistinct(rapid.SampledFrom(all), 1, len(all), rapid.ID[int]).Draw(t, name+"/types")
				sort.Ints(p.types)
			} else {
				p.types = all
			}
			sc.pools = append(sc.pools, p)
		}
		// Topology groups.
		ng := rapid.IntRange(1, 3).Draw(t, "groups")
		for i := 0; i < ng; i++ {
			name := fmt.Sprintf("g%d", i)
			g := groupSpec{name: name}
			switch rapid.IntRange(0, 2).Draw(t, name+"/spread") {
			case 1:
				g.spreadKey = v1.LabelTopologyZone
			case 2:
				g.spreadKey = v1.LabelHostname
			}
			if g.spreadKey != "" {
				g.maxSkew = int32(rapid.IntRange(1, 2).Draw(t, name+"/max-skew"))
				g.when = corev1.DoNotSchedule
				if rapid.IntRange(0, 3).Draw(t, name+"/schedule-anyway") == 0 {
					g.when = corev1.ScheduleAnyway
				}
			}
			g.antiAffinity = rapid.IntRange(0, 2).Draw(t, name+"/hostname-anti-affinity") == 0
			g.zoneAffinity = g.spreadKey == "" && !g.antiAffinity && rapid.IntRange(0, 3).Draw(t, name+"/zone-affinity") == 0
			sc.groups = append(sc.groups, g)
		}
		// DaemonSets.
		nd := rapid.IntRange(0, 2).Draw(t, "daemonsets")
		for i := 0; i < nd; i++ {
			name := fmt.Sprintf("ds-%d", i)
			d := daemonSpec{
				name:        name,
				cpuMilli:    rapid.IntRange(10, 500).Draw(t, name+"/cpu-millis"),
				memMi:       rapid.IntRange(16, 512).Draw(t, name+"/memory-mi"),
				tolerations: drawTolerations(t, name+"/tolerations"),
			}
			if rapid.IntRange(0, 2).Draw(t, name+"/arch-selector") == 0 {
				d.arch = rapid.SampledFrom(propArches).Draw(t, name+"/arch")
			}
			sc.daemons = append(sc.daemons, d)
		}
		// Existing nodes, with bound pods.
		nn := rapid.IntRange(0, 3).Draw(t, "nodes")
		for i := 0; i < nn; i++ {
			name := fmt.Sprintf("node-%d", i)
			n := nodeSpec{
				name: name,
				pool: rapid.IntRange(-1, len(sc.pools)-1).Draw(t, name+"/nodepool"),
				typ:  rapid.IntRange(0, len(sc.types)-1).Draw(t, name+"/instance-type"),
			}
			n.zone = rapid.SampledFrom(propZones).Draw(t, name+"/zone")
			n.capType = rapid.SampledFrom(propCapTypes).Draw(t, name+"/capacity-type")
			if n.pool >= 0 {
				n.taint = sc.pools[n.pool].taint
			}
			nb := rapid.IntRange(0, 3).Draw(t, name+"/bound-pods")
			for j := 0; j < nb; j++ {
				bp := drawPodSpec(t, fmt.Sprintf("%s-bound-%d", name, j), sc.groups, 1000)
				n.bound = append(n.bound, bp)
			}
			sc.nodes = append(sc.nodes, n)
		}
		// Pending pods: mostly small, sometimes one that no instance type fits.
		maxCPU := 2000
		if rapid.IntRange(0, 4).Draw(t, "huge-pods") == 0 {
			maxCPU = 20000
		}
		npods := rapid.IntRange(1, 60).Draw(t, "pods")
		for i := 0; i < npods; i++ {
			sc.pods = append(sc.pods, drawPodSpec(t, fmt.Sprintf("pod-%02d", i), sc.groups, maxCPU))
		}
		return sc
	})
}

// instanceTypes builds a fresh set of instance types.
func (sc *scenarioSpec) instanceTypes() cloudprovider.InstanceTypes {
	if sc.fakeTypes > 0 {
		return fake.InstanceTypes(sc.fakeTypes)
	}
	var out cloudprovider.InstanceTypes
	for _, ts := range sc.types {
		var ofs cloudprovider.Offerings
		for _, o := range ts.offerings {
			ofs = append(ofs, cloudprovider.NewOffering(o.zone, o.capType, o.price, o.available))
		}
		out = append(out, fake.NewInstanceType(fake.InstanceTypeOptions{
			Name:             ts.name,
			Architecture:     ts.arch,
			OperatingSystems: []string{"linux"},
			Resources: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(int64(ts.cpu), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(ts.memGi)<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(int64(ts.pods), resource.DecimalSI),
			},
			Offerings: ofs,
		}))
	}
	return out
}

func (tk tolerationKind) apply(b *fake.PodBuilder) {
	switch tk {
	case tolerateTeamA:
		b.Tolerate(teamKey, "a", corev1.TaintEffectNoSchedule)
	case tolerateTeamB:
		b.Tolerate(teamKey, "b", corev1.TaintEffectNoSchedule)
	case tolerateAll:
		b.Toleration(corev1.Toleration{Operator: corev1.TolerationOpExists})
	}
}

func (sc *scenarioSpec) pod(ps podSpec, node string) *corev1.Pod {
	b := fake.Pod(ps.name).Requests(fmt.Sprintf("%dm", ps.cpuMilli), fmt.Sprintf("%dMi", ps.memMi))
	if ps.group >= 0 {
		g := sc.groups[ps.group]
		sel := map[string]string{groupLabel: g.name}
		b.Label(groupLabel, g.name)
		if g.spreadKey != "" {
			b.TopologySpreadConstraint(corev1.TopologySpreadConstraint{
				MaxSkew: g.maxSkew, TopologyKey: g.spreadKey, WhenUnsatisfiable: g.when,
				LabelSelector: &metav1.LabelSelector{MatchLabels: sel},
			})
		}
		if g.antiAffinity {
			b.PodAntiAffinity(v1.LabelHostname, sel)
		}
		if g.zoneAffinity {
			b.PodAffinity(v1.LabelTopologyZone, sel)
		}
	}
	if ps.zone != "" {
		b.NodeSelector(v1.LabelTopologyZone, ps.zone)
	}
	if ps.capType != "" {
		b.NodeRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ps.capType)
	}
	ps.tolerations.apply(b)
	if ps.hostPort != 0 {
		b.HostPort(ps.hostPort)
	}
	if node != "" {
		b.NodeName(node)
	}
	return b.Obj()
}

// build returns fresh objects: calling it twice gives two deep copies of the same input
// (the bound pods carry their node's name).
func (sc *scenarioSpec) build() cluster.Objects {
	its := sc.instanceTypes()
	in := cluster.Objects{
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{},
		WellKnownLabels: fake.WellKnownLabels(),
	}
	for _, p := range sc.pools {
		b := fake.NodePool(p.name)
		if p.zones != nil {
			b.Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, p.zones...)
		}
		if p.capTypes != nil {
			b.Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, p.capTypes...)
		}
		if p.arch != "" {
			b.Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, p.arch)
		}
		if p.intOp != "" {
			b.Requirement(fake.IntegerInstanceLabelKey, p.intOp, fmt.Sprint(p.intValue))
		}
		if p.taint != nil {
			b.Taint(p.taint.Key, p.taint.Value, p.taint.Effect)
		}
		if p.weight > 0 {
			b.Weight(p.weight)
		}
		if p.cpuLimit > 0 {
			b.Limit(corev1.ResourceCPU, fmt.Sprint(p.cpuLimit))
		}
		if p.nodeLimit > 0 {
			b.Limit("nodes", fmt.Sprint(p.nodeLimit))
		}
		in.NodePools = append(in.NodePools, b.Obj())
		var types cloudprovider.InstanceTypes
		for _, i := range p.types {
			types = append(types, its[i])
		}
		in.InstanceTypes[p.name] = types
	}
	for _, d := range sc.daemons {
		b := fake.Pod(d.name).Requests(fmt.Sprintf("%dm", d.cpuMilli), fmt.Sprintf("%dMi", d.memMi))
		if d.arch != "" {
			b.NodeSelector(v1.LabelArch, d.arch)
		}
		d.tolerations.apply(b)
		in.DaemonSets = append(in.DaemonSets, &appsv1.DaemonSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"ds": d.name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"ds": d.name}},
					Spec:       b.Obj().Spec,
				},
			},
		})
	}
	for _, ns := range sc.nodes {
		it := its[ns.typ]
		lbls := map[string]string{
			v1.LabelHostname:        ns.name,
			v1.LabelTopologyZone:    ns.zone,
			v1.LabelInstanceType:    it.Name,
			v1.LabelArch:            sc.types[ns.typ].arch,
			v1.LabelOS:              "linux",
			v1.CapacityTypeLabelKey: ns.capType,
		}
		if ns.pool >= 0 {
			lbls[v1.NodePoolLabelKey] = sc.pools[ns.pool].name
			lbls[v1.NodeInitializedLabelKey] = "true"
		}
		node := &corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: ns.name, Labels: lbls},
			Status: corev1.NodeStatus{
				Capacity:    it.Capacity.DeepCopy(),
				Allocatable: it.Allocatable().DeepCopy(),
			},
		}
		if ns.taint != nil {
			node.Spec.Taints = []corev1.Taint{*ns.taint}
		}
		in.Nodes = append(in.Nodes, node)
		for _, bp := range ns.bound {
			in.Pods = append(in.Pods, sc.pod(bp, ns.name))
		}
	}
	for _, ps := range sc.pods {
		in.Pods = append(in.Pods, sc.pod(ps, ""))
	}
	return in
}

// solve builds a fresh snapshot and solves it (verified).
func solve(t *rapid.T, sc *scenarioSpec) (*cluster.Snapshot, *scheduling.Result) {
	in := snapOf(t, sc.build())
	return in, mustSolve(t, in, scheduling.Options{})
}

// ---- helpers over inputs and results ----

type podTotals struct{ cpuMilli, mem, pods int64 }

func (a *podTotals) add(p *corev1.Pod) {
	for _, c := range p.Spec.Containers {
		a.cpuMilli += c.Resources.Requests.Cpu().MilliValue()
		a.mem += c.Resources.Requests.Memory().Value()
	}
	a.pods++
}

func (a podTotals) fits(rl corev1.ResourceList) (bool, string) {
	cpu, mem, pods := rl.Cpu().MilliValue(), rl.Memory().Value(), rl.Pods().Value()
	if a.cpuMilli > cpu || a.mem > mem || a.pods > pods {
		return false, fmt.Sprintf("requests cpu=%dm memory=%d pods=%d exceed cpu=%dm memory=%d pods=%d",
			a.cpuMilli, a.mem, a.pods, cpu, mem, pods)
	}
	return true, ""
}

func toleratesTaint(ts []corev1.Toleration, taint corev1.Taint) bool {
	for _, tol := range ts {
		if tol.Effect != "" && tol.Effect != taint.Effect {
			continue
		}
		if tol.Key == "" && tol.Operator == corev1.TolerationOpExists {
			return true
		}
		if tol.Key != taint.Key {
			continue
		}
		if tol.Operator == corev1.TolerationOpExists || tol.Value == taint.Value {
			return true
		}
	}
	return false
}

// hardTaintsTolerated checks every taint but PreferNoSchedule (which a pod may tolerate
// after preference relaxation).
func hardTaintsTolerated(p *corev1.Pod, taints []corev1.Taint) error {
	for _, taint := range taints {
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !toleratesTaint(p.Spec.Tolerations, taint) {
			return fmt.Errorf("pod %s does not tolerate taint %s", p.Name, taint.ToString())
		}
	}
	return nil
}

// daemonRuns says whether DaemonSet d's pod runs on a node of pool np with type it (the
// drawn DaemonSets only have tolerations and an optional arch nodeSelector).
func daemonRuns(d *appsv1.DaemonSet, np *v1.NodePool, it *cloudprovider.InstanceType) bool {
	if err := hardTaintsTolerated(&corev1.Pod{Spec: d.Spec.Template.Spec}, np.Spec.Template.Spec.Taints); err != nil {
		return false
	}
	arch, ok := d.Spec.Template.Spec.NodeSelector[v1.LabelArch]
	if !ok {
		return true
	}
	for _, r := range np.Spec.Template.Spec.Requirements {
		if r.Key == v1.LabelArch && !contains(r.Values, arch) {
			return false
		}
	}
	return it.Requirements.Get(v1.LabelArch).Has(arch)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func poolByName(in *cluster.Snapshot, name string) *v1.NodePool {
	for _, np := range in.NodePools() {
		if np.Name == name {
			return np
		}
	}
	return nil
}

func nodeByName(in *cluster.Snapshot, name string) *cluster.Node {
	for _, n := range in.Nodes() {
		if n.Name() == name {
			return n
		}
	}
	return nil
}

// cheapestCompatible is the price of it's cheapest available offering compatible with reqs.
func cheapestCompatible(it *cloudprovider.InstanceType, reqs requirements.Requirements) (float64, bool) {
	best, ok := math.Inf(1), false
	for _, o := range it.Offerings.Available().Compatible(reqs) {
		if o.Price < best {
			best, ok = o.Price, true
		}
	}
	return best, ok
}

func claimZone(c *scheduling.NodeClaim) (string, bool) {
	if !c.Requirements.Has(v1.LabelTopologyZone) {
		return "", false
	}
	r := c.Requirements.Get(v1.LabelTopologyZone)
	if r.Operator() != requirements.In || len(r.Values()) != 1 {
		return "", false
	}
	return r.Values()[0], true
}

// location is one node of the result: a new NodeClaim or an existing node, with the pods
// already bound there and the pending pods placed there.
type location struct {
	name   string
	zone   string // "" when not single-valued
	bound  []*corev1.Pod
	placed []*corev1.Pod
	// node: an existing Node; now: one that takes pods at once (initialized, not deleting),
	// whose placed pods bind before any NodeClaim launches.
	node, now bool
}

func locations(in *cluster.Snapshot, res *scheduling.Result) []location {
	var out []location
	for _, c := range res.NewNodeClaims {
		z, _ := claimZone(c)
		out = append(out, location{name: "claim " + c.Hostname, zone: z, placed: c.Pods})
	}
	placed := map[string][]*corev1.Pod{}
	for _, b := range res.Bindings {
		placed[b.To] = append(placed[b.To], b.Pod)
	}
	for _, n := range in.Nodes() {
		_, managed := n.Node.Labels[v1.NodePoolLabelKey]
		now := (!managed || n.Node.Labels[v1.NodeInitializedLabelKey] == "true") && n.Node.DeletionTimestamp == nil && !n.MarkedDeleting()
		out = append(out, location{name: "node " + n.Name(), zone: n.Node.Labels[v1.LabelTopologyZone],
			bound: n.Pods, placed: placed[n.Name()], node: true, now: now})
	}
	return out
}

// ---- properties ----

// TestPropNothingLost: every input pod is in exactly one place of the result.
func TestPropNothingLost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, res := solve(t, sc)
		seen := map[*corev1.Pod][]string{}
		for _, c := range res.NewNodeClaims {
			if len(c.Pods) == 0 {
				t.Fatalf("NodeClaim %s has no pods", c.Hostname)
			}
			for _, p := range c.Pods {
				seen[p] = append(seen[p], "claim "+c.Hostname)
			}
		}
		for _, b := range res.Bindings {
			if nodeByName(in, b.To) == nil {
				t.Fatalf("placement on unknown node %q", b.To)
			}
			seen[b.Pod] = append(seen[b.Pod], "node "+b.To)
		}
		for _, pe := range res.PodErrors {
			if pe.Message() == "" {
				t.Fatalf("pod %s has an empty error reason", pe.Pod.Name)
			}
			seen[pe.Pod] = append(seen[pe.Pod], "error")
		}
		inputs := map[*corev1.Pod]bool{}
		for _, p := range in.Pending() {
			inputs[p] = true
			if got := seen[p]; len(got) != 1 {
				t.Fatalf("pod %s appears %d times: %v", p.Name, len(got), got)
			}
		}
		for p, where := range seen {
			if !inputs[p] {
				t.Fatalf("result holds pod %s (%v) that is not an input pod", p.Name, where)
			}
		}
	})
}

// TestPropPlacementsFit: every NodeClaim's pods (plus DaemonSet overhead) fit its instance
// type and every option, every option is launchable under the claim's requirements, the
// pods tolerate the NodePool's taints and its requirements satisfy their node selectors;
// pods placed on existing nodes fit what the bound pods leave.
func TestPropPlacementsFit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, res := solve(t, sc)
		for _, c := range res.NewNodeClaims {
			np := poolByName(in, c.NodePool)
			if np == nil {
				t.Fatalf("claim %s: unknown NodePool %q", c.Hostname, c.NodePool)
			}
			var total podTotals
			for _, p := range c.Pods {
				total.add(p)
				if err := hardTaintsTolerated(p, np.Spec.Template.Spec.Taints); err != nil {
					t.Fatalf("claim %s (%s): %v", c.Hostname, c.NodePool, err)
				}
				podReqs, err := requirements.ForPodStrict(p)
				if err != nil {
					t.Fatalf("pod %s: %v", p.Name, err)
				}
				if err := c.Requirements.Compatible(podReqs, nil); err != nil {
					t.Fatalf("claim %s: requirements %s do not satisfy pod %s: %v", c.Hostname, c.Requirements, p.Name, err)
				}
				for k, pr := range podReqs {
					cr := c.Requirements.Get(k)
					if !cr.Intersection(pr).Equal(cr) {
						t.Fatalf("claim %s: requirement %s is wider than pod %s's %s", c.Hostname, cr, p.Name, pr)
					}
				}
			}
			for _, pair := range hostPortClashes(c.Pods, nil) {
				t.Fatalf("claim %s: %s", c.Hostname, pair)
			}
			if len(c.InstanceTypeOptions) == 0 || c.InstanceType == nil || c.Offering == nil {
				t.Fatalf("claim %s: no instance type or offering", c.Hostname)
			}
			if !contains(names(c.InstanceTypeOptions), c.InstanceType.Name) {
				t.Fatalf("claim %s: chosen type %s not among its options", c.Hostname, c.InstanceType.Name)
			}
			allowed := map[string]bool{}
			for _, it := range in.InstanceTypes()[c.NodePool] {
				allowed[it.Name] = true
			}
			for _, it := range c.InstanceTypeOptions {
				if !allowed[it.Name] {
					t.Fatalf("claim %s: option %s is not an instance type of NodePool %s", c.Hostname, it.Name, c.NodePool)
				}
				withDaemons := total
				for _, d := range in.DaemonSets() {
					if daemonRuns(d, np, it) {
						withDaemons.add(&corev1.Pod{Spec: d.Spec.Template.Spec})
					}
				}
				if ok, why := withDaemons.fits(it.Allocatable()); !ok {
					t.Fatalf("claim %s (%s): %d pods + daemonsets do not fit option %s: %s", c.Hostname, c.NodePool, len(c.Pods), it.Name, why)
				}
				if len(it.Offerings.Available().Compatible(c.Requirements)) == 0 {
					t.Fatalf("claim %s: option %s has no available offering compatible with %s", c.Hostname, it.Name, c.Requirements)
				}
				if !it.Requirements.HasIntersection(c.Requirements) {
					t.Fatalf("claim %s: option %s's requirements %s do not intersect %s", c.Hostname, it.Name, it.Requirements, c.Requirements)
				}
			}
			if !c.Offering.Available || len(cloudprovider.Offerings{c.Offering}.Compatible(c.Requirements)) == 0 {
				t.Fatalf("claim %s: offering %s/%s is unavailable or incompatible with %s", c.Hostname, c.Offering.Zone(), c.Offering.CapacityType(), c.Requirements)
			}
		}
		for _, e := range byNode(res) {
			n := nodeByName(in, e.name)
			var total podTotals
			for _, p := range n.Pods {
				total.add(p)
			}
			for _, p := range e.pods {
				total.add(p)
				if err := hardTaintsTolerated(p, n.Node.Spec.Taints); err != nil {
					t.Fatalf("node %s: %v", e.name, err)
				}
				podReqs, err := requirements.ForPodStrict(p)
				if err != nil {
					t.Fatalf("pod %s: %v", p.Name, err)
				}
				if err := requirements.FromLabels(n.Node.Labels).Compatible(podReqs, nil); err != nil {
					t.Fatalf("node %s: labels do not satisfy pod %s: %v", e.name, p.Name, err)
				}
			}
			if ok, why := total.fits(n.Node.Status.Allocatable); !ok {
				t.Fatalf("node %s: bound + placed pods do not fit: %s", e.name, why)
			}
			for _, pair := range hostPortClashes(e.pods, n.Pods) {
				t.Fatalf("node %s: %s", e.name, pair)
			}
		}
	})
}

func names(its cloudprovider.InstanceTypes) []string {
	out := make([]string, 0, len(its))
	for _, it := range its {
		out = append(out, it.Name)
	}
	return out
}

// hostPortClashes lists pairs of pods (at least one of them in placed) that use one host port.
func hostPortClashes(placed, bound []*corev1.Pod) []string {
	owner := map[int32]string{}
	var out []string
	for i, p := range append(append([]*corev1.Pod(nil), bound...), placed...) {
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if port.HostPort == 0 {
					continue
				}
				if o, ok := owner[port.HostPort]; ok && i >= len(bound) {
					out = append(out, fmt.Sprintf("pods %s and %s both use host port %d", o, p.Name, port.HostPort))
				}
				owner[port.HostPort] = p.Name
			}
		}
	}
	return out
}

// zoneUniverse is the set of zones a zone spread counts, where a node can be: the zones of
// the available compatible offerings of the instance types a NodePool can launch (its
// requirements admit the type and its limits, the existing nodes counted, leave room for
// it), and the zones of existing nodes.
func zoneUniverse(in *cluster.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, np := range in.NodePools() {
		reqs, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
		if err != nil {
			panic(err)
		}
		used := corev1.ResourceList{}
		nodes := int64(0)
		for _, n := range in.Nodes() {
			if n.Node == nil || n.Node.Labels[v1.NodePoolLabelKey] != np.Name {
				continue
			}
			nodes++
			for r, q := range n.Node.Status.Capacity {
				sum := used[r]
				sum.Add(q)
				used[r] = sum
			}
		}
		room := func(it *cloudprovider.InstanceType) bool {
			for r, lim := range np.Spec.Limits {
				if r == "nodes" {
					if nodes+1 > lim.Value() {
						return false
					}
					continue
				}
				sum := used[r].DeepCopy()
				if q, ok := it.Capacity[r]; ok {
					sum.Add(q)
				}
				if sum.Cmp(lim) > 0 {
					return false
				}
			}
			return true
		}
		for _, it := range in.InstanceTypes()[np.Name] {
			if !it.Requirements.HasIntersection(reqs) || !room(it) {
				continue
			}
			for _, o := range it.Offerings.Available().Compatible(reqs) {
				out[o.Zone()] = true
			}
		}
	}
	for _, n := range in.Nodes() {
		if z, ok := n.Node.Labels[v1.LabelTopologyZone]; ok {
			out[z] = true
		}
	}
	return out
}

// TestPropTopology: required hostname anti-affinity never puts two pods it selects on one
// node, DoNotSchedule hostname spread never puts more than maxSkew on a node that received
// pods, required zone affinity keeps its group in one zone, and DoNotSchedule zone spread keeps every zone that receives pods of its group within
// maxSkew of the least-populated zone of the universe (counting bound pods, pods on existing
// nodes and pods on NodeClaims whose zone requirement is single-valued).
func TestPropTopology(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, res := solve(t, sc)
		locs := locations(in, res)
		// Hostname anti-affinity (including its inverse: a pod it selects never joins it).
		for _, l := range locs {
			all := append(append([]*corev1.Pod(nil), l.bound...), l.placed...)
			for i, p := range all {
				if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
					continue
				}
				for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
					if term.TopologyKey != v1.LabelHostname {
						continue
					}
					sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
					if err != nil {
						t.Fatal(err)
					}
					for j, q := range all {
						if i == j || (i < len(l.bound) && j < len(l.bound)) || q.Namespace != p.Namespace {
							continue
						}
						if sel.Matches(labels.Set(q.Labels)) {
							t.Fatalf("%s: pod %s has hostname anti-affinity to %v but shares the node with %s", l.name, p.Name, term.LabelSelector.MatchLabels, q.Name)
						}
					}
				}
			}
		}
		// Hostname spread: a host holds at most maxSkew pods of the group above the least
		// populated node once it received one (the minimum over the nodes and NodeClaims there
		// are, as kube-scheduler finds it once they are: zero beside an empty one).
		for _, g := range sc.groups {
			if g.spreadKey != v1.LabelHostname || g.when != corev1.DoNotSchedule {
				continue
			}
			low := int32(-1)
			for _, l := range locs {
				n := int32(0)
				for _, p := range append(append([]*corev1.Pod(nil), l.bound...), l.placed...) {
					if p.Labels[groupLabel] == g.name {
						n++
					}
				}
				if low < 0 || n < low {
					low = n
				}
			}
			for _, l := range locs {
				n, placed := 0, 0
				for i, p := range append(append([]*corev1.Pod(nil), l.bound...), l.placed...) {
					if p.Labels[groupLabel] == g.name {
						n++
						if i >= len(l.bound) {
							placed++
						}
					}
				}
				if placed > 0 && int32(n) > g.maxSkew+max(low, 0) {
					t.Fatalf("hostname spread of group %s (maxSkew %d): %s holds %d of its pods", g.name, g.maxSkew, l.name, n)
				}
			}
		}
		// Zone affinity: pods placed in a known zone join a zone where the group already was
		// (a bound pod), or, with no bound pod, all share the zone the first one chose. Only
		// for groups whose pending pods have no zone selector: a pod whose own zones hold no
		// pod of the group may bootstrap a new zone (Karpenter's nextDomainAffinity).
	affinity:
		for gi, g := range sc.groups {
			if !g.zoneAffinity {
				continue
			}
			for _, ps := range sc.pods {
				if ps.group == gi && ps.zone != "" {
					continue affinity
				}
			}
			bound, placed := map[string]bool{}, map[string][]string{}
			for _, l := range locs {
				for _, p := range l.bound {
					if p.Labels[groupLabel] == g.name {
						bound[l.zone] = true
					}
				}
				if l.zone == "" {
					continue
				}
				for _, p := range l.placed {
					if p.Labels[groupLabel] == g.name {
						placed[l.zone] = append(placed[l.zone], p.Name)
					}
				}
			}
			for z, pods := range placed {
				if len(bound) > 0 && !bound[z] {
					t.Fatalf("zone affinity of group %s: pods %v placed in %s, the group's bound pods are in %v", g.name, pods, z, bound)
				}
			}
			if len(bound) == 0 && len(placed) > 1 {
				t.Fatalf("zone affinity of group %s: placed in several zones: %v", g.name, placed)
			}
		}
		// Zone spread.
		universe := zoneUniverse(in)
		for _, g := range sc.groups {
			if g.spreadKey != v1.LabelTopologyZone || g.when != corev1.DoNotSchedule {
				continue
			}
			counts, placed := map[string]int{}, map[string]int{}
			for z := range universe {
				counts[z] = 0
			}
			for _, l := range locs {
				if l.zone == "" {
					continue
				}
				for i, p := range append(append([]*corev1.Pod(nil), l.bound...), l.placed...) {
					if p.Labels[groupLabel] == g.name {
						counts[l.zone]++
						if i >= len(l.bound) {
							placed[l.zone]++
						}
					}
				}
			}
			lo := math.MaxInt
			for _, c := range counts {
				lo = min(lo, c)
			}
			// Pods placed on Nodes that take them at once bind before any NodeClaim launches,
			// and kube-scheduler then sees the Nodes' zones alone: a zone whose received pods all
			// bind so is held to the least of those zones, counting the bound pods and the pods
			// placed on such Nodes.
			nowCounts, nodeZones, later := map[string]int{}, map[string]bool{}, map[string]bool{}
			for _, l := range locs {
				if l.zone == "" {
					continue
				}
				if l.node {
					nodeZones[l.zone] = true
				}
				for i, p := range append(append([]*corev1.Pod(nil), l.bound...), l.placed...) {
					if p.Labels[groupLabel] != g.name {
						continue
					}
					if i < len(l.bound) || l.now {
						nowCounts[l.zone]++
					} else {
						later[l.zone] = true
					}
				}
			}
			nowLo := math.MaxInt
			for z := range nodeZones {
				nowLo = min(nowLo, nowCounts[z])
			}
			// Bound pods may already be skewed; but the last pod placed in a zone saw at most
			// the final minimum, so every zone that received pods is within maxSkew of it.
			for z := range placed {
				if !later[z] && int32(nowCounts[z]-nowLo) <= g.maxSkew {
					continue
				}
				if int32(counts[z]-lo) > g.maxSkew {
					t.Fatalf("zone spread of group %s (maxSkew %d): zone %s received %d pods and holds %d, the minimum is %d: %v",
						g.name, g.maxSkew, z, placed[z], counts[z], lo, counts)
				}
			}
		}
	})
}

// TestPropLimits: the new NodeClaims of a NodePool (at their chosen type's capacity) plus its
// existing nodes stay within spec.limits cpu and nodes.
func TestPropLimits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, res := solve(t, sc)
		for _, np := range in.NodePools() {
			var newCPU, oldCPU int64
			newNodes, oldNodes := 0, 0
			for _, c := range res.NewNodeClaims {
				if c.NodePool == np.Name {
					newCPU += c.InstanceType.Capacity.Cpu().MilliValue()
					newNodes++
				}
			}
			if newNodes == 0 {
				continue
			}
			for _, n := range in.Nodes() {
				if n.Node.Labels[v1.NodePoolLabelKey] == np.Name {
					oldCPU += n.Node.Status.Capacity.Cpu().MilliValue()
					oldNodes++
				}
			}
			if lim, ok := np.Spec.Limits[corev1.ResourceCPU]; ok && newCPU+oldCPU > lim.MilliValue() {
				t.Fatalf("NodePool %s: cpu %dm (new %dm + existing %dm) exceeds limit %s", np.Name, newCPU+oldCPU, newCPU, oldCPU, lim.String())
			}
			if lim, ok := np.Spec.Limits["nodes"]; ok && int64(newNodes+oldNodes) > lim.Value() {
				t.Fatalf("NodePool %s: %d nodes (%d new + %d existing) exceed limit %s", np.Name, newNodes+oldNodes, newNodes, oldNodes, lim.String())
			}
		}
	})
}

// TestPropCheapest: each NodeClaim's offering is the cheapest available compatible offering
// over its options, and the options are ordered by that price.
func TestPropCheapest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		_, res := solve(t, sc)
		for _, c := range res.NewNodeClaims {
			prev := math.Inf(-1)
			best := math.Inf(1)
			for i, it := range c.InstanceTypeOptions {
				p, ok := cheapestCompatible(it, c.Requirements)
				if !ok {
					t.Fatalf("claim %s: option %s has no available compatible offering", c.Hostname, it.Name)
				}
				if p < prev {
					t.Fatalf("claim %s: option %d (%s, %.2f) is cheaper than the one before (%.2f): %v", c.Hostname, i, it.Name, p, prev, names(c.InstanceTypeOptions))
				}
				prev = p
				best = min(best, p)
			}
			if c.Offering.Price != best {
				t.Fatalf("claim %s: offering %s %s/%s at %.2f, but the cheapest option offers %.2f", c.Hostname, c.InstanceType.Name, c.Offering.Zone(), c.Offering.CapacityType(), c.Offering.Price, best)
			}
			if p, _ := cheapestCompatible(c.InstanceType, c.Requirements); p != c.Offering.Price {
				t.Fatalf("claim %s: offering price %.2f is not the cheapest of its type %s (%.2f)", c.Hostname, c.Offering.Price, c.InstanceType.Name, p)
			}
			if !containsOffering(c.InstanceType.Offerings, c.Offering) {
				t.Fatalf("claim %s: offering is not one of %s's", c.Hostname, c.InstanceType.Name)
			}
		}
	})
}

func containsOffering(ofs cloudprovider.Offerings, o *cloudprovider.Offering) bool {
	for _, x := range ofs {
		if x == o {
			return true
		}
	}
	return false
}

// render is a canonical text of a result, by value.
func render(res *scheduling.Result) string {
	var b strings.Builder
	for _, c := range res.NewNodeClaims {
		fmt.Fprintf(&b, "claim %s pool=%s type=%s offering=%s/%s/%g reqs=%s options=%v labels=%v taints=%v requests=%v relaxed=%v pods=[",
			c.Hostname, c.NodePool, c.InstanceType.Name, c.Offering.Zone(), c.Offering.CapacityType(), c.Offering.Price,
			c.Requirements, names(c.InstanceTypeOptions), sortedMap(c.Labels), c.Taints, resources(c.Requests), c.MinValuesRelaxed)
		for _, p := range c.Pods {
			b.WriteString(p.Name + " ")
		}
		b.WriteString("]\n")
	}
	for _, m := range res.Bindings {
		fmt.Fprintf(&b, "node %s pod=%s\n", m.To, m.Pod.Name)
	}
	for _, pe := range res.PodErrors {
		fmt.Fprintf(&b, "error %s: %s\n", pe.Pod.Name, pe.Message())
	}
	return b.String()
}

func sortedMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func resources(rl corev1.ResourceList) string {
	var parts []string
	for n, q := range rl {
		parts = append(parts, string(n)+"="+q.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// placements maps each pod name to where it went: NodePool, instance type and zone of its
// NodeClaim, an existing node, or an error.
func placements(res *scheduling.Result) map[string]string {
	out := map[string]string{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			out[p.Name] = fmt.Sprintf("claim pool=%s type=%s zone=%s", c.NodePool, c.InstanceType.Name, c.Offering.Zone())
		}
	}
	for _, b := range res.Bindings {
		out[b.Pod.Name] = "node " + b.To
	}
	for _, pe := range res.PodErrors {
		out[pe.Pod.Name] = "error"
	}
	return out
}

// warm fills the instance types' lazily computed allocatable, which is a cache, not input.
func warm(in cluster.Objects) {
	for _, its := range in.InstanceTypes {
		for _, it := range its {
			it.Allocatable()
		}
	}
}

// TestPropDeterministic: Solve gives identical results on the same input twice and on a deep
// copy, and the same placements when pods, NodePools, nodes, DaemonSets and instance types
// come in another order.
func TestPropDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, res := solve(t, sc)
		want := render(res)
		again := mustSolve(t, in, scheduling.Options{})
		if got := render(again); got != want {
			t.Fatalf("second Solve of the same input differs:\n--- first\n%s--- second\n%s", want, got)
		}
		_, copyRes := solve(t, sc)
		if got := render(copyRes); got != want {
			t.Fatalf("Solve of a deep copy differs:\n--- original\n%s--- copy\n%s", want, got)
		}

		shuffled := sc.build()
		shuffled.Pods = rapid.Permutation(shuffled.Pods).Draw(t, "pods-order")
		shuffled.NodePools = rapid.Permutation(shuffled.NodePools).Draw(t, "nodepools-order")
		shuffled.Nodes = rapid.Permutation(shuffled.Nodes).Draw(t, "nodes-order")
		shuffled.DaemonSets = rapid.Permutation(shuffled.DaemonSets).Draw(t, "daemonsets-order")
		for _, np := range shuffled.NodePools {
			shuffled.InstanceTypes[np.Name] = rapid.Permutation(shuffled.InstanceTypes[np.Name]).Draw(t, np.Name+"/instance-types-order")
		}
		shufRes := mustSolve(t, snapOf(t, shuffled), scheduling.Options{})
		wantP, gotP := placements(res), placements(shufRes)
		for _, p := range sc.pods {
			if wantP[p.name] != gotP[p.name] {
				t.Fatalf("pod %s: %s in input order, %s after shuffling", p.name, wantP[p.name], gotP[p.name])
			}
		}
	})
}

// TestPropPure: Solve never modifies its input.
func TestPropPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		in, ref := sc.build(), sc.build()
		warm(in)
		warm(ref)
		if !reflect.DeepEqual(in, ref) {
			t.Fatal("two builds of one scenario differ")
		}
		mustSolve(t, snapOf(t, in), scheduling.Options{})
		if !reflect.DeepEqual(in, ref) {
			t.Fatalf("Solve modified its input: %s", firstDiff(in, ref))
		}
	})
}

// firstDiff names the first part of the input that differs.
func firstDiff(a, b cluster.Objects) string {
	for i := range a.Pods {
		if !reflect.DeepEqual(a.Pods[i], b.Pods[i]) {
			return "pod " + a.Pods[i].Name
		}
	}
	for i := range a.NodePools {
		if !reflect.DeepEqual(a.NodePools[i], b.NodePools[i]) {
			return "NodePool " + a.NodePools[i].Name
		}
	}
	for k := range a.InstanceTypes {
		for i := range a.InstanceTypes[k] {
			if !reflect.DeepEqual(a.InstanceTypes[k][i], b.InstanceTypes[k][i]) {
				return "instance type " + a.InstanceTypes[k][i].Name
			}
		}
	}
	for i := range a.Nodes {
		if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
			return "node " + a.Nodes[i].Name
		}
	}
	for i := range a.DaemonSets {
		if !reflect.DeepEqual(a.DaemonSets[i], b.DaemonSets[i]) {
			return "DaemonSet " + a.DaemonSets[i].Name
		}
	}
	return "WellKnownLabels"
}
