package cluster_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// twoNodes is a cluster of two initialized nodes "a" and "b" of the largest of four fake
// types, with pods bound to them.
func twoNodes(t *testing.T, pods ...*corev1.Pod) *cluster.Snapshot {
	return twoNodesAltered(t, nil, pods...)
}

// twoNodesAltered is twoNodes with a's Node and NodeClaim changed by alter (when not nil),
// which says whether a keeps its NodeClaim.
func twoNodesAltered(t *testing.T, alter func(*corev1.Node, *v1.NodeClaim) bool, pods ...*corev1.Pod) *cluster.Snapshot {
	t.Helper()
	return twoNodesOf(t, fake.NodePool("default").Obj(), nil, alter, pods...)
}

// twoNodesOf is twoNodesAltered with NodePool pool (named "default") and PodDisruptionBudgets.
func twoNodesOf(t *testing.T, pool *v1.NodePool, pdbs []*policyv1.PodDisruptionBudget, alter func(*corev1.Node, *v1.NodeClaim) bool, pods ...*corev1.Pod) *cluster.Snapshot {
	t.Helper()
	types := fake.InstanceTypes(4)
	it := types[3]
	na, ca := fake.NodeAndClaim("a", "default", it, it.Offerings[0], t0)
	nb, cb := fake.NodeAndClaim("b", "default", it, it.Offerings[0], t0)
	claims := []*v1.NodeClaim{ca, cb}
	if alter != nil && !alter(na, ca) {
		claims = claims[1:]
	}
	s, err := cluster.New(cluster.Objects{
		NodePools:            []*v1.NodePool{pool},
		InstanceTypes:        map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels:      fake.WellKnownLabels(),
		Nodes:                []*corev1.Node{na, nb},
		NodeClaims:           claims,
		Pods:                 pods,
		PodDisruptionBudgets: pdbs,
	})
	require.NoError(t, err)
	return s
}

// placedOn is where res puts each pod (node name, "claim" for a new NodeClaim, "" for
// unplaced), by pod name.
func placedOn(res *scheduling.Result) map[string]string {
	out := map[string]string{}
	for _, b := range res.Bindings {
		out[b.Pod.Name] = b.To
	}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			out[p.Name] = "claim"
		}
	}
	for _, e := range res.PodErrors {
		out[e.Pod.Name] = ""
	}
	return out
}

func solveVerified(t *testing.T, s *cluster.Snapshot) *scheduling.Result {
	t.Helper()
	res, err := scheduling.Solve(s, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Solve(s, scheduling.Options{}, res))
	return res
}

// planVerified is Plan at now, checked by verify.
func planVerified(t *testing.T, s *cluster.Snapshot, now time.Time) *disruption.Result {
	t.Helper()
	res, err := disruption.Plan(s, now, disruption.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Plan(s, now, disruption.Options{}, res))
	return res
}

// TestDeletingFork: a node the Deleting fork marks takes no pods, and Solve plans its
// reschedulable pods again (not its DaemonSet pods, not do-not-disrupt=true ones); the
// parent is unchanged.
func TestDeletingFork(t *testing.T) {
	moves := fake.Pod("moves").Requests("1", "1Gi").NodeName("a").Obj()
	stays := fake.Pod("stays").Requests("1", "1Gi").Annotation(v1.DoNotDisruptAnnotationKey, "true").NodeName("a").Obj()
	daemon := fake.Pod("daemon").Requests("100m", "64Mi").NodeName("a").Obj()
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: new(bool)}}
	*daemon.OwnerReferences[0].Controller = true
	s := twoNodes(t, moves, stays, daemon, fake.Pod("new").Requests("1", "1Gi").Obj())

	fork := s.Deleting("a")
	assert.True(t, fork.Node("a").MarkedDeleting())
	assert.True(t, fork.Node("a").Deleting())
	assert.False(t, s.Node("a").Deleting(), "the parent is unchanged")
	assert.Same(t, s.Node("b"), fork.Node("b"), "unmarked nodes are shared")
	assert.Same(t, s.PDBLimits(), fork.PDBLimits(), "marking keeps the PDB reading")

	assert.Equal(t, map[string]string{"new": "a"}, placedOn(solveVerified(t, s)), "without the mark, a takes the pending pod first")
	assert.Equal(t, map[string]string{"new": "b", "moves": "b"}, placedOn(solveVerified(t, fork)))
	assert.Same(t, s, s.Deleting(), "no names: the same snapshot")
}

