package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// launch solves s, creates every new claim on cloud and registers their Nodes (initialized).
func launch(t *testing.T, ctx context.Context, cloud *fake.CloudProvider, s *cluster.Snapshot, prefix string) (*cluster.Snapshot, *scheduling.Result) {
	t.Helper()
	in := s.SchedulingInput(scheduling.Options{})
	res, err := scheduling.Solve(in)
	require.NoError(t, err)
	require.Empty(t, verify.Solve(in, res))
	launched := make([]*v1.NodeClaim, len(res.NewNodeClaims))
	var nodes []*corev1.Node
	for i, c := range res.NewNodeClaims {
		nc, err := cloud.Create(ctx, cluster.NodeClaimFor(c, fmt.Sprintf("%s-%d", prefix, i), s.NodePool(c.NodePool)))
		require.NoError(t, err)
		launched[i] = nc
		nodes = append(nodes, cluster.NodeFor(nc, t0, true))
	}
	next, err := s.ApplySolve(res, launched)
	require.NoError(t, err)
	next, err = next.WithNodes(nodes...)
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
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            ps,
	})
	require.NoError(t, err)
	return cloud, s
}

func TestApplySolveBindsEveryPlacedPod(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 6)
	next, res := launch(t, ctx, cloud, s, "a")
	require.NotEmpty(t, res.NewNodeClaims)
	assert.Empty(t, next.Pending())
	bound := 0
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
	}
	assert.Equal(t, 6, bound)

	// A second Solve over the next snapshot has nothing to do, and new pods go on the room left.
	again, res2 := launch(t, ctx, cloud, next, "b")
	assert.Empty(t, res2.NewNodeClaims)
	assert.Empty(t, res2.PodErrors)
	assert.Equal(t, len(next.Nodes()), len(again.Nodes()))
}

func TestApplyCommandMovesPodsOffCandidates(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 6)
	s, _ = launch(t, ctx, cloud, s, "a")
	// Half the pods leave: consolidation has something to do.
	var gone []*corev1.Pod
	for _, n := range s.Nodes() {
		gone = append(gone, n.Pods[:len(n.Pods)/2+1]...)
	}
	s = s.WithoutPods(gone...)
	in := s.DisruptionInput(t0.Add(time.Hour), disruption.Options{})
	res, err := disruption.Plan(in)
	require.NoError(t, err)
	require.Empty(t, verify.Plan(in, res))
	require.NotEmpty(t, res.Commands, "blocked: %v", res.Blocked)
	before := podCount(s)
	for ci, cmd := range res.Commands {
		launched := make([]*v1.NodeClaim, len(cmd.Replacements))
		for i, r := range cmd.Replacements {
			launched[i], err = cloud.Create(ctx, cluster.NodeClaimFor(r, fmt.Sprintf("r%d-%d", ci, i), s.NodePool(r.NodePool)))
			require.NoError(t, err)
		}
		s, err = s.ApplyCommand(cmd, launched)
		require.NoError(t, err)
		for _, c := range cmd.Candidates {
			assert.Nil(t, s.Node(c), "candidate %s is gone", c)
		}
	}
	assert.Equal(t, before, podCount(s), "no pod lost")
	s, res2 := launch(t, ctx, cloud, s, "c")
	assert.Empty(t, res2.PodErrors)
	assert.Empty(t, s.Pending())
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
		Nodes   []*scheduling.Node
		Pending []*corev1.Pod
		Names   [][2]string
	}
	look := func() view { return view{s.Nodes(), s.Pending(), pairing(s)} }
	want := deepCopy(look())
	first := s.Nodes()[0]
	in := s.SchedulingInput(scheduling.Options{})
	res, err := scheduling.Solve(in)
	require.NoError(t, err)

	_ = s.Without(first.Node.Name)
	_ = s.WithoutPods(first.Pods[0], s.Pending()[0])
	_, err = s.WithPods(fake.Pod("more").NodeName(first.Node.Name).Obj())
	require.NoError(t, err)
	_, err = s.WithClaims(claim("extra", "", ""))
	require.NoError(t, err)
	_, err = s.WithNodes(node("extra-node", ""))
	require.NoError(t, err)
	launched := make([]*v1.NodeClaim, len(res.NewNodeClaims))
	_, err = s.ApplySolve(res, launched)
	require.NoError(t, err)
	_, err = s.ApplyCommand(disruption.Command{Candidates: []string{first.Node.Name}}, nil)
	require.NoError(t, err)

	if diff := cmp.Diff(want, deepCopy(look())); diff != "" {
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
