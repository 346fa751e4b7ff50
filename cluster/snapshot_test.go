package cluster_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

func node(name, providerID string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
}

func claim(name, nodeName, providerID string) *v1.NodeClaim {
	nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}}
	nc.Status.NodeName, nc.Status.ProviderID = nodeName, providerID
	return nc
}

// pairing returns, per node of the snapshot, its Node's and NodeClaim's names.
func pairing(s *cluster.Snapshot) [][2]string {
	var out [][2]string
	for _, n := range s.Nodes() {
		var p [2]string
		if n.Node != nil {
			p[0] = n.Node.Name
		}
		if n.NodeClaim != nil {
			p[1] = n.NodeClaim.Name
		}
		out = append(out, p)
	}
	return out
}

func TestNewPairsNodesWithNodeClaims(t *testing.T) {
	s, err := cluster.New(cluster.Objects{
		Nodes: []*corev1.Node{node("by-node-name", ""), node("by-provider", "cloud:///2"), node("same-name", "cloud:///3"), node("alone", "")},
		NodeClaims: []*v1.NodeClaim{
			claim("c1", "by-node-name", "cloud:///1"),
			claim("c2", "", "cloud:///2"),
			claim("same-name", "", ""),
			claim("in-flight", "", "cloud:///9"),
		},
	})
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"by-node-name", "c1"}, {"by-provider", "c2"}, {"same-name", "same-name"}, {"alone", ""}, {"", "in-flight"}}, pairing(s))
	assert.Same(t, s.Nodes()[4], s.Node("in-flight"))
	assert.Nil(t, s.Node("c1"), "pods bind to the Node's name, not its claim's")
}

func TestNewSortsPods(t *testing.T) {
	done := fake.Pod("done").Obj()
	done.Status.Phase = corev1.PodSucceeded
	going := fake.Pod("going").Obj()
	going.DeletionTimestamp = &metav1.Time{}
	ds := fake.Pod("ds").Obj()
	ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "logs"}}
	boundDS := fake.Pod("bound-ds").NodeName("n1").Obj()
	boundDS.OwnerReferences = ds.OwnerReferences
	s, err := cluster.New(cluster.Objects{
		Nodes:      []*corev1.Node{node("n1", "")},
		NodeClaims: []*v1.NodeClaim{claim("c-flight", "", "")},
		Pods: []*corev1.Pod{fake.Pod("pending").Obj(), fake.Pod("on-n1").NodeName("n1").Obj(), fake.Pod("on-claim").NodeName("c-flight").Obj(),
			fake.Pod("elsewhere").NodeName("gone").Obj(), done, going, ds, boundDS},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"default/pending"}, keys(s.Pending()))
	assert.Equal(t, []string{"default/bound-ds", "default/on-n1"}, keys(s.Node("n1").Pods), "bound pods by namespace/name")
	assert.Equal(t, []string{"default/on-claim"}, keys(s.Node("c-flight").Pods))
	reasons := map[string]cluster.NotPlannedCode{}
	for _, n := range s.NotPlanned() {
		reasons[cluster.PodKey(n.Pod)] = n.Reason
		assert.NotEmpty(t, n.Message())
	}
	assert.Equal(t, map[string]cluster.NotPlannedCode{
		"default/elsewhere": cluster.NotPlannedNodeNotInInput, "default/done": cluster.NotPlannedTerminal,
		"default/going": cluster.NotPlannedTerminating, "default/ds": cluster.NotPlannedDaemonSetPod,
	}, reasons)
	assert.Equal(t, []string{"default/done", "default/ds", "default/elsewhere", "default/going"}, notPlannedKeys(s), "sorted by namespace/name")
}

// TestBoundPodsWhateverTheOrder: a node's pods are in namespace/name order however they
// were given, to New or to WithPods, so that nothing iterating over them (drains, blockers,
// eviction-cost sums) depends on the input's order.
func TestBoundPodsWhateverTheOrder(t *testing.T) {
	pods := []*corev1.Pod{fake.Pod("c").NodeName("n1").Obj(), fake.Pod("a").Namespace("z").NodeName("n1").Obj(), fake.Pod("b").NodeName("n1").Obj()}
	s, err := cluster.New(cluster.Objects{Nodes: []*corev1.Node{node("n1", "")}, Pods: pods})
	require.NoError(t, err)
	assert.Equal(t, []string{"default/b", "default/c", "z/a"}, keys(s.Node("n1").Pods))
	s, err = s.WithPods(fake.Pod("d").NodeName("n1").Obj(), fake.Pod("a").NodeName("n1").Obj())
	require.NoError(t, err)
	assert.Equal(t, []string{"default/a", "default/b", "default/c", "default/d", "z/a"}, keys(s.Node("n1").Pods))
}

