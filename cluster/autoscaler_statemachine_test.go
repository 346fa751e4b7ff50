package cluster_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// autoscaler is a host program's loop over the fake cloud, built only from the apply
// helpers: pods arrive and leave, Solve provisions, Plan consolidates, time passes, offerings
// run out of capacity. Every Solve and Plan is deterministic and held to verify and to the
// plan checks below; no pod is ever lost, no node overcommitted, no node selector or hostname
// anti-affinity broken, and a consolidation lowers the price by at least what it saves.
type autoscaler struct {
	stats *smStats
	ctx   context.Context
	cloud *fake.CloudProvider
	snap  *cluster.Snapshot
	now   time.Time
	names fake.Names
	// pods are the pods that should exist, by namespace/name.
	pods map[string]bool
	// claims are the launched NodeClaims by name, to delete them from the cloud.
	claims map[string]*v1.NodeClaim
	// spotToSpot is Plan's SpotToSpotConsolidation option.
	spotToSpot bool
}

// TestAutoscalerStateMachine runs rapid's default 100 checks; a long hunt raises them:
// go test ./cluster -run TestAutoscalerStateMachine -rapid.checks=5000 -rapid.steps=100.
func TestAutoscalerStateMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("state machine: not in -short")
	}
	var stats smStats
	defer func() { t.Logf("exercised: %+v", stats) }()
	rapid.Check(t, autoscalerMachine(&stats, true))
}

// TestAutoscalerStateMachineRegressions replays recorded counterexamples of fixed findings
// (rapid's fail files replay only with the -rapid.steps they were recorded with).
func TestAutoscalerStateMachineRegressions(t *testing.T) {
	for _, tc := range []struct{ failfile, steps string }{
		// Two single-node consolidations of one Plan: the second sent the first one's pod onto
		// an in-flight NodeClaim whose DaemonSet pod Plan did not count (it lacked its type's
		// arch label), so verify.Plan found no home for all moved pods (PlanNoDestination).
		{"testdata/plan-no-destination.fail", "60"},
	} {
		t.Run(tc.failfile, func(t *testing.T) {
			for k, v := range map[string]string{"rapid.failfile": tc.failfile, "rapid.steps": tc.steps, "rapid.checks": "0"} {
				old := flag.Lookup(k).Value.String()
				if err := flag.Set(k, v); err != nil {
					t.Fatal(err)
				}
				defer func() { _ = flag.Set(k, old) }()
			}
			var stats smStats
			rapid.Check(t, autoscalerMachine(&stats, false))
			if stats.Commands == 0 {
				t.Fatalf("the replay consolidated nothing (%+v): the fail file no longer drives the machine", stats)
			}
		})
	}
}

