package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

func daemonPod(p *corev1.Pod) *corev1.Pod {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
	return p
}

func critical(p *corev1.Pod) *corev1.Pod {
	p.Spec.PriorityClassName = "system-node-critical"
	return p
}

func ptr[T any](v T) *T { return &v }

// deleting marks the node's Node deleted at since.
func deleting(sn *cluster.Node, since time.Time) *cluster.Node {
	t := metav1.NewTime(since)
	sn.Node.DeletionTimestamp = &t
	return sn
}

// claimed gives the node a NodeClaim of its name, with a terminationGracePeriod when tgp > 0.
func claimed(sn *cluster.Node, tgp time.Duration) *cluster.Node {
	nc := &v1.NodeClaim{}
	nc.Name = sn.Node.Name
	nc.Status.NodeName = sn.Node.Name
	nc.Labels = map[string]string{}
	for k, v := range sn.Node.Labels {
		nc.Labels[k] = v
	}
	nc.CreationTimestamp = sn.Node.CreationTimestamp
	if tgp > 0 {
		nc.Spec.TerminationGracePeriod = &metav1.Duration{Duration: tgp}
	}
	sn.NodeClaim = nc
	return sn
}

func TestDrainOrderPerPodClass(t *testing.T) {
	mirror := bound("static", "100m")
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	tol := bound("tolerant", "100m")
	tol.Spec.Tolerations = []corev1.Toleration{{Key: v1.DisruptedTaintKey, Operator: corev1.TolerationOpExists}}
	done := bound("done", "100m")
	done.Status.Phase = corev1.PodSucceeded
	pods := []*corev1.Pod{
		critical(daemonPod(bound("crit-ds", "100m"))), critical(bound("crit", "100m")),
		daemonPod(bound("ds", "100m")), bound("plain", "100m"), mirror, tol, done,
	}
	n := deleting(testNode("gone", "p", "small", "", pods...), t0)
	in := input([]*v1.NodePool{pool("p")}, n, testNode("stay", "p", "large", ""))
	res, err := plan(t, in)
	require.NoError(t, err)
	d := drainOf(res, "gone")
	require.NotNil(t, d)
	assert.Equal(t, 0, d.Command, "deleting in the input")
	assert.Equal(t, t0, d.Since)
	assert.Equal(t, corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule}, d.Taint)
	var order []string
	var classes []PodClass
	for _, g := range d.Groups {
		classes = append(classes, g.Class)
		for _, p := range g.Pods {
			order = append(order, p.Pod.Name)
			assert.Equal(t, DrainEvict, p.Action)
		}
	}
	assert.Equal(t, []PodClass{PodNonCritical, PodNonCriticalDaemonSet, PodCritical, PodCriticalDaemonSet}, classes)
	assert.Equal(t, []string{"plain", "ds", "crit", "crit-ds"}, order)
	var alone []string
	for _, p := range d.LeftAlone {
		alone = append(alone, p.Pod.Name)
		assert.Equal(t, DrainLeaveAlone, p.Action)
	}
	assert.ElementsMatch(t, []string{"static", "tolerant", "done"}, alone)
	codes := map[string]PodDrainCode{}
	for _, p := range d.LeftAlone {
		codes[p.Pod.Name] = p.Code
		assert.NotEmpty(t, p.Message(), "a code has its English")
	}
	assert.Equal(t, map[string]PodDrainCode{"static": PodDrainStaticPod, "tolerant": PodDrainToleratesDisruptedTaint, "done": PodDrainFinished}, codes)
	assert.Empty(t, d.StallCode)
	assert.Empty(t, d.StallMessage())
	assert.Equal(t, TerminationAfterDrain, d.Terminates)
	assert.Nil(t, d.Deadline)
	// the reschedulable pods land on the node that stays; DaemonSet pods do not move
	for _, g := range d.Groups {
		for _, p := range g.Pods {
			if cluster.IsDaemonSetPod(p.Pod) {
				assert.Empty(t, p.Destination+string(p.PendingCode), p.Pod.Name)
			} else {
				assert.Equal(t, "stay", p.Destination, p.Pod.Name)
			}
		}
	}
}

