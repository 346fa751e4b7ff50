package main

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// eventNotPlanned is nodeplan's own event reason for an input pod it does not plan.
const eventNotPlanned = "NotPlanned"

// Why an input pod is neither planned nor kept where it is bound. Every pod of the input is
// placed, in podErrors, bound to a node of the input, or listed with one of these.
const (
	notPlannedTerminal     = "Terminal"       // Succeeded or Failed: it runs nowhere any more
	notPlannedTerminating  = "Terminating"    // deletionTimestamp set and not bound: it is going away
	notPlannedDaemonSetPod = "DaemonSetPod"   // the DaemonSet controller places it; it counts as DaemonSet overhead
	notPlannedNodeMissing  = "NodeNotInInput" // bound to a node the input does not hold
)

// notPlannedPod is an input pod nodeplan does not plan, with why (JSON `notPlanned`).
type notPlannedPod struct {
	pod     *corev1.Pod
	Pod     string `json:"pod"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// notPlannedReason is why snapshot leaves p out of both the pending pods and every node's
// bound pods, or "" when it does not.
func notPlannedReason(p *corev1.Pod, nodes map[string]*scheduling.Node) string {
	if p.Spec.NodeName != "" {
		if _, ok := nodes[p.Spec.NodeName]; ok {
			return ""
		}
		return notPlannedNodeMissing
	}
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return notPlannedTerminal
	case p.DeletionTimestamp != nil:
		return notPlannedTerminating
	case isDaemonSetPod(p):
		return notPlannedDaemonSetPod
	}
	return ""
}

func notPlannedMessage(p *corev1.Pod, reason string) string {
	switch reason {
	case notPlannedTerminal:
		return fmt.Sprintf("phase %s: the pod has finished", p.Status.Phase)
	case notPlannedTerminating:
		return "the pod is being deleted (metadata.deletionTimestamp) and is bound to no node"
	case notPlannedDaemonSetPod:
		return "a DaemonSet pod: the DaemonSet controller places it on every node it admits, and its requests count as DaemonSet overhead"
	case notPlannedNodeMissing:
		return fmt.Sprintf("bound to node %q (spec.nodeName), which the input does not hold", p.Spec.NodeName)
	}
	return reason
}

// notPlannedPods lists, sorted by pod name, the input pods snapshot left out.
func notPlannedPods(pods []*corev1.Pod, in *scheduling.Input) []notPlannedPod {
	nodes := nodesByName(in.Nodes)
	out := []notPlannedPod{}
	for _, p := range pods {
		if r := notPlannedReason(p, nodes); r != "" {
			out = append(out, notPlannedPod{pod: p, Pod: podName(p), Reason: r, Message: notPlannedMessage(p, r)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}

func nodesByName(nodes []*scheduling.Node) map[string]*scheduling.Node {
	out := make(map[string]*scheduling.Node, len(nodes))
	for _, n := range nodes {
		if n.Node != nil {
			out[n.Node.Name] = n
		} else if n.NodeClaim != nil {
			out[n.NodeClaim.Name] = n
		}
	}
	return out
}

// writeNotPlanned prints a one-line count per reason for the table outputs.
func writeNotPlanned(w interface{ Write([]byte) (int, error) }, pods []notPlannedPod) {
	if len(pods) == 0 {
		return
	}
	counts := map[string]int{}
	for _, p := range pods {
		counts[p.Reason]++
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	noun := "pods"
	if len(pods) == 1 {
		noun = "pod"
	}
	fmt.Fprintf(w, "\n%d input %s not planned (%s; -o json lists them)\n", len(pods), noun, strings.Join(parts, ", "))
}

// notPlannedEvents are -o yaml's record of the pods not planned, one Warning event each.
func notPlannedEvents(pods []notPlannedPod) []corev1.Event {
	out := make([]corev1.Event, 0, len(pods))
	for _, p := range pods {
		out = append(out, event(podRef(p.pod), p.pod.Name+".notplanned", corev1.EventTypeWarning, eventNotPlanned,
			p.Reason+": "+p.Message, "", nil))
	}
	return out
}
