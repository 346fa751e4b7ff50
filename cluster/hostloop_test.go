package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// applied is smallCluster's snapshot after a Solve whose claims launched (launched[refuse]
// left out, as a capacity refusal leaves it) were applied, in flight; the launched claims
// get status.nodeName nodeName(i) when nodeName is set.
func applied(t *testing.T, pods, refuse int, nodeName func(int) string) (*cluster.Snapshot, []*v1.NodeClaim) {
	t.Helper()
	cloud, s := smallCluster(t, pods)
	res, err := scheduling.Solve(s, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, verify.Solve(s, scheduling.Options{}, res))
	var names fake.Names
	launched, err := cloudprovider.Launch(context.Background(), cloud, scheduling.NodeClaimsFor(s, res.NewNodeClaims, names.Next))
	require.NoError(t, err)
	require.Greater(t, len(launched), refuse)
	if refuse >= 0 {
		launched[refuse] = nil
	}
	for i, nc := range launched {
		if nc != nil && nodeName != nil {
			nc.Status.NodeName = nodeName(i)
		}
	}
	next, err := scheduling.Apply(s, res, launched)
	require.NoError(t, err)
	return next, launched
}

func TestWithNodesFor(t *testing.T) {
	ip := func(i int) string { return fmt.Sprintf("ip-10-0-0-%d", i) }
	for _, tc := range []struct {
		name        string
		refuse      int // the launch the cloud refused (-1: none)
		nodeName    func(int) string
		initialized bool
	}{
		{name: "every claim registers, initialized", refuse: -1, initialized: true},
		{name: "a refused launch is skipped", refuse: 1, initialized: true},
		{name: "by status.nodeName, the pods rebound to it", refuse: -1, nodeName: ip, initialized: true},
		{name: "not initialized: startup taints, no initialized label", refuse: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, launched := applied(t, 8, tc.refuse, tc.nodeName)
			pending := len(s.Pending())
			next, err := s.WithNodesFor(launched, t0, tc.initialized)
			require.NoError(t, err)
			registered := 0
			for _, nc := range launched {
				if nc == nil {
					continue
				}
				registered++
				name := nc.Name
				if tc.nodeName != nil {
					name = nc.Status.NodeName
				}
				n := next.Node(name)
				require.NotNil(t, n, "node %s", name)
				require.NotNil(t, n.Node, "node %s registered", name)
				assert.Equal(t, nc, n.NodeClaim, "node %s took over its claim", name)
				assert.Equal(t, cluster.NodeFor(nc, t0, tc.initialized), n.Node)
				assert.NotEmpty(t, n.Pods)
				for _, p := range n.Pods {
					assert.Equal(t, name, p.Spec.NodeName, "pod %s", p.Name)
				}
				assert.Equal(t, tc.initialized, n.Node.Labels[v1.NodeInitializedLabelKey] == "true")
			}
			assert.Len(t, next.Nodes(), registered, "only the launched claims are nodes")
			assert.Len(t, next.Pending(), pending, "the refused claim's pods stay pending")
			if tc.refuse >= 0 {
				assert.Positive(t, pending)
			}
			assert.False(t, slices.ContainsFunc(s.Nodes(), func(n *cluster.Node) bool { return n.Node != nil }), "the parent keeps its claims in flight")
			_, err = next.WithNodesFor(launched, t0, tc.initialized)
			assert.Error(t, err, "the same Nodes registered twice")
		})
	}
}

// The fake cloud's machines join as soon as they launch: WithNodesFor registers the Node of
// each launched claim, which takes over the pods Apply bound to the claim.
func ExampleSnapshot_WithNodesFor() {
	types := fake.InstanceTypes(4)
	cloud := fake.NewCloudProvider(types)
	snap, err := cluster.New(cluster.Objects{
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            []*corev1.Pod{fake.Pod("web").Requests("1", "1Gi").Obj()},
	})
	if err != nil {
		panic(err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		panic(err)
	}
	if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
		panic(fmt.Sprint(vs))
	}
	var names fake.Names
	launched, err := cloudprovider.Launch(context.Background(), cloud, scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next))
	if err != nil {
		panic(err)
	}
	if snap, err = scheduling.Apply(snap, res, launched); err != nil {
		panic(err)
	}
	fmt.Println("registered:", snap.Nodes()[0].Node != nil)
	if snap, err = snap.WithNodesFor(launched, t0, true); err != nil {
		panic(err)
	}
	n := snap.Nodes()[0]
	fmt.Println("registered:", n.Node != nil, n.Node.Labels[v1.NodeInitializedLabelKey], n.Pods[0].Name, "on", n.Pods[0].Spec.NodeName)
	// Output:
	// registered: false
	// registered: true true web on default-1
}

func TestNodeClaimsOf(t *testing.T) {
	ip := func(i int) string { return fmt.Sprintf("ip-10-0-0-%d", i) }
	inFlight, launched := applied(t, 8, -1, ip) // claims default-1, default-2, ... named ip-10-0-0-0, ...
	require.GreaterOrEqual(t, len(launched), 2)
	registered, err := inFlight.WithNodesFor(launched[:1], t0, true)
	require.NoError(t, err)
	bare, err := registered.WithNodes(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare"}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		snap  *cluster.Snapshot
		names []string
		want  []*v1.NodeClaim
		err   cluster.InputCode // the node the error names is the last name
	}{
		{name: "none", snap: bare, want: []*v1.NodeClaim{}},
		{name: "by Node name and in flight, in order", snap: bare, names: []string{ip(1), ip(0)}, want: []*v1.NodeClaim{launched[1], launched[0]}},
		{name: "by the NodeClaim's own name", snap: bare, names: []string{launched[1].Name}, want: []*v1.NodeClaim{launched[1]}},
		{name: "a name the snapshot does not hold", snap: bare, names: []string{ip(0), "gone"}, err: cluster.InputNotFound},
		{name: "a Node without a NodeClaim", snap: bare, names: []string{"bare"}, err: cluster.InputInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.snap.NodeClaimsOf(tc.names...)
			if tc.err != "" {
				var invalid *cluster.InvalidInputError
				require.ErrorAs(t, err, &invalid)
				assert.Equal(t, tc.err, invalid.Code)
				assert.Equal(t, tc.names[len(tc.names)-1], invalid.Name)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// NodeClaimsOf finds the NodeClaims of a command's candidates, for cloudprovider.Terminate.
func ExampleSnapshot_NodeClaimsOf() {
	types := fake.InstanceTypes(2)
	node, claim := fake.NodeAndClaim("default-1", "default", types[0], types[0].Offerings[0], t0)
	snap, err := cluster.New(cluster.Objects{
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types},
		Nodes:         []*corev1.Node{node}, NodeClaims: []*v1.NodeClaim{claim},
	})
	if err != nil {
		panic(err)
	}
	claims, err := snap.NodeClaimsOf("default-1")
	fmt.Println(claims[0].Status.ProviderID, err)
	_, err = snap.NodeClaimsOf("default-1", "default-2")
	fmt.Println(err)
	// Output:
	// fake:///test-zone-1/default-1 <nil>
	// cluster.NodeClaimsOf: Node "default-2": not in the snapshot
}