func TestDrainWaitsForPDBAndDoNotDisrupt(t *testing.T) {
	mk := func(tgp time.Duration) *Result {
		a1, a2 := bound("a1", "100m"), bound("a2", "100m")
		a1.Labels["app"], a2.Labels["app"] = "a", "a"
		keep := bound("keep", "100m")
		keep.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		keep.Spec.TerminationGracePeriodSeconds = ptr(int64(600))
		n := claimed(deleting(testNode("gone", "p", "small", "", a1, a2, keep), now.Add(-10*time.Minute)), tgp)
		n.NodeClaim.DeletionTimestamp = n.Node.DeletionTimestamp
		in := input([]*v1.NodePool{pool("p")}, n, testNode("stay", "p", "large", ""))
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, pdbFor("a")) // maxUnavailable 1
		res, err := plan(t, in)
		require.NoError(t, err)
		return res
	}
	actions := func(d *Drain) map[string]DrainAction {
		out := map[string]DrainAction{}
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				out[p.Pod.Name] = p.Action
			}
		}
		return out
	}
	// why each pod waits, as data
	type wait struct {
		code       PodDrainCode
		pdb        string
		allowed    int
		annotation string
	}
	waits := func(d *Drain) map[string]wait {
		out := map[string]wait{}
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				if p.Code != "" {
					out[p.Pod.Name] = wait{p.Code, p.PDB, p.Allowed, p.Annotation}
				}
			}
		}
		return out
	}
	t.Run("without terminationGracePeriod the drain is blocked", func(t *testing.T) {
		d := drainOf(mk(0), "gone")
		require.NotNil(t, d)
		assert.Equal(t, map[string]DrainAction{"a1": DrainEvict, "a2": DrainWaitPDB, "keep": DrainWaitDoNotDisrupt}, actions(d))
		// a1 took the one disruption PDB a allows; a2 waits for it
		assert.Equal(t, map[string]wait{"a2": {PodDrainPDBGranted, "default/a", 1, ""}, "keep": {PodDrainDoNotDisrupt, "", 0, "true"}}, waits(d))
		assert.Equal(t, TerminationBlocked, d.Terminates)
		assert.Equal(t, StallNoDeadline, d.StallCode)
		assert.Equal(t, []string{"default/a2", "default/keep"}, d.Waiting)
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				assert.Nil(t, p.DeleteAt)
			}
		}
	})
	t.Run("terminationGracePeriod forces the rest at its deadline", func(t *testing.T) {
		d := drainOf(mk(time.Hour), "gone")
		require.NotNil(t, d)
		require.NotNil(t, d.Deadline)
		deadline := now.Add(50 * time.Minute)
		assert.Equal(t, deadline, *d.Deadline)
		assert.False(t, d.Forceful)
		assert.Equal(t, TerminationAtDeadline, d.Terminates)
		assert.Equal(t, StallUntilDeadline, d.StallCode)
		assert.Equal(t, map[string]wait{"a2": {PodDrainPDBGranted, "default/a", 1, ""}, "keep": {PodDrainDoNotDisrupt, "", 0, "true"}}, waits(d))
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				switch p.Pod.Name {
				case "a2": // default 30 s of its own grace before the deadline
					require.NotNil(t, p.DeleteAt)
					assert.Equal(t, deadline.Add(-30*time.Second), *p.DeleteAt)
				case "keep": // 600 s grace
					require.NotNil(t, p.DeleteAt)
					assert.Equal(t, deadline.Add(-10*time.Minute), *p.DeleteAt)
				}
			}
		}
	})
}

// Nodes taken by a command of this Plan are drained too, named by their command.
func TestDrainOfACommand(t *testing.T) {
	in := input([]*v1.NodePool{pool("p")}, testNode("empty", "p", "small", ""))
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Commands, 1)
	d := drainOf(res, "empty")
	require.NotNil(t, d)
	assert.Equal(t, 1, d.Command)
	assert.Equal(t, now, d.Since)
	assert.Empty(t, d.Groups)
	assert.Equal(t, TerminationAfterDrain, d.Terminates)
}

// Each pod class drains in its place: a pod of a later class waits for every earlier one.
func TestDrainClassOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pod   func() *corev1.Pod
		class PodClass
	}{
		{"non-critical", func() *corev1.Pod { return bound("x", "100m") }, PodNonCritical},
		{"non-critical DaemonSet", func() *corev1.Pod { return daemonPod(bound("x", "100m")) }, PodNonCriticalDaemonSet},
		{"critical", func() *corev1.Pod { return critical(bound("x", "100m")) }, PodCritical},
		{"cluster-critical", func() *corev1.Pod {
			p := bound("x", "100m")
			p.Spec.PriorityClassName = "system-cluster-critical"
			return p
		}, PodCritical},
		{"critical DaemonSet", func() *corev1.Pod { return critical(daemonPod(bound("x", "100m"))) }, PodCriticalDaemonSet},
		{"high priority but no critical class", func() *corev1.Pod {
			p := bound("x", "100m")
			p.Spec.PriorityClassName, p.Spec.Priority = "business-critical", ptr(int32(1000000))
			return p
		}, PodNonCritical},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := deleting(testNode("gone", "p", "small", "", tc.pod()), t0)
			res, err := plan(t, input([]*v1.NodePool{pool("p")}, n, testNode("stay", "p", "large", "")))
			require.NoError(t, err)
			d := drainOf(res, "gone")
			require.NotNil(t, d)
			require.Len(t, d.Groups, 1)
			assert.Equal(t, tc.class, d.Groups[0].Class)
			assert.Equal(t, DrainEvict, d.Groups[0].Pods[0].Action)
		})
	}
	for _, tc := range []struct {
		name string
		pod  func() *corev1.Pod
		code PodDrainCode
	}{
		{"static pod", func() *corev1.Pod {
			p := bound("x", "100m")
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "gone", Controller: ptr(true)}}
			return p
		}, PodDrainStaticPod},
		{"tolerates everything", func() *corev1.Pod {
			p := bound("x", "100m")
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			return p
		}, PodDrainToleratesDisruptedTaint},
		{"failed", func() *corev1.Pod {
			p := bound("x", "100m")
			p.Status.Phase = corev1.PodFailed
			return p
		}, PodDrainFinished},
	} {
		t.Run("left alone: "+tc.name, func(t *testing.T) {
			n := deleting(testNode("gone", "p", "small", "", tc.pod()), t0)
			res, err := plan(t, input([]*v1.NodePool{pool("p")}, n))
			require.NoError(t, err)
			d := drainOf(res, "gone")
			require.NotNil(t, d)
			assert.Empty(t, d.Groups)
			require.Len(t, d.LeftAlone, 1)
			assert.Equal(t, tc.code, d.LeftAlone[0].Code)
			assert.Equal(t, DrainLeaveAlone, d.LeftAlone[0].Action)
			assert.Equal(t, TerminationAfterDrain, d.Terminates)
		})
	}
}

