package disruption

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

var eventKinds = []interruption.Kind{interruption.SpotInterrupted, interruption.RebalanceRecommendation, interruption.ScheduledChange,
	interruption.InstanceStopped, interruption.InstanceTerminated, interruption.CapacityReservationInterrupted, interruption.NoOp}

// drawMechCluster is a cluster with interruption events, unhealthy nodes, deleting nodes,
// terminationGracePeriods, PodDisruptionBudgets and every pod class.
func drawMechCluster(t *rapid.T) *fixture {
	pools := []*v1.NodePool{pool("p0", spotToo, budget(rapid.SampledFrom([]string{"0", "1", "100%"}).Draw(t, "budget")))}
	var nodes []*cluster.Node
	nn := rapid.IntRange(1, 8).Draw(t, "nodes")
	for i := 0; i < nn; i++ {
		var pods []*corev1.Pod
		for j := rapid.IntRange(0, 4).Draw(t, "pods"); j > 0; j-- {
			p := bound(fmt.Sprintf("n%d-p%d", i, j), rapid.SampledFrom([]string{"100m", "500m", "1"}).Draw(t, "cpu"))
			p.Labels["app"] = rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "app")
			switch rapid.IntRange(0, 8).Draw(t, "class") {
			case 0:
				critical(p)
			case 1:
				daemonPod(p)
			case 2:
				p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
			case 3:
				p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			case 4:
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
			case 5:
				p.Spec.TerminationGracePeriodSeconds = ptr(int64(rapid.IntRange(0, 7200).Draw(t, "podGrace")))
			}
			pods = append(pods, p)
		}
		ct := rapid.SampledFrom([]string{v1.CapacityTypeOnDemand, v1.CapacityTypeSpot}).Draw(t, "ct")
		n := withInstance(testNode(fmt.Sprintf("node-%d", i), "p0", rapid.SampledFrom([]string{"small", "medium", "large"}).Draw(t, "type"), ct, pods...), fmt.Sprintf("i-%d", i))
		if rapid.Bool().Draw(t, "claim") {
			claimed(n, time.Duration(rapid.IntRange(0, 3).Draw(t, "tgp"))*30*time.Minute)
		}
		if rapid.IntRange(0, 4).Draw(t, "deleting") == 0 {
			deleting(n, now.Add(-time.Duration(rapid.IntRange(0, 120).Draw(t, "since"))*time.Minute))
		}
		if rapid.IntRange(0, 3).Draw(t, "sick") == 0 {
			condition(n, corev1.NodeReady, rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionUnknown}).Draw(t, "status"),
				now.Add(-time.Duration(rapid.IntRange(0, 90).Draw(t, "sickFor"))*time.Minute))
		}
		nodes = append(nodes, n)
	}
	in := input(pools, nodes...)
	for _, app := range []string{"a", "b"} {
		mu := rapid.IntRange(0, 2).Draw(t, "maxUnavailable")
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, fake.PDB(app, "default", map[string]string{"app": app}, mu))
	}
	for e := rapid.IntRange(0, 6).Draw(t, "events"); e > 0; e-- {
		id := fmt.Sprintf("i-%d", rapid.IntRange(0, nn).Draw(t, "instance")) // nn: unknown
		in.Interruptions = append(in.Interruptions, interruption.Event{Kind: rapid.SampledFrom(eventKinds).Draw(t, "kind"),
			ID: fmt.Sprint(e), Time: t0.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "at")) * time.Minute), InstanceIDs: []string{id}})
	}
	if rapid.Bool().Draw(t, "repair") {
		in.RepairPolicies = awsRepairPolicies
	}
	return in
}

func TestMechanismProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawMechCluster(t)
		res := planNothingLost(t, in)
		checkDrainsHoldPDBs(t, in, res)
		checkDrainsLoseNoPod(t, in, res)
		checkInterruptionCommands(t, in, res)
	})
}

