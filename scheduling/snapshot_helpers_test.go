package scheduling_test

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// withNodes is objs with each node's Node and NodeClaim added and its pods bound to it:
// a pod without spec.nodeName gets the node's name (set in place, so that tests may compare
// pod pointers), a NodeClaim of a Node without status.nodeName gets the Node's name (in
// place). An in-flight claim's pods bind to the claim's name.
func withNodes(objs cluster.Objects, nodes ...*cluster.Node) cluster.Objects {
	objs.Nodes = append([]*corev1.Node(nil), objs.Nodes...)
	objs.NodeClaims = append([]*v1.NodeClaim(nil), objs.NodeClaims...)
	objs.Pods = append([]*corev1.Pod(nil), objs.Pods...)
	for _, n := range nodes {
		name := ""
		switch {
		case n.Node != nil:
			name = n.Node.Name
			objs.Nodes = append(objs.Nodes, n.Node)
			if n.NodeClaim != nil && n.NodeClaim.Status.NodeName == "" {
				n.NodeClaim.Status.NodeName = name
			}
		case n.NodeClaim != nil:
			name = n.NodeClaim.Name
		}
		if n.NodeClaim != nil {
			objs.NodeClaims = append(objs.NodeClaims, n.NodeClaim)
		}
		for _, p := range n.Pods {
			if p.Spec.NodeName == "" {
				p.Spec.NodeName = name
			}
			objs.Pods = append(objs.Pods, p)
		}
	}
	return objs
}

// snapOf is cluster.New over withNodes(objs, nodes...), failing the test when New refuses.
func snapOf(t tb, objs cluster.Objects, nodes ...*cluster.Node) *cluster.Snapshot {
	t.Helper()
	snap, err := cluster.New(withNodes(objs, nodes...))
	if err != nil {
		t.Fatalf("cluster.New: %v", err)
	}
	return snap
}
