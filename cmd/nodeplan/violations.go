package main

import (
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/htmlpage"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// In Karpenter mode (--packing Karpenter) plan gives Karpenter's answer even where it breaks a
// required constraint once launched, and says which: verify's violations, in every output
// format, so a user sees Karpenter's defect instead of a silently repaired plan.

// violationOutput is one verify.Violation in -o json.
type violationOutput struct {
	Code     verify.ViolationCode `json:"code"`
	Pod      string               `json:"pod,omitempty"`
	OtherPod string               `json:"otherPod,omitempty"`
	Node     string               `json:"node,omitempty"`
	// Claim is the 0-based index of the NodeClaim in nodeClaims (absent: none).
	Claim    *int   `json:"claim,omitempty"`
	NodePool string `json:"nodePool,omitempty"`
	Key      string `json:"key,omitempty"`
	Got      int64  `json:"got,omitempty"`
	Limit    int64  `json:"limit,omitempty"`
	Message  string `json:"message"`
}

// planViolations are verify's violations of a Karpenter-mode plan (nil in the default mode,
// whose plans hold every rule: the tests hold it to verify).
func planViolations(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) []violationOutput {
	if opts.Packing != scheduling.PackingKarpenter {
		return nil
	}
	var out []violationOutput
	for _, v := range verify.Solve(snap, opts, res) {
		o := violationOutput{Code: v.Code, Pod: v.Pod, OtherPod: v.OtherPod, Node: v.Node, NodePool: v.NodePool, Key: v.Key, Got: v.Got, Limit: v.Limit, Message: v.String()}
		if v.Claim >= 0 {
			claim := v.Claim
			o.Claim = &claim
		}
		out = append(out, o)
	}
	return out
}

// writeViolationsTable lists the violations after the plan's tables.
func writeViolationsTable(w io.Writer, vs []violationOutput) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nKarpenter's plan breaks %d required rules as launched (verify):\n", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "  %s\n", v.Message)
	}
}

// writeViolationsHTML lists the violations on plan's page, above the nodes, as the table does.
func writeViolationsHTML(p *htmlpage.Page, vs []violationOutput) {
	if len(vs) == 0 {
		return
	}
	p.Heading(2, fmt.Sprintf("Karpenter's plan breaks %d required rules as launched", len(vs)))
	p.Paragraph("muted", "verify's findings: the rules these pods' placements break once the NodeClaims launch.")
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.Message
	}
	p.List(lines)
}

// eventConstraintViolated is nodeplan's own event reason: a rule Karpenter's plan breaks once
// launched.
const eventConstraintViolated = "ConstraintViolated"

// violationEvents are a Warning event per violation, about its pod (or NodePool, claim or
// node when no pod is concerned).
func violationEvents(vs []violationOutput, res *scheduling.Result) []corev1.Event {
	var out []corev1.Event
	for i, v := range vs {
		var obj *corev1.ObjectReference
		switch {
		case v.Pod != "":
			ns, name, _ := strings.Cut(v.Pod, "/")
			obj = &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: name}
		case v.Claim != nil && *v.Claim < len(res.NewNodeClaims):
			obj = nodeClaimRef(planClaimNames(res)[*v.Claim])
		case v.Node != "":
			obj = nodeRef(v.Node)
		default:
			obj = &corev1.ObjectReference{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: v.NodePool}
		}
		out = append(out, event(obj, fmt.Sprintf("%s.violation-%d", obj.Name, i+1), corev1.EventTypeWarning, eventConstraintViolated, v.Message, "", nil))
	}
	return out
}
