package cluster

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// Node is an existing node (Node set), an in-flight NodeClaim that has no Node yet (Node
// nil, NodeClaim set), or both, with the pods bound to it. Its objects are shared with the
// snapshot's input and with every fork: never modify them. Whether the node is being deleted
// or closed to moved pods is state of the snapshot (the forks Deleting and ClosedToMoves set
// it), read through its methods.
type Node struct {
	Node      *corev1.Node
	NodeClaim *v1.NodeClaim
	// Pods are the pods bound to the node (they keep their place and use its resources), by
	// namespace and name (ComparePods), whatever the input's order.
	Pods []*corev1.Pod

	markedDeleting bool
	closedToMoves  bool
}

// Name is the node's name, or for an in-flight claim its status.nodeName, else its name.
func (n *Node) Name() string {
	if n.Node != nil {
		return n.Node.Name
	}
	if n.NodeClaim != nil {
		if n.NodeClaim.Status.NodeName != "" {
			return n.NodeClaim.Status.NodeName
		}
		return n.NodeClaim.Name
	}
	return ""
}

// DeepCopy copies the node, its NodeClaim and its pods (and its snapshot state).
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Node = n.Node.DeepCopy()
	c.NodeClaim = n.NodeClaim.DeepCopy()
	c.Pods = nil
	for _, p := range n.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	return &c
}

// Labels are the Node's labels, or for an in-flight NodeClaim its labels plus its
// single-valued requirements. The caller must not modify the map.
func (n *Node) Labels() map[string]string {
	if n.Node != nil {
		return n.Node.Labels
	}
	out := map[string]string{}
	if n.NodeClaim == nil {
		return out
	}
	if reqs, err := requirements.FromNodeSelectorRequirements(n.NodeClaim.Spec.Requirements...); err == nil {
		for k, v := range reqs.Labels() {
			out[k] = v
		}
	}
	for k, v := range n.NodeClaim.Labels {
		out[k] = v
	}
	return out
}

// Deleting reports whether the node is going away: marked by the Deleting fork, its Node or
// its NodeClaim has a deletionTimestamp, or its NodeClaim's instance is terminating
// (Karpenter's StateNode.MarkedForDeletion, which reads the InstanceTerminating condition
// as a deletionTimestamp). Both engines read it: scheduling.Solve puts no pod on such a node
// and plans its reschedulable pods again (a Node's; an in-flight claim's pods are not listed
// by Karpenter either); disruption.Plan makes it no candidate, counts it as disrupting
// against its budget and plans its drain. Karpenter counts a Node's deletionTimestamp only
// when it has no NodeClaim, since its termination finalizer deletes the NodeClaim of a
// deleting Node at once; nodeplan takes that next moment as the snapshot's (see README.md,
// "deliberately does better").
func (n *Node) Deleting() bool {
	return n.markedDeleting || (n.Node != nil && n.Node.DeletionTimestamp != nil) ||
		(n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil) || n.InstanceTerminating()
}

// InstanceTerminating reports whether the NodeClaim has the condition InstanceTerminating=True:
// the cloud is terminating its instance. Karpenter sets it only while finalizing a deleted
// NodeClaim or Node, so it means deleting even in a snapshot that lost the deletionTimestamp;
// such a node no longer counts towards its NodePool's size for disruption budgets.
func (n *Node) InstanceTerminating() bool {
	if n.NodeClaim == nil {
		return false
	}
	for _, c := range n.NodeClaim.Status.Conditions {
		if c.Type == v1.ConditionTypeInstanceTerminating {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// MarkedDeleting reports whether the Deleting fork marked the node (as if Karpenter had
// marked it for deletion), whatever its objects say.
func (n *Node) MarkedDeleting() bool { return n.markedDeleting }

// ClosedToMoves reports whether the ClosedToMoves fork closed the node to moved pods:
// Karpenter's consolidateAfter rule in a consolidation simulation. A pod being moved (one
// with spec.nodeName) may not land on it unless it comes from a Deleting node.
func (n *Node) ClosedToMoves() bool { return n.closedToMoves }
