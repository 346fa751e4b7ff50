package main

import (
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// -o yaml prints what Karpenter would create: NodeClaims, and the Events it records for what
// it decided (a Nominated or FailedScheduling event per pod, DisruptionTerminating,
// DisruptionLaunching and DisruptionBlocked per node), so that no part of the answer is lost.

// Karpenter's event reasons.
const (
	eventNominated             = "Nominated"
	eventFailedScheduling      = "FailedScheduling"
	eventDisruptionTerminating = "DisruptionTerminating"
	eventDisruptionLaunching   = "DisruptionLaunching"
	eventDisruptionBlocked     = "DisruptionBlocked"
	// eventDisruptionDestination is nodeplan's own: an existing node (or in-flight NodeClaim)
	// a command's simulation sends the candidates' pods to, which Karpenter records nowhere.
	eventDisruptionDestination = "DisruptionDestination"
)

func nodeClaimRef(name string) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim, Name: name}
}

func nodeRef(name string) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: name}
}

func podRef(p *corev1.Pod) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// event is one Event Karpenter would record about obj; related is the other object concerned
// (the node a pod is nominated to), action what was decided.
func event(obj *corev1.ObjectReference, name, eventType, reason, message, action string, related *corev1.ObjectReference) corev1.Event {
	ns := obj.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault // events about cluster-scoped objects live in default
	}
	return corev1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          metav1.ObjectMeta{Name: name, Namespace: ns},
		InvolvedObject:      *obj,
		Reason:              reason,
		Message:             message,
		Type:                eventType,
		Action:              action,
		Related:             related,
		Count:               1,
		Source:              corev1.EventSource{Component: "karpenter"},
		ReportingController: "karpenter",
	}
}

// planEvents are the events of a plan: a Nominated event for every pod placed (on a new
// NodeClaim, an existing node or an in-flight NodeClaim), FailedScheduling for every other;
// names are the new NodeClaims' names.
func planEvents(res *scheduling.Result, names []string, set *manifest.Set) []corev1.Event {
	var out []corev1.Event
	nominate := func(p *corev1.Pod, target *corev1.ObjectReference) {
		out = append(out, event(podRef(p), p.Name+".nominated", corev1.EventTypeNormal, eventNominated,
			"Pod should schedule on: "+strings.ToLower(target.Kind)+"/"+target.Name, "", target))
	}
	for i, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			nominate(p, nodeClaimRef(names[i]))
		}
	}
	var target *corev1.ObjectReference
	for i, b := range res.Bindings {
		if i == 0 || b.To != res.Bindings[i-1].To {
			target = existingRef(set, b.To)
		}
		nominate(b.Pod, target)
	}
	for _, e := range res.PodErrors {
		out = append(out, event(podRef(e.Pod), e.Pod.Name+".failed-scheduling", corev1.EventTypeWarning, eventFailedScheduling,
			"Failed to schedule pod, "+e.Message(), "", nil))
	}
	return out
}

// existingRef is the Node of that name, or the in-flight NodeClaim when the input has no such
// Node yet.
func existingRef(set *manifest.Set, name string) *corev1.ObjectReference {
	for _, n := range set.Nodes {
		if n.Name == name {
			return nodeRef(name)
		}
	}
	return nodeClaimRef(name)
}

// disruptEvents are the events of the disruption commands, named after the command they belong
// to (command-N, as the comments on the replacement NodeClaims): the candidates terminated,
// the replacements launched, the existing nodes the candidates' pods go to; and of the blocked
// nodes. names are the -o yaml names of the provisioned NodeClaims, then of the replacements in
// command order.
func disruptEvents(res *disruption.Result, names []string, set *manifest.Set) []corev1.Event {
	var out []corev1.Event
	k := len(res.Provisioned)
	for i, c := range res.Commands {
		command := fmt.Sprintf("command-%d", i+1)
		decision := "Delete"
		var launch *corev1.ObjectReference
		if len(c.Replacements) > 0 {
			decision, launch = "Replace", nodeClaimRef(names[k])
		}
		action := string(c.Method) + "/" + decision
		for _, n := range c.Candidates {
			out = append(out, event(existingRef(set, n), n+"."+command, corev1.EventTypeNormal, eventDisruptionTerminating,
				fmt.Sprintf("Disrupting Node: %s/%s (the command saves $%.4f/h)", c.Reason, decision, c.SavingsPerHour), action, launch))
		}
		first := k
		for range c.Replacements {
			out = append(out, event(nodeClaimRef(names[k]), names[k]+"."+command, corev1.EventTypeNormal, eventDisruptionLaunching,
				"Launching NodeClaim: "+string(c.Reason)+"/"+decision, action, nil))
			k++
		}
		out = append(out, moveEvents(c, command, action, names[first:k], set)...)
		for _, d := range c.Destinations {
			out = append(out, event(existingRef(set, d), d+"."+command, corev1.EventTypeNormal, eventDisruptionDestination,
				"Receives pods of "+strings.Join(c.Candidates, ", ")+": "+string(c.Reason)+"/"+decision, action, nil))
		}
	}
	for _, b := range res.Blocked {
		out = append(out, event(existingRef(set, b.Node), b.Node+".blocked", corev1.EventTypeNormal, eventDisruptionBlocked, b.Message(), "", nil))
	}
	return out
}

// moveEvents nominate each pod the command moves to an existing node or one of its
// replacements (replacements are their -o yaml names) to it, as the provisioner would once
// the pod leaves, and record FailedScheduling for a pod the provisioner's pass found no
// place for. A pod sent to a provisioned NodeClaim has its Nominated event with the
// provisioned claims; a pod that waits or was not simulated has none.
func moveEvents(c disruption.Command, command, action string, replacements []string, set *manifest.Set) []corev1.Event {
	var out []corev1.Event
	for _, m := range c.Moves {
		var target *corev1.ObjectReference
		switch {
		case m.To != "":
			target = existingRef(set, m.To)
		case m.Claim >= 0 && m.Claim < len(replacements):
			target = nodeClaimRef(replacements[m.Claim])
		case m.Pending == disruption.MoveUnschedulable && m.Error != nil:
			out = append(out, event(podRef(m.Pod), m.Pod.Name+"."+command+".failed-scheduling", corev1.EventTypeWarning, eventFailedScheduling,
				"Failed to schedule pod, "+m.Error.Message(), action, nil))
			continue
		default:
			continue
		}
		out = append(out, event(podRef(m.Pod), m.Pod.Name+"."+command+".nominated", corev1.EventTypeNormal, eventNominated,
			"Pod should schedule on: "+strings.ToLower(target.Kind)+"/"+target.Name, action, target))
	}
	return out
}

// writeEventList prints events as one v1 List document, after a comment; nothing when there
// are none.
func writeEventList(w io.Writer, comment string, events []corev1.Event) error {
	if len(events) == 0 {
		return nil
	}
	list := struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Items      []corev1.Event `json:"items"`
	}{"v1", "List", events}
	b, err := yaml.Marshal(list)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "---\n# %s\n%s", comment, b)
	return err
}