// No drain evicts a pod a PodDisruptionBudget protects before the terminationGracePeriod:
// evictions stay within what each PDB allows, across all drains, and a waiting pod is
// deleted no later than the deadline, and only when there is one.
func checkDrainsHoldPDBs(t *rapid.T, in *fixture, res *Result) {
	var all []*corev1.Pod
	for _, n := range in.Nodes {
		all = append(all, n.Pods...)
	}
	limits := cluster.NewPDBLimits(in.PodDisruptionBudgets, all)
	evicted := map[*policyv1.PodDisruptionBudget]int32{}
	for _, d := range res.Drains {
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				switch p.Action {
				case DrainEvict:
					if limits.Blocks(p.Pod) {
						t.Fatalf("drain of %s evicts %s, which a PodDisruptionBudget blocks", d.Node, p.Pod.Name)
					}
					if pdb, allowed := limits.Allowance(p.Pod); pdb != nil {
						if evicted[pdb]++; evicted[pdb] > allowed {
							t.Fatalf("drains evict %d pods of PDB %s, it allows %d", evicted[pdb], pdb.Name, allowed)
						}
					}
				case DrainDelete:
					if !d.Forceful {
						t.Fatalf("drain of %s deletes %s before its deadline", d.Node, p.Pod.Name)
					}
				case DrainWaitPDB, DrainWaitDoNotDisrupt:
					if (p.DeleteAt == nil) != (d.Deadline == nil) {
						t.Fatalf("drain of %s: pod %s DeleteAt %v with deadline %v", d.Node, p.Pod.Name, p.DeleteAt, d.Deadline)
					}
					if p.DeleteAt != nil && (p.DeleteAt.After(*d.Deadline) || p.DeleteAt.Before(d.Since)) {
						t.Fatalf("drain of %s: pod %s deleted at %v, outside [%v, %v]", d.Node, p.Pod.Name, p.DeleteAt, d.Since, d.Deadline)
					}
				}
			}
		}
	}
}

// Every pod of a drained node is in the plan once; every pod that must move lands on a
// destination or waits in the pending set, unless the drain is blocked (it does not move).
func checkDrainsLoseNoPod(t *rapid.T, in *fixture, res *Result) {
	podsOf := map[string][]*corev1.Pod{}
	for _, n := range in.Nodes {
		podsOf[n.Name()] = n.Pods
	}
	for _, d := range res.Drains {
		seen := map[*corev1.Pod]int{}
		check := func(p PodDrain) {
			seen[p.Pod]++
			move := p.Action != DrainLeaveAlone && cluster.IsReschedulable(p.Pod)
			if move && (p.Destination == "") == (p.PendingCode == "") {
				t.Fatalf("drain of %s: pod %s has destination %q and pending %q", d.Node, p.Pod.Name, p.Destination, p.PendingCode)
			}
			if !move && p.Destination+string(p.PendingCode) != "" {
				t.Fatalf("drain of %s: pod %s does not move but lands %q / %q", d.Node, p.Pod.Name, p.Destination, p.PendingCode)
			}
		}
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				check(p)
			}
		}
		for _, p := range d.LeftAlone {
			check(p)
		}
		if d.Terminates == "" {
			t.Fatalf("drain of %s says nothing about termination", d.Node)
		}
		if d.Terminates == TerminationBlocked && d.Deadline != nil {
			t.Fatalf("drain of %s is blocked despite its deadline", d.Node)
		}
		for _, p := range podsOf[d.Node] {
			if seen[p] != 1 {
				t.Fatalf("drain of %s lists pod %s %d times", d.Node, p.Name, seen[p])
			}
		}
	}
}

// Interruption commands ignore budgets but never duplicate: each managed node that is not
// already deleting and that a deleting event names is deleted by exactly one command.
func checkInterruptionCommands(t *rapid.T, in *fixture, res *Result) {
	inCommands := map[string]int{}
	for _, c := range res.Commands {
		for _, n := range c.Candidates {
			inCommands[n]++
		}
	}
	for n, k := range inCommands {
		if k > 1 {
			t.Fatalf("node %s in %d commands", n, k)
		}
	}
	deleted := map[string]int{}
	for _, o := range res.Interruptions {
		if o.Code == InterruptionDeleted {
			deleted[o.Node]++
			c := res.Commands[o.Command-1]
			if c.Method != MethodInterruption || len(c.Candidates) != 1 || c.Candidates[0] != o.Node {
				t.Fatalf("outcome %+v points at command %+v", o, c)
			}
		}
	}
	for _, ev := range in.Interruptions {
		if ev.Action() != interruption.CordonAndDrain {
			continue
		}
		for _, n := range in.Nodes {
			if n.Node.Spec.ProviderID == "aws:///"+fake.TestZone1+"/"+ev.InstanceIDs[0] && n.Node.DeletionTimestamp == nil && deleted[n.Name()] != 1 {
				t.Fatalf("node %s named by %s deleted %d times", n.Name(), ev.Kind, deleted[n.Name()])
			}
		}
	}
}
