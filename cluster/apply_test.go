package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// launch solves s, launches every new claim on cloud and registers their Nodes (initialized).
func launch(t *testing.T, ctx context.Context, cloud *fake.CloudProvider, s *cluster.Snapshot, prefix string) (*cluster.Snapshot, *scheduling.Result) {
	t.Helper()
	res, err := scheduling.Solve(s, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Solve(s, scheduling.Options{}, res))
	var names fake.Names
	launched, err := cloudprovider.Launch(ctx, cloud, scheduling.NodeClaimsFor(s, res.NewNodeClaims, func(string) string { return names.Next(prefix) }))
	require.NoError(t, err)
	require.NotContains(t, launched, (*v1.NodeClaim)(nil), "a launch the cloud refused")
	next, err := scheduling.Apply(s, res, launched)
	require.NoError(t, err)
	next, err = next.WithNodesFor(launched, t0, true)
	require.NoError(t, err)
	return next, res
}

func smallCluster(t *testing.T, pods int) (*fake.CloudProvider, *cluster.Snapshot) {
	types := fake.InstanceTypes(4)
	cloud := fake.NewCloudProvider(types)
	var ps []*corev1.Pod
	for i := 0; i < pods; i++ {
		ps = append(ps, fake.Pod(fmt.Sprintf("p%d", i)).Requests("500m", "256Mi").Obj())
	}
	s, err := cluster.New(cluster.Objects{
		// On-demand: the fake prices spot alike and launches spot then, which consolidation
		// leaves alone without SpotToSpotConsolidation.
		NodePools:       []*v1.NodePool{fake.NodePool("default").Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeOnDemand).Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            ps,
	})
	require.NoError(t, err)
	return cloud, s
}

func TestSchedulingApplyBindsEveryPlacedPod(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 6)
	next, res := launch(t, ctx, cloud, s, "a")
	require.NotEmpty(t, res.NewNodeClaims)
	assert.Empty(t, next.Pending())
	bound, sum := 0, 0.0
	for _, n := range next.Nodes() {
		require.NotNil(t, n.Node, "every launched claim registered")
		require.NotNil(t, n.NodeClaim)
		assert.Equal(t, "true", n.Node.Labels[v1.NodeInitializedLabelKey])
		for _, p := range n.Pods {
			assert.Equal(t, n.Node.Name, p.Spec.NodeName)
		}
		bound += len(n.Pods)
		price, ok := next.NodePrice(n.Node.Name)
		assert.True(t, ok)
		assert.Positive(t, price)
		sum += price
	}
	assert.Equal(t, 6, bound)
	total, unpriced := next.Price()
	assert.Empty(t, unpriced)
	assert.InDelta(t, sum, total, 1e-9)

	// A node of a type its NodePool does not offer has no price: listed, left out of the sum.
	stray, _ := fake.NodeAndClaim("stray", "default", fake.NewInstanceType(fake.InstanceTypeOptions{Name: "retired"}),
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 1, true), t0)
	withStray, err := next.WithNodes(stray)
	require.NoError(t, err)
	total, unpriced = withStray.Price()
	assert.Equal(t, []string{"stray"}, unpriced)
	assert.InDelta(t, sum, total, 1e-9)

	// A second Solve over the next snapshot has nothing to do, and new pods go on the room left.
	again, res2 := launch(t, ctx, cloud, next, "b")
	assert.Empty(t, res2.NewNodeClaims)
	assert.Empty(t, res2.PodErrors)
	assert.Equal(t, len(next.Nodes()), len(again.Nodes()))
}