// An unmanaged node being deleted has no Karpenter finalizer: no drain plan.
func TestNoDrainForUnmanagedNodes(t *testing.T) {
	n := deleting(testNode("other", "", "small", "", bound("x", "100m")), t0)
	delete(n.Node.Labels, v1.NodePoolLabelKey)
	res, err := plan(t, input([]*v1.NodePool{pool("p")}, n))
	require.NoError(t, err)
	assert.Empty(t, res.Drains)
}

// Why each pod of a drain waits or lands nowhere is data: its code, the PodDisruptionBudgets
// or annotation it concerns, the NodePool or pod error of a pending pod.
func TestDrainReasonsAsData(t *testing.T) {
	labelled := func(p *corev1.Pod, app string) *corev1.Pod { p.Labels["app"] = app; return p }
	pdb := func(name, app string, maxUnavailable int) *policyv1.PodDisruptionBudget {
		return fake.PDB(name, "default", map[string]string{"app": app}, maxUnavailable)
	}
	dnd := bound("dnd", "100m")
	dnd.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "2h"}
	lost := bound("lost", "100m")
	lost.Spec.NodeSelector = map[string]string{"team": "gone"}
	n := deleting(testNode("gone", "p", "medium", "", labelled(bound("blocked", "1500m"), "b"), /* the provisioner, which does not plan it, launches no room for it */
		labelled(bound("twice", "100m"), "c"), dnd, bound("moves", "1"), lost), t0)
	in := input([]*v1.NodePool{pool("p")}, n)
	in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdb("pdb-b", "b", 0), pdb("c1", "c", 1), pdb("c2", "c", 1)}
	res, err := plan(t, in)
	require.NoError(t, err)
	d := drainOf(res, "gone")
	require.NotNil(t, d)
	got := map[string]PodDrain{}
	for _, g := range d.Groups {
		for _, p := range g.Pods {
			got[p.Pod.Name] = p
		}
	}
	until := t0.Add(2 * time.Hour)
	for _, tc := range []struct {
		pod  string
		want PodDrain
	}{
		{"blocked", PodDrain{Action: DrainWaitPDB, Code: PodDrainPDB, PDB: "default/pdb-b"}},
		{"twice", PodDrain{Action: DrainWaitPDB, Code: PodDrainPDBConflict, PDBs: []string{"default/c1", "default/c2"}}},
		{"dnd", PodDrain{Action: DrainWaitDoNotDisrupt, Code: PodDrainDoNotDisrupt, Annotation: "2h", Until: &until}},
		{"moves", PodDrain{Action: DrainEvict}},
	} {
		p := got[tc.pod]
		assert.Equal(t, tc.want, PodDrain{Action: p.Action, Code: p.Code, PDB: p.PDB, PDBs: p.PDBs, Allowed: p.Allowed,
			Annotation: p.Annotation, Until: p.Until}, tc.pod)
	}
	// the claim provisioned before has no room for both 1500m and 1 cpu: one of them needs a
	// new NodeClaim
	newClaim := 0
	for _, name := range []string{"blocked", "twice", "dnd", "moves"} {
		if p := got[name]; p.Destination == "" {
			assert.Equal(t, PendingNewNodeClaim, p.PendingCode, name)
			assert.Equal(t, "p", p.NodePool, name)
			newClaim++
		}
	}
	assert.Equal(t, 1, newClaim)
	l := got["lost"]
	assert.Equal(t, PendingUnschedulable, l.PendingCode)
	require.NotNil(t, l.PodError)
	assert.Equal(t, scheduling.ReasonRequirementsUnsatisfiable, l.PodError.Code)
	assert.Equal(t, lost, l.PodError.Pod)
	assert.Equal(t, StallNoDeadline, d.StallCode)
	assert.Equal(t, []string{"default/blocked", "default/dnd", "default/twice"}, d.Waiting, "namespace/name order")
	assert.NotEmpty(t, d.StallMessage())
}
