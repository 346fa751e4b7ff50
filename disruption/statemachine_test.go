package disruption_test

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// smEpoch is the model's clock at the start of every run; the clock only moves by Tick.
var smEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	smMaxPods     = 30              // pods the model knows at most
	smMaxPools    = 8               // NodePools a run draws at most
	smMaxPoolWait = 2 * time.Minute // the longest consolidateAfter a NodePool draws
	smAntiLabel   = "anti"          // label of hostname anti-affinity groups
	smPriceEps    = 1e-9            // float tolerance for price comparisons
	smTickMin     = smMaxPoolWait + time.Second
)

// smStats counts what the machine exercised, over every run of the test (for the log).
var smStats struct {
	runs, provisions, launched, commands, replacements, emptiness, multi, single, displaced atomic.Int64
}

// smNode is a node of the simulated cluster: the fake cloud's launched NodeClaim, the Node
// built from it, and the pods bound to it.
type smNode struct {
	node  *corev1.Node
	claim *v1.NodeClaim
	pods  []*corev1.Pod
	price float64
}

// smModel is the simulated cluster: a fake cloud that really launches NodeClaims, the Nodes
// built from them with their bound pods, the pending pods and a clock.
type smModel struct {
	cloud  *fake.CloudProvider
	pools  []*v1.NodePool
	types  map[string]cloudprovider.InstanceTypes
	wkl    requirements.KeySet
	s2s    bool
	nodes  []*smNode // in launch order (names sort the same way)
	pend   []*corev1.Pod
	known  map[string]*corev1.Pod // every pod the model expects to exist, by name, as created
	now    time.Time
	podSeq int
	seq    int
	// added is true when pods were added since the last Provision: only then may a
	// Consolidate (whose follow-up Provision places them) raise the cluster's price.
	added bool
}

// TestStateMachine drives a simulated cluster through provisioning (scheduling.Solve applied
// to a fake cloud) and disruption (disruption.Plan applied to the same cloud), checking after
// every step that no pod is lost or doubled, no node is overcommitted, hostname
// anti-affinity holds, consolidation never raises the price, and Solve and Plan are
// deterministic.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newSMModel(t)
		smStats.runs.Add(1)
		t.Repeat(map[string]func(*rapid.T){
			"AddPods":     m.addPods,
			"DeletePods":  m.deletePods,
			"Provision":   m.provision,
			"Consolidate": m.consolidate,
			"Tick":        m.tick,
			"":            m.check,
		})
	})
	t.Logf("%d runs, %d provisions launching %d nodes, %d commands (%d emptiness, %d multi-node, %d single-node; %d replacements), %d displaced pods",
		smStats.runs.Load(), smStats.provisions.Load(), smStats.launched.Load(),
		smStats.commands.Load(), smStats.emptiness.Load(), smStats.multi.Load(), smStats.single.Load(), smStats.replacements.Load(),
		smStats.displaced.Load())
}