func TestNewRefusesAmbiguousNames(t *testing.T) {
	for name, o := range map[string]cluster.Objects{
		"two Nodes":  {Nodes: []*corev1.Node{node("a", ""), node("a", "")}},
		"two claims": {NodeClaims: []*v1.NodeClaim{claim("a", "", ""), claim("a", "", "")}},
		"in-flight claim named like a paired Node": {Nodes: []*corev1.Node{node("a", "")},
			NodeClaims: []*v1.NodeClaim{claim("b", "a", ""), claim("a", "", "")}},
		"nil pod": {Pods: []*corev1.Pod{nil}},
	} {
		_, err := cluster.New(o)
		assert.Error(t, err, name)
	}
}

func keys(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, cluster.PodKey(p))
	}
	return out
}

func notPlannedKeys(s *cluster.Snapshot) []string {
	out := []string{}
	for _, n := range s.NotPlanned() {
		out = append(out, cluster.PodKey(n.Pod))
	}
	return out
}

func TestStringIsCompact(t *testing.T) {
	s, err := cluster.New(cluster.Objects{Nodes: []*corev1.Node{node("n1", "")}, NodeClaims: []*v1.NodeClaim{claim("c1", "", "")},
		Pods: []*corev1.Pod{fake.Pod("p").Obj(), fake.Pod("q").NodeName("n1").Obj()}})
	require.NoError(t, err)
	assert.Equal(t, "n1 /// uninitialized pods=1\nc1 /// in-flight pods=0\npending=1 notPlanned=0", s.String())
}

// Every nil object is New's error naming its slice and index, never silently dropped.
func TestNewRefusesEveryNil(t *testing.T) {
	for field, set := range map[string]func(*cluster.Objects){
		"NodePools":              func(o *cluster.Objects) { o.NodePools = append(o.NodePools, nil) },
		"Nodes":                  func(o *cluster.Objects) { o.Nodes = append(o.Nodes, nil) },
		"NodeClaims":             func(o *cluster.Objects) { o.NodeClaims = append(o.NodeClaims, nil) },
		"Pods":                   func(o *cluster.Objects) { o.Pods = append(o.Pods, nil) },
		"DaemonSets":             func(o *cluster.Objects) { o.DaemonSets = append(o.DaemonSets, nil) },
		"PodDisruptionBudgets":   func(o *cluster.Objects) { o.PodDisruptionBudgets = append(o.PodDisruptionBudgets, nil) },
		"PersistentVolumeClaims": func(o *cluster.Objects) { o.PersistentVolumeClaims = append(o.PersistentVolumeClaims, nil) },
		"PersistentVolumes":      func(o *cluster.Objects) { o.PersistentVolumes = append(o.PersistentVolumes, nil) },
		"StorageClasses":         func(o *cluster.Objects) { o.StorageClasses = append(o.StorageClasses, nil) },
		"CSINodes":               func(o *cluster.Objects) { o.CSINodes = append(o.CSINodes, nil) },
		"Namespaces":             func(o *cluster.Objects) { o.Namespaces = append(o.Namespaces, nil) },
		"Leases":                 func(o *cluster.Objects) { o.Leases = append(o.Leases, nil) },
	} {
		t.Run(field, func(t *testing.T) {
			o := cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()}}
			set(&o)
			_, err := cluster.New(o)
			var invalid *cluster.InvalidInputError
			require.ErrorAs(t, err, &invalid)
			idx := 0
			if field == "NodePools" {
				idx = 1
			}
			assert.Equal(t, cluster.InputNil, invalid.Code)
			assert.Equal(t, fmt.Sprintf("Objects.%s[%d]", field, idx), invalid.Field)
			assert.Equal(t, "cluster.New", invalid.Op)
		})
	}
}

// TestNodePrintsReadably: a node drawn by rapid (logged with %#v) reads as names, not
// pointers.
func TestNodePrintsReadably(t *testing.T) {
	s, err := cluster.New(cluster.Objects{Nodes: []*corev1.Node{node("n1", "")}, NodeClaims: []*v1.NodeClaim{claim("c1", "n1", "")},
		Pods: []*corev1.Pod{fake.Pod("web").NodeName("n1").Obj()}})
	require.NoError(t, err)
	n := s.Deleting("n1").Nodes()[0]
	assert.Equal(t, "node n1/c1 deleting pods=[default/web]", fmt.Sprintf("%#v", n))
}