// autoscalerMachine is the state machine's property; stats count what it did over all runs.
// With pools, a run draws 1-4 NodePools over subsets of the types, each with its capacity
// types, zones, weight, consolidation policy, consolidateAfter and budget, and the
// spot-to-spot option (the replayed fail files were recorded with one NodePool, default).
func autoscalerMachine(stats *smStats, pools bool) func(*rapid.T) {
	return func(t *rapid.T) {
		types := fake.InstanceTypesGenerator(6).Draw(t, "instance-types")
		pool := fake.NodePool("default").Obj()
		a := &autoscaler{stats: stats, ctx: context.Background(), cloud: fake.NewCloudProvider(types), now: t0,
			pods: map[string]bool{}, claims: map[string]*v1.NodeClaim{}}
		objs := cluster.Objects{NodePools: []*v1.NodePool{pool},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}, WellKnownLabels: fake.WellKnownLabels()}
		if rapid.Bool().Draw(t, "daemonset") {
			objs.DaemonSets = append(objs.DaemonSets, fake.DaemonSetGenerator("logs").Draw(t, "logs"))
		}
		if rapid.Bool().Draw(t, "pdb") {
			app := rapid.SampledFrom([]string{"web", "db", "cache"}).Draw(t, "pdb-app")
			objs.PodDisruptionBudgets = append(objs.PodDisruptionBudgets,
				fake.PDB(app, "default", map[string]string{"app": app}, rapid.IntRange(0, 1).Draw(t, "pdb-max-unavailable")))
		}
		if pools {
			// The six types of disruption's old state machine: every zone, spot and on-demand.
			types = fake.InstanceTypes(6)
			a.cloud.InstanceTypes = types
			objs.NodePools, objs.InstanceTypes = drawNodePools(t, types)
			a.cloud.InstanceTypesForNodePool = objs.InstanceTypes
			a.spotToSpot = rapid.Bool().Draw(t, "spot-to-spot")
		}
		snap, err := cluster.New(objs)
		if err != nil {
			t.Fatal(err)
		}
		a.snap = snap
		settings := fake.PodSettings{ZoneSelector: 0.2, ArchSelector: 0.2, CapacityTypeRequirement: 0.2,
			ZoneSpread: 0.2, HostnameAntiAffinity: 0.2, HostPort: 0.1, MaxCPUMillis: 3000, MaxMemoryMi: 4096}
		actions := map[string]func(*rapid.T){
			"": func(t *rapid.T) { a.check(t) },
			"add pods": func(t *rapid.T) {
				pods := fake.PodsGeneratorWith(6, a.names.Next("w"), settings).Draw(t, "pods")
				next, err := a.snap.WithPods(pods...)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range pods {
					a.pods[cluster.PodKey(p)] = true
				}
				a.snap = next
			},
			"delete pods": func(t *rapid.T) {
				all := a.allPods()
				if len(all) == 0 {
					t.Skip("no pods")
				}
				gone := rapid.SliceOfNDistinct(rapid.SampledFrom(all), 1, 4, cluster.PodKey).Draw(t, "gone")
				for _, p := range gone {
					delete(a.pods, cluster.PodKey(p))
				}
				a.snap = a.snap.WithoutPods(gone...)
			},
			"provision":   func(t *rapid.T) { a.provision(t) },
			"consolidate": func(t *rapid.T) { a.consolidate(t) },
			"advance time": func(t *rapid.T) {
				a.now = a.now.Add(time.Duration(rapid.IntRange(1, 600).Draw(t, "seconds")) * time.Second)
			},
			"capacity error": func(t *rapid.T) {
				it := rapid.SampledFrom(types).Draw(t, "type")
				o := rapid.SampledFrom(it.Offerings).Draw(t, "offering")
				if a.cloud.OfferingCapacity == nil {
					a.cloud.OfferingCapacity = map[string]int{}
				}
				a.cloud.OfferingCapacity[fake.OfferingKey(it, o)] = 0
			},
			"restock": func(t *rapid.T) { a.cloud.Restock(rapid.IntRange(0, 3).Draw(t, "launches")) },
		}
		if pools {
			// As disruption's old machine: the pods a consolidation leaves pending are provisioned.
			actions["consolidate"] = func(t *rapid.T) { a.consolidate(t); a.provision(t) }
			// A spot interruption or scheduled change of one node: a forceful command whose
			// pods the provisioner's pass plans (onto existing nodes or provisioned claims).
			actions["interruption"] = func(t *rapid.T) {
				nodes := a.snap.Nodes()
				if len(nodes) == 0 {
					t.Skip("no nodes")
				}
				n := rapid.SampledFrom(nodes).Draw(t, "interrupted")
				kind := rapid.SampledFrom([]interruption.Kind{interruption.SpotInterrupted, interruption.ScheduledChange}).Draw(t, "interruption")
				a.stats.Interruptions++
				a.consolidate(t, interruption.Event{Kind: kind, ID: a.names.Next("event"), Time: a.now, InstanceIDs: []string{n.Node.Spec.ProviderID}})
				a.provision(t)
			}
			// Past every NodePool's consolidateAfter, so that consolidation has candidates.
			actions["tick"] = func(t *rapid.T) {
				a.now = a.now.Add(2*time.Minute + time.Duration(rapid.IntRange(1, 600).Draw(t, "tick-seconds"))*time.Second)
			}
		}
		t.Repeat(actions)
	}
}

