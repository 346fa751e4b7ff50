package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// An autoscaler loop over the fake cloud with no glue but the helpers. Each round: ask the
// cloud what each NodePool may launch, Solve the pending pods, launch the planned claims and
// apply the result, then Plan and carry out the commands one Plan allows together (the rest
// wait for the next round's Plan): launch the replacements, apply, terminate the candidates.
// Between the rounds most pods leave and an hour passes.
func Example() {
	ctx := context.Background()
	set, err := manifest.Parse([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web, resources: {requests: {cpu: 900m, memory: 1Gi}}}]}
`), "cluster.yaml")
	if err != nil {
		panic(err)
	}
	cloud := fake.NewCloudProvider(fake.InstanceTypes(8)) // fake-it-N: N+1 vCPU
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var names fake.Names // NodeClaim names: default-1, default-2, ...
	snap, err := set.Snapshot(nil)
	if err != nil {
		panic(err)
	}
	for round := 1; round <= 2; round++ {
		types, err := cloudprovider.InstanceTypesFor(ctx, cloud, snap.NodePools())
		if err != nil {
			panic(err)
		}
		if snap, err = snap.WithInstanceTypes(types); err != nil {
			panic(err)
		}
		res, err := scheduling.Solve(snap, scheduling.Options{})
		if err != nil {
			panic(err)
		}
		if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 { // a host may check a plan before it acts
			panic(fmt.Sprint(vs))
		}
		launched, err := cloudprovider.Launch(ctx, cloud, scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next))
		if err != nil {
			panic(err)
		}
		if snap, err = scheduling.Apply(snap, res, launched); err != nil {
			panic(err)
		}
		if snap, err = snap.WithNodesFor(launched, now, true); err != nil { // the fake cloud's nodes join at once
			panic(err)
		}
		plan, err := disruption.Plan(snap, now, disruption.Options{})
		if err != nil {
			panic(err)
		}
		if vs := verify.Plan(snap, now, disruption.Options{}, plan); len(vs) > 0 {
			panic(fmt.Sprint(vs))
		}
		cmds, _ := plan.Batch() // the commands after the batch wait for the next Plan
		for _, cmd := range cmds {
			launched, err := cloudprovider.LaunchAll(ctx, cloud, scheduling.NodeClaimsFor(snap, cmd.Replacements, names.Next))
			if cloudprovider.IsInsufficientCapacityError(err) {
				continue // abandoned, as Karpenter does; the next Plan sees those offerings unavailable
			}
			if err != nil {
				panic(err)
			}
			gone, err := snap.NodeClaimsOf(cmd.Candidates...)
			if err != nil {
				panic(err)
			}
			if snap, err = disruption.Apply(snap, cmd, launched); err != nil {
				panic(err)
			}
			if snap, err = snap.WithNodesFor(launched, now, true); err != nil {
				panic(err)
			}
			if err := cloudprovider.Terminate(ctx, cloud, gone); err != nil { // a real host drains them first (plan.Drains)
				panic(err)
			}
			fmt.Printf("%s %s: %v, %d replacements\n", cmd.Method, cmd.Reason, cmd.Candidates, len(launched))
		}
		total, _ := snap.Price() // and the nodes it could not price
		machines, _ := cloud.List(ctx)
		fmt.Printf("round %d: %d nodes (%d machines), %d pods pending, $%.2f/h\n", round, len(snap.Nodes()), len(machines), len(snap.Pending()), total)

		// All but one replica per node go; an hour later consolidation packs the rest.
		var leaving []*corev1.Pod
		for _, n := range snap.Nodes() {
			leaving = append(leaving, n.Pods[1:]...)
		}
		snap, now = snap.WithoutPods(leaving...), now.Add(time.Hour)
	}
	// Output:
	// round 1: 1 nodes (1 machines), 0 pods pending, $1.89/h
	// single-node Underutilized: [default-1], 1 replacements
	// round 2: 1 nodes (1 machines), 0 pods pending, $0.31/h
}

// A user's own property test: whatever pods the generators draw, Solve over the snapshot
// breaks no rule (verify), and applying its result leaves pending only the pods it could
// not place. (Not run here: TestUserProperty runs it.)
func Example_propertyTest() {
	var t *testing.T // your test's
	rapid.Check(t, solveKeepsEveryRule)
}

func solveKeepsEveryRule(t *rapid.T) {
	types := fake.InstanceTypesGenerator(5).Draw(t, "types")
	pods := fake.PodsGeneratorWith(20, "p", fake.DefaultPodSettings()).Draw(t, "pods")
	snap, err := cluster.New(cluster.Objects{
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            pods,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
		t.Fatalf("%v\n%s", vs, snap)
	}
	var names fake.Names
	next, err := scheduling.Apply(snap, res, scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next))
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Pending()) != len(res.PodErrors) {
		t.Fatalf("%d pods pending after apply, %d unplaced\n%s", len(next.Pending()), len(res.PodErrors), next)
	}
}

func TestUserProperty(t *testing.T) { rapid.Check(t, solveKeepsEveryRule) }
