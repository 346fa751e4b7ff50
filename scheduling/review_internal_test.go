package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

func rrTypes() cloudprovider.InstanceTypes {
	return cloudprovider.InstanceTypes{fake.NewInstanceType(fake.InstanceTypeOptions{Name: "c4", Resources: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}})}
}

// rrObjects are pending pods, nodes (with their bound pods, which name their node) and one
// NodePool "default".
func rrObjects(pods []*corev1.Pod, nodes []*cluster.Node) cluster.Objects {
	np := fake.NodePool("default").Obj()
	o := cluster.Objects{Pods: pods, NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": rrTypes()}, WellKnownLabels: fake.WellKnownLabels()}
	for _, n := range nodes {
		o.Nodes = append(o.Nodes, n.Node)
		o.Pods = append(o.Pods, n.Pods...)
	}
	return o
}

// rrSolve is solveVerified over the snapshot of o, its deleting nodes marked.
func rrSolve(t *testing.T, o cluster.Objects, opts Options, deleting ...string) (*Result, error) {
	t.Helper()
	snap, err := cluster.New(o)
	require.NoError(t, err)
	return solveVerified(t, snap.Deleting(deleting...), opts)
}

func rrNode(name string, labels map[string]string, pods ...*corev1.Pod) *cluster.Node {
	l := map[string]string{v1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("0")}
	return &cluster.Node{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}, Status: corev1.NodeStatus{Allocatable: rl, Capacity: rl}}, Pods: pods}
}

// Regressions found in review; each failed before its fix.

func TestOddInputNeverPanics(t *testing.T) {
	cases := map[string]func() (cluster.Objects, []string){
		"nil NodePool": func() (cluster.Objects, []string) {
			in := rrObjects([]*corev1.Pod{fake.Pod("p").Obj()}, nil)
			in.NodePools = append(in.NodePools, nil)
			return in, nil
		},
		"nil bound pod": func() (cluster.Objects, []string) {
			return rrObjects([]*corev1.Pod{fake.Pod("p").Obj()}, []*cluster.Node{rrNode("n1", nil, nil)}), nil
		},
		"conflicting zone alias labels": func() (cluster.Objects, []string) {
			bp := fake.Pod("b").Label("app", "a").NodeName("n1").Obj()
			n := rrNode("n1", map[string]string{v1.LabelTopologyZone: fake.TestZone1, "failure-domain.beta.kubernetes.io/zone": fake.TestZone2}, bp)
			p := fake.Pod("p").Label("app", "a").TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "a"}).Obj()
			return rrObjects([]*corev1.Pod{p}, []*cluster.Node{n}), nil
		},
		"nil DaemonSet": func() (cluster.Objects, []string) {
			in := rrObjects([]*corev1.Pod{fake.Pod("p").Obj()}, nil)
			in.DaemonSets = append(in.DaemonSets, nil)
			return in, nil
		},
		"nil PDB with a node marked for deletion": func() (cluster.Objects, []string) {
			n := rrNode("n1", nil, fake.Pod("b").NodeName("n1").Obj())
			in := rrObjects(nil, []*cluster.Node{n})
			in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{nil}
			return in, []string{"n1"}
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			o, deleting := mk()
			assert.NotPanics(t, func() {
				// A snapshot refused (a nil pod) never reaches Solve; any other is solved.
				snap, err := cluster.New(o)
				if err == nil {
					_, _ = solveVerified(t, snap.Deleting(deleting...), Options{})
				}
			})
		})
	}
}

func TestRestrictedSelectorReasonIsStable(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 30; i++ {
		p := fake.Pod("p").NodeSelector(v1.LabelHostname, "x").NodeSelector("karpenter.sh/foo", "y").Obj()
		r, err := rrSolve(t, rrObjects([]*corev1.Pod{p}, nil), Options{})
		require.NoError(t, err)
		seen[r.PodErrors[0].Message()] = true
	}
	assert.Len(t, seen, 1)
}