// newSMModel draws 1-smMaxPools NodePools over subsets of fake.InstanceTypes(6), each with
// its own capacity types, optional zones, weight, consolidateAfter, budget and policy.
func newSMModel(t *rapid.T) *smModel {
	all := fake.InstanceTypes(6)
	m := &smModel{
		cloud: fake.NewCloudProvider(all),
		types: map[string]cloudprovider.InstanceTypes{},
		wkl:   fake.WellKnownLabels(),
		known: map[string]*corev1.Pod{},
		now:   smEpoch,
	}
	m.cloud.InstanceTypesForNodePool = map[string]cloudprovider.InstanceTypes{}
	zones := []string{fake.TestZone1, fake.TestZone2, fake.TestZone3}
	n := rapid.IntRange(1, smMaxPools).Draw(t, "nodepools")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("pool-%d", i)
		b := fake.NodePool(name)
		cts := rapid.SampledFrom([][]string{{v1.CapacityTypeOnDemand}, {v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}, {v1.CapacityTypeSpot}}).Draw(t, name+"/capacity-types")
		b.Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...)
		if rapid.IntRange(0, 2).Draw(t, name+"/restrict-zones") == 2 {
			b.Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn,
				rapid.SliceOfNDistinct(rapid.SampledFrom(zones), 1, 2, rapid.ID[string]).Draw(t, name+"/zones")...)
		}
		if w := rapid.IntRange(0, 2).Draw(t, name+"/weight"); w > 0 {
			b.Weight(int32(10 * w))
		}
		b.Disruption(v1.Disruption{
			ConsolidationPolicy: rapid.SampledFrom([]v1.ConsolidationPolicy{v1.ConsolidationPolicyWhenEmptyOrUnderutilized, v1.ConsolidationPolicyWhenEmpty, v1.ConsolidationPolicyBalanced}).Draw(t, name+"/policy"),
			ConsolidateAfter:    v1.MustParseNillableDuration(rapid.SampledFrom([]string{"0s", "30s", smMaxPoolWait.String()}).Draw(t, name+"/consolidate-after")),
			Budgets:             []v1.Budget{{Nodes: rapid.SampledFrom([]string{"100%", "1", "50%"}).Draw(t, name+"/budget")}},
		})
		np := b.Obj()
		np.Spec.Template.Spec.ExpireAfter = v1.NeverDuration() // no expiration: its replacements may cost more
		m.pools = append(m.pools, np)
		idx := rapid.SliceOfNDistinct(rapid.IntRange(0, len(all)-1), 1, len(all), rapid.ID[int]).Draw(t, name+"/types")
		sort.Ints(idx)
		var its cloudprovider.InstanceTypes
		for _, j := range idx {
			its = append(its, all[j])
		}
		m.types[name] = its
		m.cloud.InstanceTypesForNodePool[name] = its
	}
	m.s2s = rapid.Bool().Draw(t, "spot-to-spot")
	return m
}

// --- actions ---

// addPods adds 1-6 pending pods: cpu 50m-2500m, memory 128Mi-4Gi, optionally a zone
// nodeSelector and a hostname anti-affinity group.
func (m *smModel) addPods(t *rapid.T) {
	if len(m.known) >= smMaxPods {
		t.Skip("cluster is full")
	}
	n := rapid.IntRange(1, min(6, smMaxPods-len(m.known))).Draw(t, "add")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("pod-%03d", m.podSeq)
		m.podSeq++
		b := fake.Pod(name).Label("app", "sm").
			Request(corev1.ResourceCPU, fmt.Sprintf("%dm", 50*rapid.IntRange(1, 50).Draw(t, "cpu/50m"))).
			Request(corev1.ResourceMemory, fmt.Sprintf("%dMi", 128*rapid.IntRange(1, 32).Draw(t, "memory/128Mi")))
		if z := rapid.IntRange(0, 5).Draw(t, "zone"); z >= 3 {
			b.NodeSelector(v1.LabelTopologyZone, fmt.Sprintf("test-zone-%d", z-2))
		}
		if g := rapid.IntRange(0, 3).Draw(t, "anti-group"); g >= 2 {
			group := fmt.Sprintf("g%d", g-2)
			b.Label(smAntiLabel, group).PodAntiAffinity(v1.LabelHostname, map[string]string{smAntiLabel: group})
		}
		p := b.Obj()
		m.known[name] = p
		m.pend = append(m.pend, p)
	}
	m.added = true
}

// deletePods removes 1-5 bound pods.
func (m *smModel) deletePods(t *rapid.T) {
	var bound []string
	for _, n := range m.nodes {
		for _, p := range n.pods {
			bound = append(bound, p.Name)
		}
	}
	if len(bound) == 0 {
		t.Skip("no bound pods")
	}
	sort.Strings(bound)
	victims := rapid.SliceOfNDistinct(rapid.SampledFrom(bound), 1, min(5, len(bound)), rapid.ID[string]).Draw(t, "delete")
	gone := map[string]bool{}
	for _, v := range victims {
		gone[v] = true
		delete(m.known, v)
	}
	for _, n := range m.nodes {
		kept := n.pods[:0]
		for _, p := range n.pods {
			if !gone[p.Name] {
				kept = append(kept, p)
			}
		}
		if len(kept) != len(n.pods) {
			n.pods = kept
			n.claim.Status.LastPodEventTime = metav1.NewTime(m.now)
		}
	}
}

// tick advances the clock past every NodePool's consolidateAfter.
func (m *smModel) tick(t *rapid.T) {
	m.now = m.now.Add(smTickMin + time.Duration(rapid.IntRange(0, 600).Draw(t, "tick-seconds"))*time.Second)
}