// drawNodePools draws 1-4 NodePools, each over a subset of types, with its own capacity
// types, optional zones, weight, consolidation policy, consolidateAfter and budget; nothing
// expires.
func drawNodePools(t *rapid.T, types cloudprovider.InstanceTypes) ([]*v1.NodePool, map[string]cloudprovider.InstanceTypes) {
	var pools []*v1.NodePool
	byPool := map[string]cloudprovider.InstanceTypes{}
	zones := []string{fake.TestZone1, fake.TestZone2, fake.TestZone3}
	for i := range rapid.IntRange(1, 4).Draw(t, "nodepools") {
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
			ConsolidateAfter:    v1.MustParseNillableDuration(rapid.SampledFrom([]string{"0s", "30s", "2m"}).Draw(t, name+"/consolidate-after")),
			Budgets:             []v1.Budget{{Nodes: rapid.SampledFrom([]string{"100%", "1", "50%"}).Draw(t, name+"/budget")}},
		})
		np := b.Obj()
		np.Spec.Template.Spec.ExpireAfter = v1.NeverDuration()
		pools = append(pools, np)
		idx := rapid.SliceOfNDistinct(rapid.IntRange(0, len(types)-1), 1, len(types), rapid.ID[int]).Draw(t, name+"/types")
		sort.Ints(idx)
		for _, j := range idx {
			byPool[name] = append(byPool[name], types[j])
		}
	}
	return pools, byPool
}

// smStats counts what the machine did over all runs (for the log: a machine that never
// consolidates tests little).
type smStats struct {
	Launched, CapacityErrors, Commands, Abandoned, PodsBound, Candidates, Moved, Interruptions int
}

// refresh gives the snapshot the cloud's instance types now (unavailable offerings marked).
func (a *autoscaler) refresh(t *rapid.T) {
	types, err := cloudprovider.InstanceTypesFor(a.ctx, a.cloud, a.snap.NodePools())
	if err != nil {
		t.Fatal(err)
	}
	if a.snap, err = a.snap.WithInstanceTypes(types); err != nil {
		t.Fatal(err)
	}
}

// launched checks the claims the cloud launched for planned (aligned, nil where it refused):
// each on one of its claim's options, at no more than its planned price while no offering
// runs out of capacity; it records them for termination.
func (a *autoscaler) launched(t *rapid.T, planned []*scheduling.NodeClaim, launched []*v1.NodeClaim) {
	for i, nc := range launched {
		c := planned[i]
		if nc == nil {
			a.stats.CapacityErrors++
			continue
		}
		typ := nc.Labels[v1.LabelInstanceType]
		if !slices.ContainsFunc(c.InstanceTypeOptions, func(it *cloudprovider.InstanceType) bool { return it.Name == typ }) {
			t.Fatalf("the cloud launched %s for a claim of NodePool %s, not one of its options", typ, c.NodePool)
		}
		if p, ok := a.launchedPrice(nc); a.cloud.OfferingCapacity == nil && (!ok || p > c.Offering.Price+1e-9) {
			t.Fatalf("the cloud launched %s at %v/h (known: %v) for a claim planned at %v/h", typ, p, ok, c.Offering.Price)
		}
		a.claims[nc.Name] = nc
		a.stats.Launched++
	}
}

// register makes the launched claims' Nodes join, initialized.
func (a *autoscaler) register(t *rapid.T, launched []*v1.NodeClaim) {
	next, err := a.snap.WithNodesFor(launched, a.now, true)
	if err != nil {
		t.Fatal(err)
	}
	a.snap = next
}

