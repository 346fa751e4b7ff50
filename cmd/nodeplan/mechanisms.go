package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/disruption"
)

// interruptionOutput is one entry of `disrupt -o json`'s interruptions: what one event did to
// one instance (see DESIGN.md).
type interruptionOutput struct {
	Kind        string `json:"kind"`
	EventID     string `json:"eventID,omitempty"`
	Time        string `json:"time,omitempty"`
	InstanceID  string `json:"instanceID"`
	Node        string `json:"node,omitempty"`
	Outcome     string `json:"outcome"`
	Command     int    `json:"command,omitempty"`
	Unavailable string `json:"unavailable,omitempty"`
}

// drainOutput is one node's termination plan in `disrupt -o json`'s drains.
type drainOutput struct {
	Node         string             `json:"node"`
	Command      int                `json:"command,omitempty"`
	Since        string             `json:"since"`
	Taint        string             `json:"taint"`
	Deadline     string             `json:"deadline,omitempty"`
	Forceful     bool               `json:"forceful,omitempty"`
	Groups       []drainGroupOutput `json:"groups"`
	LeftAlone    []podDrainOutput   `json:"leftAlone"`
	Terminates   string             `json:"terminates"`
	TerminatesAt string             `json:"terminatesAt,omitempty"`
	// StallCode is the disruption.StallCode, Stalled its English, Waiting the pods waited for.
	StallCode string   `json:"stallCode,omitempty"`
	Stalled   string   `json:"stalled,omitempty"`
	Waiting   []string `json:"waiting,omitempty"`
}

type drainGroupOutput struct {
	Class string           `json:"class"`
	Pods  []podDrainOutput `json:"pods"`
}