// TestClosedToMovesFork: a node closed to moves takes pending pods but no pod being moved
// (spec.nodeName set, from a node that is not Deleting); WithMoving adds the moved pods after
// the pending ones, as they are.
func TestClosedToMovesFork(t *testing.T) {
	moved := fake.Pod("moved").Requests("1", "1Gi").NodeName("b").Obj()
	s := twoNodes(t, moved, fake.Pod("pending").Requests("1", "1Gi").Obj())

	open := s.Without("b").WithMoving(moved)
	assert.Equal(t, []*corev1.Pod{moved}, open.Moving())
	assert.Empty(t, s.Moving(), "the parent moves nothing")
	assert.Same(t, s.PDBLimits(), open.PDBLimits(), "Without and WithMoving keep the PDB reading")
	assert.Equal(t, map[string]string{"pending": "a", "moved": "a"}, placedOn(solveVerified(t, open)))

	closed := open.ClosedToMoves("a")
	assert.True(t, closed.Node("a").ClosedToMoves())
	assert.False(t, open.Node("a").ClosedToMoves())
	assert.Equal(t, map[string]string{"pending": "a", "moved": "claim"}, placedOn(solveVerified(t, closed)))

	// A pod moved off a Deleting node may land on a closed one.
	fromDraining := s.Deleting("b").ClosedToMoves("a")
	assert.Equal(t, map[string]string{"pending": "a", "moved": "a"}, placedOn(solveVerified(t, fromDraining)))
}

// TestPDBReadingForks: forks that add or remove pods read the PDBs again.
func TestPDBReadingForks(t *testing.T) {
	web := fake.Pod("web").Label("app", "web").Requests("1", "1Gi").NodeName("a").Obj()
	web.Status.Phase = corev1.PodRunning
	s := twoNodes(t, web)
	pdb := fake.PDB("web", "default", map[string]string{"app": "web"}, 0)
	withPDB, err := cluster.New(cluster.Objects{NodePools: s.NodePools(), InstanceTypes: s.InstanceTypes(),
		Nodes: []*corev1.Node{s.Node("a").Node}, Pods: []*corev1.Pod{web}, PodDisruptionBudgets: []*policyv1.PodDisruptionBudget{pdb}})
	require.NoError(t, err)
	assert.True(t, withPDB.PDBLimits().Blocks(web), "maxUnavailable 0 blocks the pod")
	gone := withPDB.WithoutPods(web)
	assert.NotSame(t, withPDB.PDBLimits(), gone.PDBLimits())
	// Drained anyway: the pod stays where it is, as the PDB keeps it.
	res := solveVerified(t, withPDB.Deleting("a"))
	assert.Empty(t, placedOn(res))
}

// TestByNameAndWithInFlight: ByName orders nodes by Name (stably); WithInFlight appends
// claims after them, never paired, even with a Node of the claim's name.
func TestByNameAndWithInFlight(t *testing.T) {
	s, err := cluster.New(cluster.Objects{Nodes: []*corev1.Node{node("c", ""), node("a", ""), node("b", "")},
		NodeClaims: []*v1.NodeClaim{claim("0-in-flight", "", "")}})
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"", "0-in-flight"}, {"a", ""}, {"b", ""}, {"c", ""}}, pairing(s.ByName()))
	assert.Equal(t, [][2]string{{"c", ""}, {"a", ""}, {"b", ""}, {"", "0-in-flight"}}, pairing(s), "the parent keeps its order")
	f := s.WithInFlight(claim("a", "", ""))
	assert.Equal(t, [][2]string{{"c", ""}, {"a", ""}, {"b", ""}, {"", "0-in-flight"}, {"", "a"}}, pairing(f))
	assert.Len(t, s.Nodes(), 4)
}