// provision solves the pending pods on the existing nodes, launches the new NodeClaims in
// the fake cloud and binds the pods; unschedulable pods stay pending.
func (m *smModel) provision(t *rapid.T) {
	m.added = false
	if len(m.pend) == 0 {
		return
	}
	smStats.provisions.Add(1)
	in := &scheduling.Input{
		Pods:            m.pend,
		NodePools:       m.pools,
		InstanceTypes:   m.types,
		WellKnownLabels: m.wkl,
		Nodes:           m.snapshot(),
	}
	res, err := scheduling.Solve(in)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	res2, err := scheduling.Solve(in)
	if err != nil {
		t.Fatalf("Solve (again): %v", err)
	}
	if a, b := solveSummary(res), solveSummary(res2); a != b {
		t.Fatalf("Solve is not deterministic:\n%s\n---\n%s", a, b)
	}
	if vs := verify.Solve(in, res); len(vs) > 0 {
		t.Fatalf("verify.Solve: %v", vs)
	}
	// Every pending pod is placed exactly once or has an error.
	seen := map[string]int{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			seen[p.Name]++
		}
	}
	for _, pl := range res.ExistingNodes {
		for _, p := range pl.Pods {
			seen[p.Name]++
		}
	}
	for _, e := range res.PodErrors {
		seen[e.Pod.Name]++
	}
	for _, p := range m.pend {
		if seen[p.Name] != 1 {
			t.Fatalf("Solve accounts for pending pod %s %d times", p.Name, seen[p.Name])
		}
	}
	if len(seen) != len(m.pend) {
		t.Fatalf("Solve returned %d pods for %d pending pods", len(seen), len(m.pend))
	}

	placed := map[string]*smNode{}
	for _, c := range res.NewNodeClaims {
		n := m.launch(t, c)
		for _, p := range c.Pods {
			placed[p.Name] = n
		}
	}
	for _, pl := range res.ExistingNodes {
		n := m.node(pl.Name)
		if n == nil {
			t.Fatalf("Solve placed pods on unknown node %s", pl.Name)
		}
		for _, p := range pl.Pods {
			placed[p.Name] = n
		}
	}
	var still []*corev1.Pod
	for _, p := range m.pend {
		if n := placed[p.Name]; n != nil {
			m.bind(n, p)
		} else {
			still = append(still, p)
		}
	}
	m.pend = still
}