func TestPodsKeptOnDeletingNodesCountForTopology(t *testing.T) {
	n1 := rrNode("n1", map[string]string{v1.LabelTopologyZone: fake.TestZone1}, fake.Pod("x").Label("app", "web").NodeName("n1").Obj())
	zero := intstr.FromInt32(0)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	p := fake.Pod("p").Label("app", "web").PodAntiAffinity(v1.LabelTopologyZone, map[string]string{"app": "web"}).Obj()
	in := rrObjects([]*corev1.Pod{p}, []*cluster.Node{n1})
	in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{pdb}
	r, err := rrSolve(t, in, Options{}, "n1")
	require.NoError(t, err)
	require.Len(t, r.NewNodeClaims, 1)
	for _, c := range r.NewNodeClaims {
		assert.False(t, c.Requirements.Get(v1.LabelTopologyZone).Has(fake.TestZone1), "x still runs in test-zone-1")
	}
}

func TestDefaultSpreadSkipsPodsWithoutLabels(t *testing.T) {
	var pods []*corev1.Pod
	for i := 0; i < 4; i++ {
		pods = append(pods, fake.Pod(fmt.Sprint("p", i)).Obj())
	}
	opts := Options{DefaultTopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule}}}
	r, err := rrSolve(t, rrObjects(pods, nil), opts)
	require.NoError(t, err)
	assert.Len(t, r.NewNodeClaims, 1)
}

func TestDefaultSpreadAppliesOnlyToPodsWithoutTheirOwn(t *testing.T) {
	var pods []*corev1.Pod
	for i := 0; i < 3; i++ {
		pods = append(pods, fake.Pod(fmt.Sprint("web-", i)).Label("app", "web").CPU("1").Obj())
	}
	// Smaller, so they are placed after the web pods. The web pods' spread selects them, so
	// they keep off the web pods' nodes (each would raise a web pod's node above maxSkew
	// against an empty node: TestHostSpreadHoldsForPodsItOnlySelects), and, not spread by
	// the default, share one node.
	for i := 0; i < 2; i++ {
		pods = append(pods, fake.Pod(fmt.Sprint("own-", i)).Label("app", "web").CPU("100m").TopologySpread(v1.LabelTopologyZone, 5, map[string]string{"app": "web"}).Obj())
	}
	opts := Options{DefaultTopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule}}}
	r, err := rrSolve(t, rrObjects(pods, nil), opts)
	require.NoError(t, err)
	require.Empty(t, r.PodErrors)
	host := map[string]string{}
	for _, c := range r.NewNodeClaims {
		for _, p := range c.Pods {
			host[p.Name] = c.Hostname
		}
	}
	assert.Len(t, map[string]bool{host["web-0"]: true, host["web-1"]: true, host["web-2"]: true}, 3, "the default hostname spread puts each web pod on its own node")
	assert.Equal(t, host["own-0"], host["own-1"], "the pods with their own constraint are not spread by the default")
	assert.Len(t, r.NewNodeClaims, 4)
}

// A node whose deprecated zone label disagrees with its stable one is in the stable label's
// zone, as kube-scheduler counts it: its pod counts there, so a maxSkew-1 spread pod goes
// elsewhere (before: the node was in no zone, its pod uncounted, and p landed beside it).
func TestDisagreeingZoneAliasCountsStableLabel(t *testing.T) {
	bp := fake.Pod("b").Label("app", "a").NodeName("n1").Obj()
	n := rrNode("n1", map[string]string{v1.LabelTopologyZone: fake.TestZone1, v1.LabelFailureDomainZone: fake.TestZone2}, bp)
	p := fake.Pod("p").Label("app", "a").TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "a"}).Obj()
	res, err := rrSolve(t, rrObjects([]*corev1.Pod{p}, []*cluster.Node{n}), Options{})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1)
	zone := res.NewNodeClaims[0].Requirements.Get(v1.LabelTopologyZone)
	require.NotNil(t, zone)
	assert.False(t, zone.Has(fake.TestZone1), "p must not join b's zone: %s", zone)
}