func TestDisruptionApplyMovesPodsOffCandidates(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 6)
	s, _ = launch(t, ctx, cloud, s, "a")
	// Half the pods leave: consolidation has something to do.
	var gone []*corev1.Pod
	for _, n := range s.Nodes() {
		gone = append(gone, n.Pods[:len(n.Pods)/2+1]...)
	}
	s = s.WithoutPods(gone...)
	at := t0.Add(time.Hour)
	res, err := disruption.Plan(s, at, disruption.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Plan(s, at, disruption.Options{}, res))
	require.NotEmpty(t, res.Commands, "blocked: %v", res.Blocked)
	before := podCount(s)
	for ci, cmd := range res.Commands {
		launched := make([]*v1.NodeClaim, len(cmd.Replacements))
		for i, r := range cmd.Replacements {
			launched[i], err = cloud.Create(ctx, scheduling.NodeClaimFor(r, fmt.Sprintf("r%d-%d", ci, i), s.NodePool(r.NodePool)))
			require.NoError(t, err)
		}
		s, err = disruption.Apply(s, cmd, launched)
		require.NoError(t, err)
		for _, c := range cmd.Candidates {
			assert.Nil(t, s.Node(c), "candidate %s is gone", c)
		}
		require.NotEmpty(t, cmd.Moves)
		for _, m := range cmd.Moves {
			want := m.To
			if m.Claim >= 0 {
				want = launched[m.Claim].Name
			}
			assert.Equal(t, want, boundOn(s, m.Pod), "pod %s goes where the plan sent it", m.Pod.Name)
		}
	}
	assert.Equal(t, before, podCount(s), "no pod lost")
	assert.Empty(t, s.Pending(), "every displaced pod bound to its destination")
	s, res2 := launch(t, ctx, cloud, s, "c")
	assert.Empty(t, res2.PodErrors)
	assert.Empty(t, s.Pending())
}

// boundOn is the name of the node (or in-flight claim) p is bound to in s, "" if none.
func boundOn(s *cluster.Snapshot, p *corev1.Pod) string {
	for _, n := range s.Nodes() {
		for _, q := range n.Pods {
			if cluster.PodKey(q) == cluster.PodKey(p) {
				return q.Spec.NodeName
			}
		}
	}
	return ""
}

// TestDisruptionApplyMoves: a move binds the pod to its node or launched replacement; a pod the
// moves give no destination, send to a replacement not launched, or do not list is pending;
// moves the snapshot cannot carry out are errors.
func TestDisruptionApplyMoves(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 3)
	s, _ = launch(t, ctx, cloud, s, "a")
	require.Len(t, s.Nodes(), 1)
	cand := s.Nodes()[0]
	require.Len(t, cand.Pods, 3)
	other := node("other", "")
	s, err := s.WithNodes(other)
	require.NoError(t, err)
	p0, p1, p2 := cand.Pods[0], cand.Pods[1], cand.Pods[2]
	repl := &scheduling.NodeClaim{NodePool: "default", Pods: []*corev1.Pod{p1}}
	cmd := disruption.Command{Candidates: []string{cand.Node.Name}, Replacements: []*scheduling.NodeClaim{repl}, Moves: []disruption.PodMove{
		{Move: cluster.Move{Pod: p0, From: cand.Node.Name, To: "other", Claim: -1}, Provisioned: -1},
		{Move: cluster.Move{Pod: p1, From: cand.Node.Name, Claim: 0}, Provisioned: -1},
		{Move: cluster.Move{Pod: p2, From: cand.Node.Name, Claim: -1}, Provisioned: -1, Pending: disruption.MoveWaits},
	}}
	nc := scheduling.NodeClaimFor(repl, "r-0", s.NodePool("default"))
	next, err := disruption.Apply(s, cmd, []*v1.NodeClaim{nc})
	require.NoError(t, err)
	assert.Equal(t, "other", boundOn(next, p0))
	assert.Equal(t, "r-0", boundOn(next, p1))
	assert.Equal(t, []string{cluster.PodKey(p2)}, podKeys(next.Pending()))

	// Not launched: the replacement's pod is pending too; a command without moves leaves all pending.
	next, err = disruption.Apply(s, cmd, []*v1.NodeClaim{nil})
	require.NoError(t, err)
	assert.Equal(t, []string{cluster.PodKey(p1), cluster.PodKey(p2)}, podKeys(next.Pending()))
	next, err = disruption.Apply(s, disruption.Command{Candidates: cmd.Candidates}, nil)
	require.NoError(t, err)
	assert.Len(t, next.Pending(), 3)

	for name, bad := range map[string]disruption.PodMove{
		"unknown node":         {Move: cluster.Move{Pod: p0, To: "nowhere", Claim: -1}, Provisioned: -1},
		"node deleted":         {Move: cluster.Move{Pod: p0, To: cand.Node.Name, Claim: -1}, Provisioned: -1},
		"replacement past end": {Move: cluster.Move{Pod: p0, Claim: 1}, Provisioned: -1},
		"pod not displaced":    {Move: cluster.Move{Pod: fake.Pod("stranger").Obj(), To: "other", Claim: -1}, Provisioned: -1},
	} {
		c := cmd
		c.Moves = []disruption.PodMove{bad}
		_, err := disruption.Apply(s, c, []*v1.NodeClaim{nc})
		assert.Error(t, err, name)
	}
}