// consolidate plans disruption at the model's clock (twice: the plans must be equal),
// checks the plan and applies its commands in order (see applyCommand), then provisions
// what is still pending. Without pods added since the last Provision, the cluster's price
// must fall by the plan's savings.
func (m *smModel) consolidate(t *rapid.T) {
	in := &disruption.Input{
		Now:             m.now,
		NodePools:       m.pools,
		InstanceTypes:   m.types,
		WellKnownLabels: m.wkl,
		Nodes:           m.snapshot(),
		Pods:            m.pend,
		Options:         disruption.Options{SpotToSpotConsolidation: m.s2s},
	}
	res, err := disruption.Plan(in)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	res2, err := disruption.Plan(in)
	if err != nil {
		t.Fatalf("Plan (again): %v", err)
	}
	if a, b := planSummary(res), planSummary(res2); a != b {
		t.Fatalf("Plan is not deterministic:\n%s\n---\n%s", a, b)
	}
	m.checkPlan(t, res)
	if vs := verify.Plan(in, res); len(vs) > 0 {
		t.Fatalf("verify.Plan: %v", vs)
	}

	priceBefore, added := m.price(), m.added
	before := m.describe()
	// What Plan saw: which nodes were inside their consolidateAfter, and which pods were
	// pending. The commands are applied together, as Plan simulated the last of them (see
	// replay).
	recent := map[*smNode]bool{}
	for _, n := range m.nodes {
		recent[n] = m.now.Before(n.claim.Status.LastPodEventTime.Add(m.consolidateAfter(n)))
	}
	pending := append([]*corev1.Pod(nil), m.pend...)
	inflight := map[*smNode]bool{}
	last := -1
	for i, c := range res.Commands {
		if c.Reason != disruption.ReasonEmpty {
			last = i
		}
	}
	var marked []*scheduling.Node
	var own []*corev1.Pod
	savings := 0.0
	for i, c := range res.Commands {
		smStats.commands.Add(1)
		switch c.Method {
		case disruption.MethodEmptiness:
			smStats.emptiness.Add(1)
		case disruption.MethodMultiNode:
			smStats.multi.Add(1)
		case disruption.MethodSingleNode:
			smStats.single.Add(1)
		}
		savings += c.SavingsPerHour
		for _, name := range c.Candidates {
			n := m.node(name)
			smStats.displaced.Add(int64(len(n.pods)))
			switch {
			case i < last:
				marked = append(marked, &scheduling.Node{Node: n.node, NodeClaim: n.claim, Pods: n.pods, MarkedForDeletion: true})
			case i == last:
				own = append(own, n.pods...)
			case len(n.pods) > 0:
				t.Fatalf("command %d (%s %v) after the last simulated one displaces pods", i, c.Method, c.Candidates)
			}
			m.remove(t, n)
		}
		// The provisioner's NodeClaims first: Plan's simulations have them in flight (their
		// names sorting first) before any replacement.
		for _, r := range append(append([]*scheduling.NodeClaim(nil), provisionedBy(res, i)...), c.Replacements...) {
			smStats.replacements.Add(1)
			inflight[m.launch(t, r)] = true
		}
	}
	if last >= 0 {
		if why := m.replay(t, pending, own, marked, recent, inflight); why != "" {
			c := res.Commands[last]
			t.Fatalf("command %d (%s %v) cannot be applied as planned: %s\nplan:\n%s\ncluster before the plan:\n%s", last, c.Method, c.Candidates, why, planSummary(res), before)
		}
	}
	if len(res.Commands) == 0 {
		return
	}
	m.provision(t)
	if !added {
		after := m.price()
		if after > priceBefore+smPriceEps {
			t.Fatalf("consolidation raised the cluster's price from %.6f to %.6f\nplan:\n%s\ncluster before the plan:\n%s", priceBefore, after, planSummary(res), before)
		}
		if after > priceBefore-savings+1e-6 {
			t.Fatalf("consolidation saved %.6f/h, the plan said %.6f/h\nplan:\n%s\ncluster before the plan:\n%s", priceBefore-after, savings, planSummary(res), before)
		}
	}
}

// provisionedBy is what the provisioner launches before the first command (Plan's
// Result.Provisioned), launched with it.
func provisionedBy(res *disruption.Result, i int) []*scheduling.NodeClaim {
	if i == 0 {
		return res.Provisioned
	}
	return nil
}

// replay places the displaced pods as Plan's last simulation did: the pods of the earlier
// commands' candidates (marked for deletion) together with those of the last command's
// candidates (own), the pending pods competing, the launched NodeClaims in flight and the
// consolidateAfter rule on. Every displaced pod must land on a node that exists now (the
// replacements included); it returns why not ("" when all found their home).
func (m *smModel) replay(t *rapid.T, pending, own []*corev1.Pod, marked []*scheduling.Node, recent, inflight map[*smNode]bool) string {
	in := &scheduling.Input{
		Pods:            append(append([]*corev1.Pod(nil), pending...), own...),
		NodePools:       m.pools,
		InstanceTypes:   m.types,
		WellKnownLabels: m.wkl,
		Nodes:           append([]*scheduling.Node(nil), marked...),
		Options:         scheduling.Options{ConsolidationSimulation: true},
	}
	for _, n := range m.nodes {
		sn := &scheduling.Node{Node: n.node, NodeClaim: n.claim, Pods: n.pods, UnderConsolidateAfter: recent[n]}
		if inflight[n] {
			nc := n.claim.DeepCopy()
			nc.Labels[v1.LabelHostname] = n.node.Name
			sn = &scheduling.Node{NodeClaim: nc, Pods: n.pods}
		}
		in.Nodes = append(in.Nodes, sn)
	}
	displaced := append([]*corev1.Pod(nil), own...)
	for _, mn := range marked {
		displaced = append(displaced, mn.Pods...)
	}
	if len(displaced) == 0 {
		return ""
	}
	sim, err := scheduling.Solve(in)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if vs := verify.Solve(in, sim); len(vs) > 0 {
		t.Fatalf("verify.Solve of the replayed simulation: %v", vs)
	}
	home := map[string]*smNode{}
	for _, pl := range sim.ExistingNodes {
		for _, p := range pl.Pods {
			home[p.Name] = m.node(pl.Name)
		}
	}
	var why []string
	for _, p := range displaced {
		if n := home[p.Name]; n != nil {
			m.bind(n, p)
			continue
		}
		why = append(why, p.Name)
		m.pend = append(m.pend, unbind(p))
	}
	if len(why) > 0 {
		return fmt.Sprintf("no planned home for pods %v; Solve on the planned state:\n%s", why, solveSummary(sim))
	}
	return ""
}

