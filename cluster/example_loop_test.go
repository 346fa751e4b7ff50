package cluster_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// tick is one round of a minimal custom autoscaler over a cloud, every step a helper:
// provision the pending pods (the pods a refused launch leaves get a reason), let the nodes
// join, keep the times Plan reads current, then carry out the commands Plan allows together.
func tick(ctx context.Context, cloud cloudprovider.CloudProvider, names *fake.Names, before *cluster.Snapshot, now time.Time) (*cluster.Snapshot, error) {
	types, err := cloudprovider.InstanceTypesFor(ctx, cloud, before.NodePools())
	if err != nil {
		return nil, err
	}
	snap, err := before.WithInstanceTypes(types)
	if err != nil {
		return nil, err
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		return nil, err
	}
	if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
		return nil, fmt.Errorf("plan breaks %v", vs)
	}
	launched, err := cloudprovider.Launch(ctx, cloud, scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next))
	if err != nil {
		return nil, err
	}
	for _, e := range res.Refused(launched) {
		fmt.Printf("%s %s waits: %s\n", now.Format("15:04"), e.Pod.Name, e.Code)
	}
	if snap, err = scheduling.Apply(snap, res, launched); err != nil {
		return nil, err
	}
	snap = snap.WithPodEvents(before, now) // what Plan reads of time
	plan, err := disruption.Plan(snap, now, disruption.Options{})
	if err != nil {
		return nil, err
	}
	if vs := verify.Plan(snap, now, disruption.Options{}, plan); len(vs) > 0 {
		return nil, fmt.Errorf("plan breaks %v", vs)
	}
	cmds, _ := plan.Batch()
	for _, cmd := range cmds {
		replacements, err := cloudprovider.LaunchAll(ctx, cloud, scheduling.NodeClaimsFor(snap, cmd.Replacements, names.Next))
		if cloudprovider.IsInsufficientCapacityError(err) {
			continue // abandoned, as Karpenter does
		} else if err != nil {
			return nil, err
		}
		gone, err := snap.NodeClaimsOf(cmd.Candidates...)
		if err != nil {
			return nil, err
		}
		if snap, err = disruption.Apply(snap, cmd, replacements); err != nil {
			return nil, err
		}
		launched = append(launched, replacements...)
		if err := cloudprovider.Terminate(ctx, cloud, gone); err != nil {
			return nil, err
		}
		fmt.Printf("%s %s %v\n", now.Format("15:04"), cmd.Reason, cmd.Candidates)
	}
	if snap, err = snap.WithNodesFor(launched, now, true); err != nil { // the fake cloud's nodes join at once
		return nil, err
	}
	return snap.WithPodsRunning(now).WithPodEvents(before, now), nil
}

// A minimal autoscaler loop over the fake cloud: tick above, every minute. Four replicas of
// web launch two nodes (each type fits three); at 00:05 three replicas go, and consolidation
// waits the NodePool's consolidateAfter (2m) from the pods' leaving, then removes the empty
// node and replaces the other by a cheaper one. The cloud then refuses every launch: a new
// pod waits with a reason.
func Example_autoscalerLoop() {
	set, err := manifest.Parse([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
  disruption: {consolidateAfter: 2m, budgets: [{nodes: "100%"}]}
`), "cluster.yaml")
	if err != nil {
		panic(err)
	}
	ctx, cloud, names := context.Background(), fake.NewCloudProvider(fake.InstanceTypes(4)), &fake.Names{}
	snap, err := set.Snapshot(nil)
	if err != nil {
		panic(err)
	}
	for i := range 4 {
		if snap, err = snap.WithPods(fake.Pod(fmt.Sprintf("web-%d", i)).Requests("1", "1Gi").Obj()); err != nil {
			panic(err)
		}
	}
	for minute := 0; minute <= 10; minute++ {
		now := t0.Add(time.Duration(minute) * time.Minute)
		switch minute {
		case 5: // a change of our own: stamp its pod events too
			leaving := append(append([]*corev1.Pod(nil), snap.Nodes()[0].Pods[1:]...), snap.Nodes()[1].Pods...)
			snap = snap.WithoutPods(leaving...).WithPodEvents(snap, now)
		case 9:
			cloud.OfferingCapacity = map[string]int{}
			for _, it := range cloud.InstanceTypes {
				for _, o := range it.Offerings {
					cloud.OfferingCapacity[fake.OfferingKey(it, o)] = 0
				}
			}
			if snap, err = snap.WithPods(fake.Pod("web-9").Requests("3", "1Gi").Obj()); err != nil {
				panic(err)
			}
		}
		if snap, err = tick(ctx, cloud, names, snap, now); err != nil {
			panic(err)
		}
		if price, _ := snap.Price(); minute == 0 || minute == 5 || minute == 7 || minute == 9 {
			fmt.Printf("%s %d nodes, %d pods pending, $%.2f/h\n", now.Format("15:04"), len(snap.Nodes()), len(snap.Pending()), price)
		}
	}
	// Output:
	// 00:00 2 nodes, 0 pods pending, $1.89/h
	// 00:05 2 nodes, 0 pods pending, $1.89/h
	// 00:07 Empty [default-2]
	// 00:07 Underutilized [default-1]
	// 00:07 1 nodes, 0 pods pending, $0.63/h
	// 00:09 web-9 waits: LaunchRefused
	// 00:09 1 nodes, 1 pods pending, $0.63/h
}