// podDrainOutput is a disruption.PodDrain: code is its PodDrainCode (reason its English) with
// the PDBs, allowance or annotation it concerns; pendingCode its PendingCode (pending its
// English) with the NodePool or pod error.
type podDrainOutput struct {
	Pod         string          `json:"pod"`
	Action      string          `json:"action"`
	Code        string          `json:"code,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	PDB         string          `json:"pdb,omitempty"`
	PDBs        []string        `json:"pdbs,omitempty"`
	Allowed     *int            `json:"allowed,omitempty"`
	Annotation  string          `json:"annotation,omitempty"`
	Until       string          `json:"until,omitempty"`
	DeleteAt    string          `json:"deleteAt,omitempty"`
	Destination string          `json:"destination,omitempty"`
	PendingCode string          `json:"pendingCode,omitempty"`
	Pending     string          `json:"pending,omitempty"`
	NodePool    string          `json:"nodePool,omitempty"`
	PodError    *podErrorOutput `json:"podError,omitempty"`
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return rfc3339(*t)
}

func interruptionsOutput(res *disruption.Result) []interruptionOutput {
	out := []interruptionOutput{}
	for _, o := range res.Interruptions {
		row := interruptionOutput{Kind: string(o.Kind), EventID: o.EventID, InstanceID: o.InstanceID, Node: o.Node,
			Outcome: string(o.Code), Command: o.Command, Unavailable: o.Unavailable.String()}
		if !o.Time.IsZero() {
			row.Time = rfc3339(o.Time)
		}
		out = append(out, row)
	}
	return out
}

func drainsOutput(res *disruption.Result) []drainOutput {
	out := []drainOutput{}
	for _, d := range res.Drains {
		do := drainOutput{Node: d.Node, Command: d.Command, Since: rfc3339(d.Since),
			Taint:    fmt.Sprintf("%s:%s", d.Taint.Key, d.Taint.Effect),
			Deadline: optTime(d.Deadline), Forceful: d.Forceful, Groups: []drainGroupOutput{}, LeftAlone: []podDrainOutput{},
			Terminates: string(d.Terminates), TerminatesAt: optTime(d.TerminatesAt), StallCode: string(d.StallCode), Stalled: d.StallMessage(), Waiting: d.Waiting}
		for _, g := range d.Groups {
			grp := drainGroupOutput{Class: string(g.Class), Pods: []podDrainOutput{}}
			for _, p := range g.Pods {
				grp.Pods = append(grp.Pods, podDrainOf(p))
			}
			do.Groups = append(do.Groups, grp)
		}
		for _, p := range d.LeftAlone {
			do.LeftAlone = append(do.LeftAlone, podDrainOf(p))
		}
		out = append(out, do)
	}
	return out
}

func podDrainOf(p disruption.PodDrain) podDrainOutput {
	out := podDrainOutput{Pod: podName(p.Pod), Action: string(p.Action), Code: string(p.Code), Reason: p.Message(),
		PDB: p.PDB, PDBs: p.PDBs, Annotation: p.Annotation, Until: optTime(p.Until), DeleteAt: optTime(p.DeleteAt),
		Destination: p.Destination, PendingCode: string(p.PendingCode), Pending: p.PendingMessage(), NodePool: p.NodePool,
		PodError: optPodError(p.PodError)}
	if p.Code == disruption.PodDrainPDBGranted {
		out.Allowed = &p.Allowed
	}
	return out
}

// writeMechanismsTable adds the interruption outcomes and the drain plans to the table.
func writeMechanismsTable(w io.Writer, res *disruption.Result) {
	if len(res.Interruptions) > 0 {
		fmt.Fprintf(w, "\n%d interruption events:\n", len(res.Interruptions))
		for _, o := range res.Interruptions {
			line := fmt.Sprintf("  %s %s", o.Kind, orDash(o.InstanceID))
			if o.Node != "" {
				line += " (" + o.Node + ")"
			}
			line += ": " + string(o.Code)
			if o.Command > 0 {
				line += fmt.Sprintf(", command %d", o.Command)
			}
			if u := o.Unavailable.String(); u != "" {
				line += ", " + u + " unavailable"
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(res.Drains) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d drain plans (taint %s:NoSchedule, then evictions group by group):\n", len(res.Drains), res.Drains[0].Taint.Key)
	for _, d := range res.Drains {
		by := "deleting in the input"
		if d.Command > 0 {
			by = fmt.Sprintf("command %d", d.Command)
		}
		head := fmt.Sprintf("  %s (%s, since %s", d.Node, by, rfc3339(d.Since))
		if d.Deadline != nil {
			head += ", deadline " + rfc3339(*d.Deadline)
		}
		if d.Forceful {
			head += ", forceful"
		}
		fmt.Fprintf(w, "%s): instance terminated %s\n", head, terminationText(d))
		for _, g := range d.Groups {
			var pods []string
			for _, p := range g.Pods {
				pods = append(pods, podText(p))
			}
			fmt.Fprintf(w, "    %s: %s\n", g.Class, strings.Join(pods, "; "))
		}
		if len(d.LeftAlone) > 0 {
			var pods []string
			for _, p := range d.LeftAlone {
				pods = append(pods, podName(p.Pod)+" ("+p.Message()+")")
			}
			fmt.Fprintf(w, "    left alone: %s\n", strings.Join(pods, "; "))
		}
	}
}

func terminationText(d disruption.Drain) string {
	switch d.Terminates {
	case disruption.TerminationAtDeadline:
		return "at " + optTime(d.TerminatesAt) + " at the latest"
	case disruption.TerminationBlocked:
		return "never while pods wait (" + d.StallMessage() + ")"
	}
	return "after the drain"
}

func podText(p disruption.PodDrain) string {
	s := podName(p.Pod) + " " + string(p.Action)
	if p.DeleteAt != nil {
		s += " until " + rfc3339(*p.DeleteAt)
	}
	switch {
	case p.Destination != "":
		s += " -> " + p.Destination
	case p.PendingCode != "":
		s += " -> pending"
	}
	return s
}

// writeDrainsYAML ends `disrupt -o yaml` with the interruption outcomes and the drain plans,
// one document in the JSON contract's shape.
func writeDrainsYAML(w io.Writer, res *disruption.Result) error {
	if len(res.Interruptions) == 0 && len(res.Drains) == 0 {
		return nil
	}
	doc := struct {
		Interruptions []interruptionOutput `json:"interruptions"`
		Drains        []drainOutput        `json:"drains"`
	}{interruptionsOutput(res), drainsOutput(res)}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "---\n# the termination finalizer's drain plans and what each interruption event did (nodeplan's own record)\n%s", b)
	return err
}