func (m *smModel) consolidateAfter(n *smNode) time.Duration {
	for _, np := range m.pools {
		if np.Name == n.node.Labels[v1.NodePoolLabelKey] && np.Spec.Disruption.ConsolidateAfter.Duration != nil {
			return *np.Spec.Disruption.ConsolidateAfter.Duration
		}
	}
	return 0
}

// --- plan checks ---

func (m *smModel) checkPlan(t *rapid.T, res *disruption.Result) {
	inCommand := map[string]int{}
	for i, c := range res.Commands {
		total := 0.0
		for _, name := range c.Candidates {
			if j, dup := inCommand[name]; dup {
				t.Fatalf("node %s is in commands %d and %d", name, j, i)
			}
			inCommand[name] = i
			n := m.node(name)
			if n == nil {
				t.Fatalf("command %d disrupts unknown node %s", i, name)
			}
			total += n.price
		}
		switch c.Reason {
		case disruption.ReasonEmpty:
			if len(c.Replacements) != 0 {
				t.Fatalf("emptiness command %v has replacements", c.Candidates)
			}
			for _, name := range c.Candidates {
				if n := m.node(name); len(n.pods) != 0 {
					t.Fatalf("emptiness command deletes %s with %d pods", name, len(n.pods))
				}
			}
		case disruption.ReasonUnderutilized:
			if len(c.Replacements) > 1 {
				t.Fatalf("consolidation %v launches %d nodes", c.Candidates, len(c.Replacements))
			}
			if len(c.Replacements) == 1 {
				r := c.Replacements[0]
				if r.Offering == nil || !(r.Offering.Price < total) {
					t.Fatalf("consolidation %v (%.6f/h) is replaced by %s at %v/h, not cheaper", c.Candidates, total, claimName(r), offeringPrice(r))
				}
			}
			if c.SavingsPerHour <= 0 {
				t.Fatalf("consolidation %v saves %v/h", c.Candidates, c.SavingsPerHour)
			}
		default:
			t.Fatalf("unexpected command %s/%s for %v (no node expires or drifts in this model)", c.Method, c.Reason, c.Candidates)
		}
		if want := total - claimsPrice(c.Replacements); math.Abs(c.SavingsPerHour-want) > 1e-6 {
			t.Fatalf("command %v says it saves %.6f/h, candidates %.6f minus replacements %.6f is %.6f", c.Candidates, c.SavingsPerHour, total, claimsPrice(c.Replacements), want)
		}
	}
	for _, b := range res.Blocked {
		if _, ok := inCommand[b.Node]; ok {
			t.Fatalf("node %s is both in a command and blocked (%s)", b.Node, b.Reason)
		}
	}
	if len(res.Blocked)+len(inCommand) != len(m.nodes) {
		t.Fatalf("plan accounts for %d of %d nodes", len(res.Blocked)+len(inCommand), len(m.nodes))
	}
}

// --- invariants ---

