package cluster

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// NotPlannedCode is why a pod of the input is neither pending nor bound to a node of the
// snapshot.
type NotPlannedCode string

// Not-planned reasons.
const (
	// Terminal: Succeeded or Failed, it runs nowhere any more.
	NotPlannedTerminal NotPlannedCode = "Terminal"
	// Terminating: deletionTimestamp set and not bound, it is going away.
	NotPlannedTerminating NotPlannedCode = "Terminating"
	// DaemonSetPod: the DaemonSet controller places it; it counts as DaemonSet overhead.
	NotPlannedDaemonSetPod NotPlannedCode = "DaemonSetPod"
	// NodeNotInInput: bound to a node the snapshot does not hold.
	NotPlannedNodeNotInInput NotPlannedCode = "NodeNotInInput"
)

// NotPlanned is a pod the snapshot neither plans nor counts on a node, with why.
type NotPlanned struct {
	Pod    *corev1.Pod
	Reason NotPlannedCode
}

// Message says in words why the pod is not planned.
func (n NotPlanned) Message() string {
	switch n.Reason {
	case NotPlannedTerminal:
		return fmt.Sprintf("phase %s: the pod has finished", n.Pod.Status.Phase)
	case NotPlannedTerminating:
		return "the pod is being deleted (metadata.deletionTimestamp) and is bound to no node"
	case NotPlannedDaemonSetPod:
		return "a DaemonSet pod: the DaemonSet controller places it on every node it admits, and its requests count as DaemonSet overhead"
	case NotPlannedNodeNotInInput:
		return fmt.Sprintf("bound to node %q (spec.nodeName), which the input does not hold", n.Pod.Spec.NodeName)
	}
	return string(n.Reason)
}

// notPlannedReason is why p is neither pending nor bound, or "" when it is one of them.
func (s *Snapshot) notPlannedReason(p *corev1.Pod) NotPlannedCode {
	if p.Spec.NodeName != "" {
		if _, ok := s.byName()[p.Spec.NodeName]; ok {
			return ""
		}
		return NotPlannedNodeNotInInput
	}
	switch {
	case IsTerminal(p):
		return NotPlannedTerminal
	case p.DeletionTimestamp != nil:
		return NotPlannedTerminating
	case IsDaemonSetPod(p):
		return NotPlannedDaemonSetPod
	}
	return ""
}
