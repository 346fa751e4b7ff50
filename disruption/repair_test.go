package disruption

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
)

// awsRepairPolicies are the AWS provider's policies (aws.Provider.RepairPolicies).
var awsRepairPolicies = []cloudprovider.RepairPolicy{
	{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * 60},
	{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, TolerationDuration: 30 * 60},
	{ConditionType: "AcceleratedHardwareReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 10 * 60},
}

// condition sets the node's condition typ to status since the given time.
func condition(sn *cluster.Node, typ corev1.NodeConditionType, status corev1.ConditionStatus, since time.Time) *cluster.Node {
	c := corev1.NodeCondition{Type: typ, Status: status, LastTransitionTime: metav1.NewTime(since)}
	for i := range sn.Node.Status.Conditions {
		if sn.Node.Status.Conditions[i].Type == typ {
			sn.Node.Status.Conditions[i] = c
			return sn
		}
	}
	sn.Node.Status.Conditions = append(sn.Node.Status.Conditions, c)
	return sn
}

func TestRepairPolicies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		typ      corev1.NodeConditionType
		status   corev1.ConditionStatus
		since    time.Duration // before now
		healthy  int           // other, healthy nodes of the NodePool
		sick     int           // other nodes unhealthy as long
		policies []cloudprovider.RepairPolicy
		repaired int
	}{
		{"Ready False past 30m", corev1.NodeReady, corev1.ConditionFalse, 31 * time.Minute, 4, 0, awsRepairPolicies, 1},
		{"Ready False within 30m", corev1.NodeReady, corev1.ConditionFalse, 29 * time.Minute, 4, 0, awsRepairPolicies, 0},
		{"Ready Unknown past 30m", corev1.NodeReady, corev1.ConditionUnknown, 30 * time.Minute, 4, 0, awsRepairPolicies, 1},
		{"accelerated hardware past 10m", "AcceleratedHardwareReady", corev1.ConditionFalse, 11 * time.Minute, 4, 0, awsRepairPolicies, 1},
		{"accelerated hardware True is healthy", "AcceleratedHardwareReady", corev1.ConditionTrue, 11 * time.Minute, 4, 0, awsRepairPolicies, 0},
		{"a condition no policy names", "DiskPressure", corev1.ConditionTrue, 2 * time.Hour, 4, 0, awsRepairPolicies, 0},
		{"node repair off without policies", corev1.NodeReady, corev1.ConditionFalse, 2 * time.Hour, 4, 0, nil, 0},
		{"1 of 5 unhealthy (cap 1): repaired", corev1.NodeReady, corev1.ConditionFalse, time.Hour, 4, 0, awsRepairPolicies, 1},
		{"2 of 5 unhealthy (cap 1): none repaired", corev1.NodeReady, corev1.ConditionFalse, time.Hour, 3, 1, awsRepairPolicies, 0},
		{"2 of 6 unhealthy (cap ceil 1.2 = 2): both repaired", corev1.NodeReady, corev1.ConditionFalse, time.Hour, 4, 1, awsRepairPolicies, 2},
		{"1 of 1 unhealthy (cap 1): repaired", corev1.NodeReady, corev1.ConditionFalse, time.Hour, 0, 0, awsRepairPolicies, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := []*cluster.Node{condition(testNode("bad", "p", "small", "", bound("b1", "1")), tc.typ, tc.status, now.Add(-tc.since))}
			for i := 0; i < tc.healthy; i++ {
				nodes = append(nodes, testNode(fmt.Sprintf("ok-%d", i), "p", "small", "", bound(fmt.Sprintf("ok%d", i), "1")))
			}
			for i := 0; i < tc.sick; i++ {
				nodes = append(nodes, condition(testNode(fmt.Sprintf("sick-%d", i), "p", "small", ""), tc.typ, tc.status, now.Add(-tc.since)))
			}
			// a zero budget: repair is forceful and ignores it
			in := input([]*v1.NodePool{pool("p", budget("0"))}, nodes...)
			in.RepairPolicies = tc.policies
			res, err := plan(t, in)
			require.NoError(t, err)
			n := 0
			for _, c := range res.Commands {
				if c.Method == MethodRepair {
					n++
					assert.Equal(t, ReasonUnhealthy, c.Reason)
					require.Len(t, c.Candidates, 1)
					if assert.NotNil(t, c.Unhealthy, "the condition that started it") {
						assert.Equal(t, tc.typ, c.Unhealthy.Type)
						assert.Positive(t, c.Toleration)
					}
				}
			}
			assert.Equal(t, tc.repaired, n)
			if tc.repaired == 0 && tc.policies != nil && tc.status != corev1.ConditionTrue && tc.typ != "DiskPressure" {
				assert.Contains(t, []BlockCode{BlockRepairPending, BlockRepairLimited}, firstBlocker(res, "bad"), blockedReason(res, "bad"))
			}
			checkNothingLost(t, in, res)
		})
	}
}