func (m *smModel) check(t *rapid.T) {
	// Every known pod is bound to exactly one existing node, or pending.
	where := map[string][]string{}
	for _, n := range m.nodes {
		for _, p := range n.pods {
			where[p.Name] = append(where[p.Name], n.node.Name)
			if p.Spec.NodeName != n.node.Name {
				t.Fatalf("pod %s is bound to %s but says spec.nodeName=%q", p.Name, n.node.Name, p.Spec.NodeName)
			}
		}
	}
	for _, p := range m.pend {
		where[p.Name] = append(where[p.Name], "<pending>")
		if p.Spec.NodeName != "" {
			t.Fatalf("pending pod %s has spec.nodeName=%q", p.Name, p.Spec.NodeName)
		}
	}
	for name := range m.known {
		if len(where[name]) != 1 {
			t.Fatalf("pod %s is in %d places: %v", name, len(where[name]), where[name])
		}
	}
	for name, at := range where {
		if _, ok := m.known[name]; !ok {
			t.Fatalf("unknown pod %s at %v", name, at)
		}
	}

	// The model's nodes are exactly the cloud's machines.
	launched, err := m.cloud.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range launched {
		ids[c.Status.ProviderID] = true
	}
	if len(ids) != len(m.nodes) {
		t.Fatalf("the cloud runs %d machines, the model has %d nodes", len(ids), len(m.nodes))
	}
	for _, n := range m.nodes {
		if !ids[n.node.Spec.ProviderID] {
			t.Fatalf("node %s (%s) is not running in the cloud", n.node.Name, n.node.Spec.ProviderID)
		}
	}

	for _, n := range m.nodes {
		// No node's bound pods exceed its allocatable.
		alloc := n.node.Status.Allocatable
		var cpu, mem resource.Quantity
		for _, p := range n.pods {
			for _, c := range p.Spec.Containers {
				cpu.Add(c.Resources.Requests[corev1.ResourceCPU])
				mem.Add(c.Resources.Requests[corev1.ResourceMemory])
			}
		}
		if a := alloc[corev1.ResourceCPU]; cpu.Cmp(a) > 0 {
			t.Fatalf("node %s: pods request cpu %s, allocatable %s", n.node.Name, cpu.String(), a.String())
		}
		if a := alloc[corev1.ResourceMemory]; mem.Cmp(a) > 0 {
			t.Fatalf("node %s: pods request memory %s, allocatable %s", n.node.Name, mem.String(), a.String())
		}
		if a := alloc[corev1.ResourcePods]; int64(len(n.pods)) > a.Value() {
			t.Fatalf("node %s: %d pods, allocatable %s", n.node.Name, len(n.pods), a.String())
		}
		// Hostname anti-affinity pods never share a node; nodeSelectors hold.
		groups := map[string]string{}
		for _, p := range n.pods {
			if g, ok := p.Labels[smAntiLabel]; ok {
				if other, dup := groups[g]; dup {
					t.Fatalf("node %s runs %s and %s of anti-affinity group %s", n.node.Name, other, p.Name, g)
				}
				groups[g] = p.Name
			}
			for k, v := range p.Spec.NodeSelector {
				if n.node.Labels[k] != v {
					t.Fatalf("pod %s selects %s=%s, node %s has %q", p.Name, k, v, n.node.Name, n.node.Labels[k])
				}
			}
		}
	}
}

// --- model helpers ---

// describe renders the cluster for failure messages.
func (m *smModel) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "now=%s s2s=%v\n", m.now.Sub(smEpoch), m.s2s)
	for _, np := range m.pools {
		var its []string
		for _, it := range m.types[np.Name] {
			its = append(its, it.Name)
		}
		w := int32(0)
		if np.Spec.Weight != nil {
			w = *np.Spec.Weight
		}
		fmt.Fprintf(&b, "pool %s weight=%d reqs=%v policy=%s after=%s budget=%s types=%v\n", np.Name, w, np.Spec.Template.Spec.Requirements,
			np.Spec.Disruption.ConsolidationPolicy, np.Spec.Disruption.ConsolidateAfter.String(), np.Spec.Disruption.Budgets[0].Nodes, its)
	}
	for _, n := range m.nodes {
		fmt.Fprintf(&b, "node %s %s/%s/%s/%s $%.4f lastPodEvent=%s:", n.node.Name, n.node.Labels[v1.NodePoolLabelKey], n.node.Labels[v1.LabelInstanceType],
			n.node.Labels[v1.LabelTopologyZone], n.node.Labels[v1.CapacityTypeLabelKey], n.price, n.claim.Status.LastPodEventTime.Sub(smEpoch))
		for _, p := range n.pods {
			fmt.Fprintf(&b, " %s", podDesc(p))
		}
		b.WriteString("\n")
	}
	b.WriteString("pending:")
	for _, p := range m.pend {
		fmt.Fprintf(&b, " %s", podDesc(p))
	}
	b.WriteString("\n")
	return b.String()
}