// TestObservationForks: the cloud's observations are replaced, the parent keeps its own.
func TestObservationForks(t *testing.T) {
	s := twoNodes(t)
	ev := interruption.Event{Kind: interruption.SpotInterrupted, InstanceIDs: []string{"i-1"}}
	f := s.WithInterruptions(ev).WithRepairPolicies(cloudprovider.RepairPolicy{ConditionType: "Ready"}).
		WithProviderDrift(map[string]cloudprovider.DriftReason{"a": "AMIDrift"})
	assert.Equal(t, []interruption.Event{ev}, f.Interruptions())
	assert.Len(t, f.RepairPolicies(), 1)
	assert.Equal(t, cloudprovider.DriftReason("AMIDrift"), f.ProviderDrift()["a"])
	assert.Empty(t, s.Interruptions())
	assert.Empty(t, s.RepairPolicies())
	assert.Empty(t, s.ProviderDrift())
}

// TestForksNameNodesByEitherName: Without, Deleting and ClosedToMoves take the nodes named by
// the name pods bind to or by Name (an in-flight claim's status.nodeName), every node so
// named, whether the forks compare the names node by node (a few) or look them up in the
// snapshot's index of names (more; built by the forks before them and shared), on a
// snapshot where every name is one node's and on one where a claim in flight shadows a
// Node of its name (which the index cannot tell apart).
func TestForksNameNodesByEitherName(t *testing.T) {
	var nodes []*corev1.Node
	var claims []*v1.NodeClaim
	for i := range 12 {
		name := fmt.Sprintf("n%02d", i)
		nodes = append(nodes, node(name, ""))
		if i%3 == 0 {
			claims = append(claims, claim("c-"+name, name, ""))
		}
	}
	claims = append(claims, claim("f0", "host-f0", ""), claim("f1", "", ""))
	base, err := cluster.New(cluster.Objects{Nodes: nodes, NodeClaims: claims})
	require.NoError(t, err)
	marked := []string{"n05", "n06", "n07", "n08", "n09", "n10", "n11", "n00", "n01"}
	pool := []string{"n00", "n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10", "n11",
		"c-n00", "f0", "host-f0", "f1", "unknown"}
	for name, s := range map[string]*cluster.Snapshot{
		"unique":   base.Deleting(marked...),
		"shadowed": base.WithInFlight(claim("n03", "", "")).Deleting(marked...),
	} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				names := rapid.SliceOfN(rapid.SampledFrom(pool), 0, 20).Draw(t, "names")
				named := func(n *cluster.Node) bool {
					k := n.Name()
					if n.Node == nil {
						k = n.NodeClaim.Name
					}
					return slices.Contains(names, k) || slices.Contains(names, n.Name())
				}
				var kept []*cluster.Node
				for _, n := range s.Nodes() {
					if !named(n) {
						kept = append(kept, n)
					}
				}
				assert.Equal(t, kept, s.Without(names...).Nodes(), "Without")
				closed := s.ClosedToMoves(names...)
				for i, n := range closed.Nodes() {
					assert.Equal(t, named(n), n.ClosedToMoves(), "ClosedToMoves %d", i)
					assert.Equal(t, s.Nodes()[i].MarkedDeleting(), n.MarkedDeleting(), "ClosedToMoves keeps the marks %d", i)
				}
			})
		})
	}
}

// TestForksNameAClaimByItsNewNodeName: a claim's status.nodeName set by
// WithUpdatedNodeClaims names it in the forks after, though the snapshot before had built
// its index of names (many names: the index is used).
func TestForksNameAClaimByItsNewNodeName(t *testing.T) {
	var nodes []*corev1.Node
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("n%02d", i))
		nodes = append(nodes, node(names[i], ""))
	}
	s, err := cluster.New(cluster.Objects{Nodes: nodes, NodeClaims: []*v1.NodeClaim{claim("f1", "", "")}})
	require.NoError(t, err)
	require.Len(t, s.Deleting(names...).Nodes(), 11) // builds the index
	s, err = s.WithUpdatedNodeClaims(claim("f1", "host-f1", ""))
	require.NoError(t, err)
	marked := s.Deleting(append(names[1:], "host-f1")...).Nodes()
	assert.True(t, marked[10].MarkedDeleting(), "the claim, by its new name")
	assert.False(t, marked[0].MarkedDeleting())
	assert.Len(t, s.Without(append(names[1:], "host-f1")...).Nodes(), 1)
}