// A repaired node's deadline is now: every pod is deleted at once, also those a PDB or
// do-not-disrupt would keep.
func TestRepairIsForcefulInTheDrain(t *testing.T) {
	p1 := bound("p1", "500m")
	p2 := bound("p2", "500m")
	p2.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
	bad := condition(testNode("bad", "p", "small", "", p1, p2), corev1.NodeReady, corev1.ConditionFalse, now.Add(-time.Hour))
	in := input([]*v1.NodePool{pool("p")}, bad, testNode("ok", "p", "large", ""))
	in.RepairPolicies = awsRepairPolicies
	in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, pdbFor("p1"))
	res, err := plan(t, in)
	require.NoError(t, err)
	require.NotEmpty(t, res.Commands)
	assert.Equal(t, MethodRepair, res.Commands[0].Method)
	d := drainOf(res, "bad")
	require.NotNil(t, d)
	assert.True(t, d.Forceful)
	require.NotNil(t, d.Deadline)
	assert.Equal(t, now, *d.Deadline)
	for _, g := range d.Groups {
		for _, p := range g.Pods {
			assert.Equal(t, DrainDelete, p.Action, p.Pod.Name)
			assert.Equal(t, "ok", p.Destination, p.Pod.Name)
		}
	}
	assert.Equal(t, TerminationAtDeadline, d.Terminates)
}

func drainOf(res *Result, node string) *Drain {
	for i := range res.Drains {
		if res.Drains[i].Node == node {
			return &res.Drains[i]
		}
	}
	return nil
}

// Every AWS repair policy repairs once its toleration has passed, and not a second before.
func TestEveryAWSRepairPolicy(t *testing.T) {
	for _, p := range catalog.RepairPolicies() {
		tol := time.Duration(p.TolerationDuration) * time.Second
		for _, tc := range []struct {
			since    time.Duration
			repaired bool
		}{{tol, true}, {tol - time.Second, false}} {
			t.Run(fmt.Sprintf("%s=%s for %s", p.ConditionType, p.ConditionStatus, tc.since), func(t *testing.T) {
				bad := condition(testNode("bad", "p", "small", ""), p.ConditionType, p.ConditionStatus, now.Add(-tc.since))
				in := input([]*v1.NodePool{pool("p", budget("0"))}, bad, testNode("ok-1", "p", "small", ""), testNode("ok-2", "p", "small", ""),
					testNode("ok-3", "p", "small", ""), testNode("ok-4", "p", "small", ""))
				in.RepairPolicies = catalog.RepairPolicies()
				res, err := plan(t, in)
				require.NoError(t, err)
				repaired := len(res.Commands) == 1 && res.Commands[0].Method == MethodRepair && res.Commands[0].Candidates[0] == "bad"
				assert.Equal(t, tc.repaired, repaired, "%v", cmdSummary(res))
			})
		}
	}
}

