package cluster_test

import (
	"context"
	"flag"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// autoscaler is a host program's loop over the fake cloud, built only from the apply
// helpers: pods arrive and leave, Solve provisions, Plan consolidates, time passes, offerings
// run out of capacity. Every Solve and Plan is held to verify, and no pod is ever lost.
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
}

// TestAutoscalerStateMachine runs rapid's default 100 checks; a long hunt raises them:
// go test ./cluster -run TestAutoscalerStateMachine -rapid.checks=5000 -rapid.steps=100.
func TestAutoscalerStateMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("state machine: not in -short")
	}
	var stats smStats
	defer func() { t.Logf("exercised: %+v", stats) }()
	rapid.Check(t, autoscalerMachine(&stats))
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
			rapid.Check(t, autoscalerMachine(&stats))
			if stats.Commands == 0 {
				t.Fatalf("the replay consolidated nothing (%+v): the fail file no longer drives the machine", stats)
			}
		})
	}
}

// autoscalerMachine is the state machine's property; stats count what it did over all runs.
func autoscalerMachine(stats *smStats) func(*rapid.T) {
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
		snap, err := cluster.New(objs)
		if err != nil {
			t.Fatal(err)
		}
		a.snap = snap
		settings := fake.PodSettings{ZoneSelector: 0.2, ArchSelector: 0.2, CapacityTypeRequirement: 0.2,
			ZoneSpread: 0.2, HostnameAntiAffinity: 0.2, HostPort: 0.1, MaxCPUMillis: 3000, MaxMemoryMi: 4096}
		t.Repeat(map[string]func(*rapid.T){
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
		})
	}
}

// smStats counts what the machine did over all runs (for the log: a machine that never
// consolidates tests little).
type smStats struct {
	Launched, CapacityErrors, Commands, Abandoned, PodsBound, Candidates int
}

// refresh gives the snapshot the cloud's instance types now (unavailable offerings marked).
func (a *autoscaler) refresh(t *rapid.T) {
	types := map[string]cloudprovider.InstanceTypes{}
	for _, np := range a.snap.NodePools() {
		its, err := a.cloud.GetInstanceTypes(a.ctx, np)
		if err != nil {
			t.Fatal(err)
		}
		types[np.Name] = its
	}
	a.snap = a.snap.WithInstanceTypes(types)
}

// launch creates each planned claim; a capacity error leaves it unlaunched (nil).
func (a *autoscaler) launch(t *rapid.T, planned []*scheduling.NodeClaim) ([]*v1.NodeClaim, bool) {
	out := make([]*v1.NodeClaim, len(planned))
	all := true
	for i, c := range planned {
		nc, err := a.cloud.Create(a.ctx, cluster.NodeClaimFor(c, a.names.Next(c.NodePool), a.snap.NodePool(c.NodePool)))
		if err != nil {
			if !cloudprovider.IsInsufficientCapacityError(err) {
				t.Fatalf("Create: %v", err)
			}
			a.stats.CapacityErrors++
			all = false
			continue
		}
		out[i] = nc
		a.claims[nc.Name] = nc
		a.stats.Launched++
	}
	return out, all
}

// register makes the launched claims' Nodes join, initialized.
func (a *autoscaler) register(t *rapid.T, launched []*v1.NodeClaim) {
	var nodes []*corev1.Node
	for _, nc := range launched {
		if nc != nil {
			nodes = append(nodes, cluster.NodeFor(nc, a.now, true))
		}
	}
	next, err := a.snap.WithNodes(nodes...)
	if err != nil {
		t.Fatal(err)
	}
	a.snap = next
}

func (a *autoscaler) provision(t *rapid.T) {
	a.refresh(t)
	in := a.snap.SchedulingInput(scheduling.Options{})
	res, err := scheduling.Solve(in)
	if err != nil {
		t.Fatal(err)
	}
	if vs := verify.Solve(in, res); len(vs) > 0 {
		t.Fatalf("Solve broke a rule: %v\n%s", vs, a.snap)
	}
	launched, _ := a.launch(t, res.NewNodeClaims)
	for _, e := range res.ExistingNodes {
		a.stats.PodsBound += len(e.Pods)
	}
	next, err := a.snap.ApplySolve(res, launched)
	if err != nil {
		t.Fatal(err)
	}
	a.snap = next
	a.register(t, launched)
}

func (a *autoscaler) consolidate(t *rapid.T) {
	a.refresh(t)
	in := a.snap.DisruptionInput(a.now, disruption.Options{})
	res, err := disruption.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if vs := verify.Plan(in, res); len(vs) > 0 {
		t.Fatalf("Plan broke a rule: %v\n%s%s", vs, a.snap, dumpPlan(in, res))
	}
	for _, cmd := range res.Commands {
		launched, all := a.launch(t, cmd.Replacements)
		a.stats.Commands++
		if !all { // Karpenter abandons a command whose replacements do not all launch
			a.stats.Abandoned++
			for _, nc := range launched {
				if nc != nil {
					a.deleteClaim(t, nc.Name)
				}
			}
			continue
		}
		next, err := a.snap.ApplyCommand(cmd, launched)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range cmd.Candidates {
			a.deleteClaim(t, name)
			a.stats.Candidates++
		}
		a.snap = next
		a.register(t, launched)
	}
}

// deleteClaim deletes the claim of node name from the cloud.
func (a *autoscaler) deleteClaim(t *rapid.T, name string) {
	nc, ok := a.claims[name]
	if !ok {
		t.Fatalf("node %s has no launched NodeClaim", name)
	}
	if err := a.cloud.Delete(a.ctx, nc); err != nil {
		t.Fatalf("Delete %s: %v", name, err)
	}
	delete(a.claims, name)
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
	}
}

// dumpPlan is the input's objects and the result as YAML-ish text, for a failing run.
func dumpPlan(in *disruption.Input, res *disruption.Result) string {
	b, _ := yaml.Marshal(map[string]any{"result": res, "daemonsets": in.DaemonSets, "pdbs": in.PodDisruptionBudgets, "nodes": in.Nodes, "pods": in.Pods})
	return "\n" + string(b)
}