func podDesc(p *corev1.Pod) string {
	r := p.Spec.Containers[0].Resources.Requests
	s := fmt.Sprintf("%s(%s,%s", p.Name, r.Cpu().String(), r.Memory().String())
	if z := p.Spec.NodeSelector[v1.LabelTopologyZone]; z != "" {
		s += "," + z
	}
	if g := p.Labels[smAntiLabel]; g != "" {
		s += ",anti=" + g
	}
	return s + ")"
}

// launch creates c in the fake cloud and adds the Node built from the launched NodeClaim.
func (m *smModel) launch(t *rapid.T, c *scheduling.NodeClaim) *smNode {
	m.seq++
	name := fmt.Sprintf("node-%03d", m.seq)
	lbls := map[string]string{v1.NodePoolLabelKey: c.NodePool}
	for k, v := range c.Labels {
		lbls[k] = v
	}
	var ref *v1.NodeClassReference
	for _, np := range m.pools {
		if np.Name == c.NodePool {
			ref = np.Spec.Template.Spec.NodeClassRef
		}
	}
	nc := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("claim-%03d", m.seq), Labels: lbls, CreationTimestamp: metav1.NewTime(m.now)},
		Spec: v1.NodeClaimSpec{
			Requirements:  c.Requirements.NodeSelectorRequirements(),
			Resources:     v1.ResourceRequirements{Requests: c.Requests},
			Taints:        c.Taints,
			StartupTaints: c.StartupTaints,
			NodeClassRef:  ref,
			ExpireAfter:   v1.NeverDuration(),
		},
	}
	out, err := m.cloud.Create(context.Background(), nc)
	if err != nil {
		t.Fatalf("the cloud cannot launch %s (%s): %v", claimName(c), nc.Name, err)
	}
	typ := out.Labels[v1.LabelInstanceType]
	inOptions := false
	for _, it := range c.InstanceTypeOptions {
		inOptions = inOptions || it.Name == typ
	}
	if !inOptions {
		t.Fatalf("the cloud launched %s for %s, not one of its options", typ, claimName(c))
	}
	price := m.offeringPrice(c.NodePool, typ, out.Labels[v1.LabelTopologyZone], out.Labels[v1.CapacityTypeLabelKey])
	if c.Offering == nil || price > c.Offering.Price+smPriceEps {
		t.Fatalf("the cloud launched %s at %.6f/h for %s", typ, price, claimName(c))
	}
	out.CreationTimestamp = metav1.NewTime(m.now)
	out.Status.NodeName = name
	out.Status.LastPodEventTime = metav1.NewTime(m.now)
	for _, typ := range []string{v1.ConditionTypeRegistered, v1.ConditionTypeInitialized} {
		out.Status.Conditions = append(out.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: typ, LastTransitionTime: metav1.NewTime(m.now)})
	}
	nodeLabels := map[string]string{}
	for k, v := range out.Labels {
		nodeLabels[k] = v
	}
	nodeLabels[v1.LabelHostname] = name
	nodeLabels[v1.NodeRegisteredLabelKey] = "true"
	nodeLabels[v1.NodeInitializedLabelKey] = "true"
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels, CreationTimestamp: metav1.NewTime(m.now)},
		Spec:       corev1.NodeSpec{ProviderID: out.Status.ProviderID, Taints: out.Spec.Taints},
		Status: corev1.NodeStatus{
			Capacity:    out.Status.Capacity,
			Allocatable: out.Status.Allocatable,
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	n := &smNode{node: node, claim: out, price: price}
	m.nodes = append(m.nodes, n)
	smStats.launched.Add(1)
	return n
}

// remove deletes n from the cloud and the model (its pods are the caller's to re-home).
func (m *smModel) remove(t *rapid.T, n *smNode) {
	if err := m.cloud.Delete(context.Background(), n.claim); err != nil {
		t.Fatalf("deleting %s: %v", n.node.Name, err)
	}
	for i, x := range m.nodes {
		if x == n {
			m.nodes = append(m.nodes[:i:i], m.nodes[i+1:]...)
			return
		}
	}
}