// Why an unhealthy node is not repaired is data: the condition, when its toleration ends,
// or the unhealthy count against the cap.
func TestRepairBlockersAsData(t *testing.T) {
	since := now.Add(-29 * time.Minute)
	t.Run("toleration not over", func(t *testing.T) {
		in := input([]*v1.NodePool{pool("p")}, condition(testNode("bad", "p", "small", "", bound("b1", "1")), corev1.NodeReady, corev1.ConditionFalse, since))
		in.RepairPolicies = awsRepairPolicies
		res, err := plan(t, in)
		require.NoError(t, err)
		b := firstBlockerOf(res, "bad")
		require.Equal(t, BlockRepairPending, b.Code, blockedReason(res, "bad"))
		require.NotNil(t, b.Condition)
		assert.Equal(t, corev1.NodeReady, b.Condition.Type)
		assert.Equal(t, corev1.ConditionFalse, b.Condition.Status)
		assert.True(t, since.Equal(b.Condition.LastTransitionTime.Time))
		require.NotNil(t, b.At)
		assert.Equal(t, since.Add(30*time.Minute), *b.At)
		assert.Equal(t, 30*time.Minute, b.Duration)
	})
	t.Run("too many unhealthy", func(t *testing.T) {
		var nodes []*cluster.Node
		for _, name := range []string{"bad", "sick"} {
			nodes = append(nodes, condition(testNode(name, "p", "small", "", bound(name+"-pod", "1")), corev1.NodeReady, corev1.ConditionFalse, now.Add(-time.Hour)))
		}
		for _, name := range []string{"ok1", "ok2", "ok3"} {
			nodes = append(nodes, testNode(name, "p", "small", "", bound(name+"-pod", "1")))
		}
		in := input([]*v1.NodePool{pool("p", budget("0"))}, nodes...) // no consolidation takes them
		in.RepairPolicies = awsRepairPolicies
		res, err := plan(t, in)
		require.NoError(t, err)
		b := firstBlockerOf(res, "bad")
		require.Equal(t, BlockRepairLimited, b.Code, blockedReason(res, "bad"))
		assert.Equal(t, Blocker{Code: BlockRepairLimited, Condition: b.Condition, NodePool: "p", Unhealthy: 2, Nodes: 5, Allowed: 1}, b)
		require.NotNil(t, b.Condition)
		assert.Equal(t, corev1.NodeReady, b.Condition.Type)
	})
}

// A node already going away is not repaired: Karpenter's health controller deletes only a
// NodeClaim not yet deleted, and sets InstanceTerminating only while finalizing a deleted one
// (node/termination and nodeclaim/lifecycle), so a terminating instance is deleting too. The
// node is drained as one the input deletes (no command).
func TestRepairSkipsDeletingNodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		alter    func(*v1.NodeClaim)
		repaired bool
	}{
		{"NodeClaim not deleting", func(*v1.NodeClaim) {}, true},
		{"NodeClaim deletionTimestamp", func(nc *v1.NodeClaim) { nc.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)} }, false},
		{"InstanceTerminating", func(nc *v1.NodeClaim) {
			nc.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := claimed(condition(testNode("bad", "p", "small", "", bound("b1", "1")), corev1.NodeReady, corev1.ConditionFalse, now.Add(-time.Hour)), 0)
			tc.alter(bad.NodeClaim)
			in := input([]*v1.NodePool{pool("p")}, bad, testNode("ok", "p", "large", "", bound("o1", "1")))
			in.RepairPolicies = awsRepairPolicies
			res, err := plan(t, in)
			require.NoError(t, err)
			var repaired []string
			for _, c := range res.Commands {
				if c.Method == MethodRepair {
					repaired = append(repaired, c.Candidates...)
				}
			}
			if tc.repaired {
				assert.Equal(t, []string{"bad"}, repaired)
			} else {
				assert.Empty(t, repaired)
				assert.Equal(t, BlockDeleting, firstBlocker(res, "bad"))
				require.NotEmpty(t, res.Drains)
				assert.Equal(t, "bad", res.Drains[0].Node)
				assert.Zero(t, res.Drains[0].Command)
			}
			checkNothingLost(t, in, res)
		})
	}
}
