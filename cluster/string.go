package cluster

import (
	"fmt"
	"strings"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// String is a compact one-line-per-node summary for test logs (rapid's counterexamples):
// each node with its NodePool, instance type, zone, capacity type, whether it is initialized
// or deleting and its pod count, then the pending and not-planned counts.
func (s *Snapshot) String() string {
	var b strings.Builder
	for _, n := range s.nodes {
		l := n.Labels()
		state := "in-flight"
		switch {
		case n.Node != nil && n.Node.DeletionTimestamp != nil, n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil:
			state = "deleting"
		case n.Node != nil && l[v1.NodeInitializedLabelKey] == "true":
			state = "ready"
		case n.Node != nil:
			state = "uninitialized"
		}
		fmt.Fprintf(&b, "%s %s/%s/%s/%s %s pods=%d\n", key(n), l[v1.NodePoolLabelKey], l[v1.LabelInstanceType],
			l[v1.LabelTopologyZone], l[v1.CapacityTypeLabelKey], state, len(n.Pods))
	}
	fmt.Fprintf(&b, "pending=%d notPlanned=%d", len(s.pending), len(s.notPlanned))
	return b.String()
}

// String is the node in one line for test logs: the Node's and NodeClaim's names ("-" for
// none), its marks and its bound pods by namespace/name.
func (n *Node) String() string {
	if n == nil {
		return "<nil node>"
	}
	node, claim := "-", "-"
	if n.Node != nil {
		node = n.Node.Name
	}
	if n.NodeClaim != nil {
		claim = n.NodeClaim.Name
	}
	var marks []string
	if n.Deleting() {
		marks = append(marks, "deleting")
	}
	if n.closedToMoves {
		marks = append(marks, "closed")
	}
	pods := make([]string, len(n.Pods))
	for i, p := range n.Pods {
		pods[i] = PodKey(p)
	}
	return fmt.Sprintf("node %s/%s%s pods=[%s]", node, claim, strings.Join(append([]string{""}, marks...), " "), strings.Join(pods, " "))
}

// GoString is String: rapid logs a drawn value with %#v, which would print pointers.
func (n *Node) GoString() string { return n.String() }
