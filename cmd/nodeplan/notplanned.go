package main

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
)

// eventNotPlanned is nodeplan's own event reason for an input pod it does not plan.
const eventNotPlanned = "NotPlanned"

// Why an input pod is neither planned nor kept where it is bound (cluster.NotPlannedCode).
// Every pod of the input is placed, in podErrors, bound to a node of the input, or listed
// with one of these.
const (
	notPlannedTerminal     = string(cluster.NotPlannedTerminal)
	notPlannedTerminating  = string(cluster.NotPlannedTerminating)
	notPlannedDaemonSetPod = string(cluster.NotPlannedDaemonSetPod)
	notPlannedNodeMissing  = string(cluster.NotPlannedNodeNotInInput)
)

// notPlannedPod is an input pod nodeplan does not plan, with why (JSON `notPlanned`).
type notPlannedPod struct {
	pod     *corev1.Pod
	Pod     string `json:"pod"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// notPlannedPods lists, sorted by pod name, the input pods the snapshot left out.
func notPlannedPods(snap *cluster.Snapshot) []notPlannedPod {
	out := []notPlannedPod{}
	for _, n := range snap.NotPlanned() {
		out = append(out, notPlannedPod{pod: n.Pod, Pod: podName(n.Pod), Reason: string(n.Reason), Message: n.Message()})
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