func (a *autoscaler) provision(t *rapid.T) {
	a.refresh(t)
	res, err := scheduling.Solve(a.snap, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := scheduling.Solve(a.snap, scheduling.Options{}); err != nil || !reflect.DeepEqual(res, again) {
		t.Fatalf("Solve is not deterministic (%v)\n%s", err, a.snap)
	}
	if vs := verify.Solve(a.snap, scheduling.Options{}, res); len(vs) > 0 {
		t.Fatalf("Solve broke a rule: %v\n%s", vs, a.snap)
	}
	launched, err := cloudprovider.Launch(a.ctx, a.cloud, scheduling.NodeClaimsFor(a.snap, res.NewNodeClaims, a.names.Next))
	if err != nil {
		t.Fatal(err)
	}
	a.launched(t, res.NewNodeClaims, launched)
	a.stats.PodsBound += len(res.Bindings)
	next, err := scheduling.Apply(a.snap, res, launched)
	if err != nil {
		t.Fatal(err)
	}
	a.snap = next
	a.register(t, launched)
}

// consolidate plans at the machine's clock, checks the plan and carries out the commands of
// its Batch in order with disruption.Apply (a command whose replacements do not all launch
// is abandoned, as Karpenter does); the next Plan sees the cluster as it is. Every pod a command moves is
// bound where its Moves say; when every launch got the offering planned, the cluster's price
// falls by at least the applied savings.
func (a *autoscaler) consolidate(t *rapid.T, events ...interruption.Event) {
	a.refresh(t)
	opts, planned := disruption.Options{SpotToSpotConsolidation: a.spotToSpot}, a.snap.WithInterruptions(events...)
	res, err := disruption.Plan(planned, a.now, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := disruption.Plan(planned, a.now, opts); err != nil || !reflect.DeepEqual(res, again) {
		t.Fatalf("Plan is not deterministic (%v)\n%s", err, a.snap)
	}
	if vs := verify.Plan(planned, a.now, opts, res); len(vs) > 0 {
		t.Fatalf("Plan broke a rule: %v\n%s%s", vs, a.snap, dumpPlan(planned, res))
	}
	a.checkPlan(t, res)
	before, saved, asPlanned := a.price(t), 0.0, true
	cmds, _ := res.Batch() // the next Plan sees the rest again
	for _, cmd := range cmds {
		a.stats.Commands++
		launched, err := cloudprovider.LaunchAll(a.ctx, a.cloud, scheduling.NodeClaimsFor(a.snap, cmd.Replacements, a.names.Next))
		if cloudprovider.IsInsufficientCapacityError(err) { // Karpenter abandons the command
			a.stats.Abandoned++
			a.stats.CapacityErrors++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		a.launched(t, cmd.Replacements, launched)
		for i, nc := range launched {
			if p, ok := a.launchedPrice(nc); !ok || p > cmd.Replacements[i].Offering.Price+1e-9 {
				asPlanned = false // the cloud failed over to another offering
			}
		}
		gone, err := a.snap.NodeClaimsOf(cmd.Candidates...)
		if err != nil {
			t.Fatal(err)
		}
		next, err := disruption.Apply(a.snap, cmd, launched)
		if err != nil {
			t.Fatal(err)
		}
		a.terminate(t, gone)
		a.stats.Candidates += len(gone)
		a.snap = next
		a.register(t, launched)
		for _, n := range a.snap.Nodes() {
			checkBound(t, n, a.snap, fmt.Sprintf("after command %s %v of\n%s", cmd.Method, cmd.Candidates, planText(res)))
		}
		for _, m := range cmd.Moves {
			want := m.To // "": pending (a provisioned claim's pod, or one without a destination)
			if m.Claim >= 0 {
				want = launched[m.Claim].Name
			}
			if got := a.boundOn(m.Pod); got != want || (want == "" && !slices.ContainsFunc(a.snap.Pending(), func(p *corev1.Pod) bool {
				return cluster.PodKey(p) == cluster.PodKey(m.Pod)
			})) {
				t.Fatalf("command %v moves pod %s to %q, it is on %q\n%s", cmd.Candidates, cluster.PodKey(m.Pod), want, got, a.snap)
			}
			a.stats.Moved++
		}
		saved += cmd.SavingsPerHour
	}
	if after := a.price(t); asPlanned && after > before-saved+1e-6 {
		t.Fatalf("consolidation saved %.6f/h, the plan said %.6f/h\n%s%s", before-after, saved, a.snap, dumpPlan(planned, res))
	}
}

// checkPlan: no node is in two commands or both in one and kept; emptiness deletes nodes
// without pods and launches nothing; consolidation launches at most one strictly cheaper
// node and saves; every command's savings are its candidates' price minus its
// replacements'; nothing expires, drifts or is interrupted in this machine.
func (a *autoscaler) checkPlan(t *rapid.T, res *disruption.Result) {
	in := map[string]bool{}
	for _, c := range res.Commands {
		total := 0.0
		for _, name := range c.Candidates {
			if in[name] {
				t.Fatalf("node %s is in two commands", name)
			}
			in[name] = true
			price, ok := a.snap.NodePrice(name)
			if !ok {
				t.Fatalf("command %s disrupts %s, which has no price", c.Method, name)
			}
			total += price
		}
		switch c.Reason {
		case disruption.ReasonEmpty:
			for _, name := range c.Candidates {
				if n := a.snap.Node(name); len(c.Replacements) > 0 || n == nil || len(n.Pods) > 0 {
					t.Fatalf("emptiness deletes %s with pods or launches %d nodes", name, len(c.Replacements))
				}
			}
		case disruption.ReasonUnderutilized:
			if len(c.Replacements) > 1 || (len(c.Replacements) == 1 && !(c.Replacements[0].Offering.Price < total)) || c.SavingsPerHour <= 0 {
				t.Fatalf("consolidation of %v (%.6f/h) launches %d nodes, saving %v/h", c.Candidates, total, len(c.Replacements), c.SavingsPerHour)
			}
		case disruption.ReasonInterrupted:
			if len(c.Replacements) > 0 || c.SavingsPerHour != 0 {
				t.Fatalf("interruption of %v launches %d nodes, saving %v/h", c.Candidates, len(c.Replacements), c.SavingsPerHour)
			}
			continue
		default:
			t.Fatalf("unexpected %s/%s command for %v", c.Method, c.Reason, c.Candidates)
		}
		repl := 0.0
		for _, r := range c.Replacements {
			repl += r.Offering.Price
		}
		if math.Abs(c.SavingsPerHour-(total-repl)) > 1e-6 {
			t.Fatalf("command %v says it saves %.6f/h; candidates %.6f minus replacements %.6f", c.Candidates, c.SavingsPerHour, total, repl)
		}
	}
	for _, b := range res.Blocked {
		if in[b.Node] {
			t.Fatalf("node %s is both in a command and kept (%s)", b.Node, b.Message())
		}
	}
}

// price is the cluster's price per hour.
func (a *autoscaler) price(t *rapid.T) float64 {
	total, unpriced := a.snap.Price()
	if len(unpriced) > 0 {
		t.Fatalf("nodes %v have no price", unpriced)
	}
	return total
}

// launchedPrice is the price of the offering nc launched on.
func (a *autoscaler) launchedPrice(nc *v1.NodeClaim) (float64, bool) {
	types := a.cloud.InstanceTypesForNodePool[nc.Labels[v1.NodePoolLabelKey]]
	if types == nil {
		types = a.cloud.InstanceTypes
	}
	for _, it := range types {
		if it.Name != nc.Labels[v1.LabelInstanceType] {
			continue
		}
		for _, o := range it.Offerings {
			if o.Zone() == nc.Labels[v1.LabelTopologyZone] && o.CapacityType() == nc.Labels[v1.CapacityTypeLabelKey] {
				return o.Price, true
			}
		}
	}
	return 0, false
}

// boundOn is the node p is bound to in the snapshot ("" when pending or gone).
func (a *autoscaler) boundOn(p *corev1.Pod) string {
	for _, n := range a.snap.Nodes() {
		for _, q := range n.Pods {
			if cluster.PodKey(q) == cluster.PodKey(p) {
				return q.Spec.NodeName
			}
		}
	}
	return ""
}

// terminate deletes the claims' machines from the cloud (nil ones skipped); each must be one
// the machine launched.
func (a *autoscaler) terminate(t *rapid.T, claims []*v1.NodeClaim) {
	for _, nc := range claims {
		if nc != nil && a.claims[nc.Name] == nil {
			t.Fatalf("NodeClaim %s was not launched here", nc.Name)
		}
	}
	if err := cloudprovider.Terminate(a.ctx, a.cloud, claims); err != nil {
		t.Fatal(err)
	}
	for _, nc := range claims {
		if nc != nil {
			delete(a.claims, nc.Name)
		}
	}
}

func (a *autoscaler) allPods() []*corev1.Pod {
	out := append([]*corev1.Pod(nil), a.snap.Pending()...)
	for _, n := range a.snap.Nodes() {
		out = append(out, n.Pods...)
	}
	sort.Slice(out, func(i, j int) bool { return cluster.PodKey(out[i]) < cluster.PodKey(out[j]) })
	return out
}

// check: every pod that should exist is pending or bound exactly once; every node of the
// snapshot is a machine the cloud runs, and the reverse.
func (a *autoscaler) check(t *rapid.T) {
	seen := map[string]int{}
	for _, p := range a.allPods() {
		seen[cluster.PodKey(p)]++
	}
	for k := range a.pods {
		if seen[k] != 1 {
			t.Fatalf("pod %s is in the snapshot %d times\n%s", k, seen[k], a.snap)
		}
	}
	if len(seen) != len(a.pods) {
		t.Fatalf("the snapshot holds %d pods, want %d\n%s", len(seen), len(a.pods), a.snap)
	}
	for _, p := range a.snap.Pending() {
		if p.Spec.NodeName != "" {
			t.Fatalf("pending pod %s has spec.nodeName %q", cluster.PodKey(p), p.Spec.NodeName)
		}
	}
	running, err := a.cloud.List(a.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(running) != len(a.snap.Nodes()) || len(running) != len(a.claims) {
		t.Fatalf("the cloud runs %d machines, the snapshot has %d nodes, %d claims launched\n%s", len(running), len(a.snap.Nodes()), len(a.claims), a.snap)
	}
	for _, n := range a.snap.Nodes() {
		if n.Node == nil || a.claims[n.Node.Name] == nil {
			t.Fatalf("node %s: not a registered launched claim\n%s", n.Name(), a.snap)
		}
		for _, p := range n.Pods {
			if p.Spec.NodeName != n.Node.Name {
				t.Fatalf("pod %s on node %s has spec.nodeName %q", cluster.PodKey(p), n.Node.Name, p.Spec.NodeName)
			}
		}
		checkBound(t, n, a.snap, "")
	}
}

// planText is the commands and their moves in short, for failure messages.
func planText(res *disruption.Result) string {
	var b strings.Builder
	for _, c := range res.Commands {
		fmt.Fprintf(&b, "%s %v replacements=%d destinations=%v moves=%v\n", c.Method, c.Candidates, len(c.Replacements), c.Destinations, movesText(c.Moves))
	}
	return b.String()
}

// movesText is the moves in short, for failure messages.
func movesText(ms []disruption.PodMove) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s->%s/%d/%d/%s", m.Pod.Name, m.To, m.Claim, m.Provisioned, m.Pending))
	}
	return out
}

// checkBound: the pods bound to n fit its allocatable (cpu, memory, pods), their node
// selectors hold, and no two of them share it against a required hostname anti-affinity.
func checkBound(t *rapid.T, n *cluster.Node, snap *cluster.Snapshot, when string) {
	var cpu, mem resource.Quantity
	for _, p := range n.Pods {
		for _, c := range p.Spec.Containers {
			cpu.Add(c.Resources.Requests[corev1.ResourceCPU])
			mem.Add(c.Resources.Requests[corev1.ResourceMemory])
		}
		for k, v := range p.Spec.NodeSelector {
			if n.Node.Labels[k] != v {
				t.Fatalf("pod %s selects %s=%s, node %s has %q\n%s", cluster.PodKey(p), k, v, n.Node.Name, n.Node.Labels[k], snap)
			}
		}
		if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
			continue
		}
		for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
			if err != nil || term.TopologyKey != v1.LabelHostname {
				continue
			}
			for _, q := range n.Pods {
				if q != p && q.Namespace == p.Namespace && sel.Matches(labels.Set(q.Labels)) {
					t.Fatalf("node %s runs %s and %s against %s's hostname anti-affinity\n%s", n.Node.Name, cluster.PodKey(p), cluster.PodKey(q), p.Name, snap)
				}
			}
		}
	}
	alloc := n.Node.Status.Allocatable
	if a := alloc[corev1.ResourceCPU]; cpu.Cmp(a) > 0 {
		t.Fatalf("node %s: pods request cpu %s, allocatable %s %s\n%s", n.Node.Name, cpu.String(), a.String(), when, snap)
	}
	if a := alloc[corev1.ResourceMemory]; mem.Cmp(a) > 0 {
		t.Fatalf("node %s: pods request memory %s, allocatable %s\n%s", n.Node.Name, mem.String(), a.String(), snap)
	}
	if a := alloc[corev1.ResourcePods]; int64(len(n.Pods)) > a.Value() {
		t.Fatalf("node %s: %d pods, allocatable %s\n%s", n.Node.Name, len(n.Pods), a.String(), snap)
	}
}

// dumpPlan is the input's objects and the result as YAML-ish text, for a failing run.
func dumpPlan(snap *cluster.Snapshot, res *disruption.Result) string {
	b, _ := yaml.Marshal(map[string]any{"result": res, "daemonsets": snap.DaemonSets(), "pdbs": snap.PodDisruptionBudgets(), "nodes": snap.Nodes(), "pods": snap.Pending()})
	return "\n" + string(b)
}
