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

// An autoscaler loop over the fake cloud with no glue but the helpers: manifests → snapshot
// → Solve → launch and apply → pods leave → Plan → carry out its commands and apply.
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
	var names fake.Names

	// The instance types each NodePool may use, as the cloud offers them now.
	typesNow := func(s []*v1.NodePool) map[string]cloudprovider.InstanceTypes {
		out := map[string]cloudprovider.InstanceTypes{}
		for _, np := range s {
			out[np.Name], _ = cloud.GetInstanceTypes(ctx, np)
		}
		return out
	}
	// launch creates the planned claims; their Nodes register at once, initialized.
	launch := func(snap *cluster.Snapshot, planned []*scheduling.NodeClaim) ([]*v1.NodeClaim, []*corev1.Node) {
		var claims []*v1.NodeClaim
		var nodes []*corev1.Node
		for _, c := range planned {
			nc, err := cloud.Create(ctx, scheduling.NodeClaimFor(c, names.Next(c.NodePool), snap.NodePool(c.NodePool)))
			if err != nil {
				panic(err)
			}
			claims, nodes = append(claims, nc), append(nodes, cluster.NodeFor(nc, now, true))
		}
		return claims, nodes
	}

	// valid stops the loop when verify finds a rule the plan breaks.
	valid := func(vs []verify.Violation) {
		if len(vs) > 0 {
			panic(fmt.Sprint(vs))
		}
	}

	snap, err := cluster.FromSet(set, typesNow(set.NodePools))
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	valid(verify.Solve(snap, scheduling.Options{}, res))
	claims, nodes := launch(snap, res.NewNodeClaims)
	if snap, err = scheduling.Apply(snap, res, claims); err != nil {
		panic(err)
	}
	if snap, err = snap.WithNodes(nodes...); err != nil {
		panic(err)
	}
	fmt.Printf("provisioned %d nodes, %d pods pending\n", len(snap.Nodes()), len(snap.Pending()))

	// All but one replica per node go; an hour later consolidation packs the rest on fewer, cheaper nodes.
	var leaving []*corev1.Pod
	for _, n := range snap.Nodes() {
		leaving = append(leaving, n.Pods[1:]...)
	}
	snap = snap.WithoutPods(leaving...)
	now = now.Add(time.Hour)
	plan, err := disruption.Plan(snap, now, disruption.Options{})
	if err != nil {
		panic(err)
	}
	valid(verify.Plan(snap, now, disruption.Options{}, plan))
	for _, cmd := range plan.Commands {
		claims, nodes := launch(snap, cmd.Replacements)
		if snap, err = disruption.Apply(snap, cmd, claims); err != nil {
			panic(err)
		}
		if snap, err = snap.WithNodes(nodes...); err != nil {
			panic(err)
		}
		for _, name := range cmd.Candidates {
			fmt.Printf("%s %s: %s\n", cmd.Method, cmd.Reason, name)
		}
		if len(cmd.Moves) > 0 {
			break // the later commands planned these pods again: Plan anew (see disruption.Apply)
		}
	}
	// disruption.Apply bound the displaced pods where the plan's simulation sent them; a Solve
	// places whatever is still pending.
	res, err = scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	valid(verify.Solve(snap, scheduling.Options{}, res))
	if snap, err = scheduling.Apply(snap, res, make([]*v1.NodeClaim, len(res.NewNodeClaims))); err != nil {
		panic(err)
	}
	total := 0.0
	for _, n := range snap.Nodes() {
		price, _ := snap.NodePrice(n.Name())
		total += price
	}
	fmt.Printf("%d nodes, %d pods pending, $%.2f/h\n", len(snap.Nodes()), len(snap.Pending()), total)
	// Output:
	// provisioned 1 nodes, 0 pods pending
	// single-node Underutilized: default-1
	// 1 nodes, 0 pods pending, $0.31/h
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
	launched := make([]*v1.NodeClaim, len(res.NewNodeClaims))
	for i, c := range res.NewNodeClaims {
		launched[i] = scheduling.NodeClaimFor(c, fmt.Sprintf("claim-%d", i), snap.NodePool(c.NodePool))
	}
	next, err := scheduling.Apply(snap, res, launched)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Pending()) != len(res.PodErrors) {
		t.Fatalf("%d pods pending after apply, %d unplaced\n%s", len(next.Pending()), len(res.PodErrors), next)
	}
}

func TestUserProperty(t *testing.T) { rapid.Check(t, solveKeepsEveryRule) }