func podKeys(ps []*corev1.Pod) []string {
	var out []string
	for _, p := range ps {
		out = append(out, cluster.PodKey(p))
	}
	return out
}

func podCount(s *cluster.Snapshot) int {
	n := len(s.Pending())
	for _, node := range s.Nodes() {
		n += len(node.Pods)
	}
	return n
}

// TestForksNeverModifyTheParent: every fork and apply helper leaves its parent, and the
// objects it was built from, exactly as they were.
func TestForksNeverModifyTheParent(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 8)
	s, _ = launch(t, ctx, cloud, s, "a")
	s, err := s.WithPods(fake.Pod("late").Requests("3", "1Gi").Obj())
	require.NoError(t, err)
	type view struct {
		Nodes   []*cluster.Node
		Pending []*corev1.Pod
		Names   [][2]string
	}
	look := func() view { return view{s.Nodes(), s.Pending(), pairing(s)} }
	want := deepCopy(look())
	first := s.Nodes()[0]
	res, err := scheduling.Solve(s, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Solve(s, scheduling.Options{}, res))

	_ = s.Without(first.Node.Name)
	_ = s.WithoutPods(first.Pods[0], s.Pending()[0])
	_, err = s.WithPods(fake.Pod("more").NodeName(first.Node.Name).Obj())
	require.NoError(t, err)
	_, err = s.WithClaims(claim("extra", "", ""))
	require.NoError(t, err)
	_, err = s.WithNodes(node("extra-node", ""))
	require.NoError(t, err)
	launched := make([]*v1.NodeClaim, len(res.NewNodeClaims))
	_, err = scheduling.Apply(s, res, launched)
	require.NoError(t, err)
	_, err = disruption.Apply(s, disruption.Command{Candidates: []string{first.Node.Name}}, nil)
	require.NoError(t, err)

	if diff := cmp.Diff(want, deepCopy(look()), cmpopts.IgnoreUnexported(cluster.Node{})); diff != "" {
		t.Fatalf("a fork modified its parent (-before +after):\n%s", diff)
	}
}

func deepCopy[T any](v T) T {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// TestCarryMovesToClaims: a Move to a new NodeClaim (Claim i) binds its pod to the claim
// launched for it; one to a claim not launched, or without destination, leaves the pod where
// the snapshot holds it; a Claim past the launched claims is an error.
func TestCarryMovesToClaims(t *testing.T) {
	_, s := smallCluster(t, 3)
	p0, p1, p2 := s.Pending()[0], s.Pending()[1], s.Pending()[2]
	nc := &v1.NodeClaim{}
	nc.Name = "claim-1"
	moves := []cluster.Move{{Pod: p0, Claim: 1}, {Pod: p1, Claim: 0}, {Pod: p2, Claim: -1}}
	next, err := s.Carry([]*v1.NodeClaim{nil, nc}, moves, nil)
	require.NoError(t, err)
	assert.Equal(t, "claim-1", boundOn(next, p0))
	assert.Equal(t, []string{cluster.PodKey(p1), cluster.PodKey(p2)}, podKeys(next.Pending()), "not launched, no destination: still pending")
	require.NotNil(t, next.Find("claim-1"), "the launched claim is in flight")

	_, err = s.Carry([]*v1.NodeClaim{nc}, []cluster.Move{{Pod: p0, Claim: 1}}, nil)
	assert.Error(t, err)
}

// TestCarryToWinsOverClaim: a Move naming a node goes there whatever its Claim holds (a
// literal with To alone has Claim 0).
func TestCarryToWinsOverClaim(t *testing.T) {
	_, s := smallCluster(t, 1)
	s, err := s.WithNodes(node("other", ""))
	require.NoError(t, err)
	p := s.Pending()[0]
	next, err := s.Carry(nil, []cluster.Move{{Pod: p, To: "other"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "other", boundOn(next, p))
}