// bind puts a copy of p, running, on n.
func (m *smModel) bind(n *smNode, p *corev1.Pod) {
	b := p.DeepCopy()
	b.Spec.NodeName = n.node.Name
	b.Status.Phase = corev1.PodRunning
	b.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	st := metav1.NewTime(m.now)
	b.Status.StartTime = &st
	n.pods = append(n.pods, b)
	n.claim.Status.LastPodEventTime = metav1.NewTime(m.now)
}

// unbind is a pending copy of p.
func unbind(p *corev1.Pod) *corev1.Pod {
	u := p.DeepCopy()
	u.Spec.NodeName = ""
	u.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
	}}}
	return u
}

func (m *smModel) node(name string) *smNode {
	for _, n := range m.nodes {
		if n.node.Name == name {
			return n
		}
	}
	return nil
}

// snapshot is the cluster as scheduling and disruption see it.
func (m *smModel) snapshot() []*scheduling.Node {
	out := make([]*scheduling.Node, 0, len(m.nodes))
	for _, n := range m.nodes {
		out = append(out, &scheduling.Node{Node: n.node, NodeClaim: n.claim, Pods: append([]*corev1.Pod(nil), n.pods...)})
	}
	return out
}

func (m *smModel) price() float64 {
	p := 0.0
	for _, n := range m.nodes {
		p += n.price
	}
	return p
}

func (m *smModel) offeringPrice(pool, typ, zone, ct string) float64 {
	for _, it := range m.types[pool] {
		if it.Name != typ {
			continue
		}
		for _, o := range it.Offerings {
			if o.Zone() == zone && o.CapacityType() == ct {
				return o.Price
			}
		}
	}
	return math.Inf(1)
}

// --- summaries (for determinism checks and messages) ---

func claimName(c *scheduling.NodeClaim) string {
	if c == nil || c.InstanceType == nil || c.Offering == nil {
		return fmt.Sprintf("%+v", c)
	}
	return fmt.Sprintf("%s/%s/%s/%s", c.NodePool, c.InstanceType.Name, c.Offering.Zone(), c.Offering.CapacityType())
}

func offeringPrice(c *scheduling.NodeClaim) any {
	if c == nil || c.Offering == nil {
		return nil
	}
	return c.Offering.Price
}

func claimsPrice(cs []*scheduling.NodeClaim) float64 {
	p := 0.0
	for _, c := range cs {
		if c != nil && c.Offering != nil {
			p += c.Offering.Price
		}
	}
	return p
}

func podList(ps []*corev1.Pod) string {
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}

func claimSummary(c *scheduling.NodeClaim) string {
	var opts []string
	for _, it := range c.InstanceTypeOptions {
		opts = append(opts, it.Name)
	}
	var req []string
	for k, q := range c.Requests {
		req = append(req, string(k)+"="+q.String())
	}
	sort.Strings(req)
	var lbls []string
	for k, v := range c.Labels {
		lbls = append(lbls, k+"="+v)
	}
	sort.Strings(lbls)
	return fmt.Sprintf("%s %s price=%s opts=%v reqs={%s} requests=%v labels=%v pods=[%s]", claimName(c), c.Hostname,
		strconv.FormatFloat(claimsPrice([]*scheduling.NodeClaim{c}), 'g', -1, 64), opts, c.Requirements.String(), req, lbls, podList(c.Pods))
}

func solveSummary(r *scheduling.Result) string {
	var b strings.Builder
	for _, c := range r.NewNodeClaims {
		fmt.Fprintf(&b, "new %s\n", claimSummary(c))
	}
	for _, e := range r.ExistingNodes {
		fmt.Fprintf(&b, "existing %s [%s]\n", e.Name, podList(e.Pods))
	}
	for _, e := range r.PodErrors {
		fmt.Fprintf(&b, "error %s: %s\n", e.Pod.Name, e.Reason)
	}
	return b.String()
}

func planSummary(r *disruption.Result) string {
	var b strings.Builder
	for _, c := range r.Commands {
		fmt.Fprintf(&b, "%s %s %v saves=%s\n", c.Method, c.Reason, c.Candidates, strconv.FormatFloat(c.SavingsPerHour, 'g', -1, 64))
		for _, x := range c.Replacements {
			fmt.Fprintf(&b, "  + %s\n", claimSummary(x))
		}
	}
	for _, x := range r.Blocked {
		fmt.Fprintf(&b, "blocked %s: %s\n", x.Node, x.Reason)
	}
	return b.String()
}
