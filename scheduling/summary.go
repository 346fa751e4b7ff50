package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// groupKey is what causes share to be counted together in a Summary: everything but the
// object and the amount available.
type groupKey struct {
	code                   ReasonCode
	key, requirement, res  string
	taint                  string
	port                   int32
	protocol               corev1.Protocol
	needed, detail         string
	instanceTypes, unavail int
}

func (c Cause) groupKey() groupKey {
	k := groupKey{code: c.Code, key: c.Key, requirement: c.Requirement, res: c.Resource, port: c.Port, protocol: c.Protocol,
		detail: c.Detail, instanceTypes: c.InstanceTypes, unavail: c.Unavailable}
	if c.Taint != nil {
		k.taint = c.Taint.ToString()
	}
	if c.Needed != nil {
		k.needed = c.Needed.String()
	}
	return k
}

// Summary counts the causes of one pod that was not placed, as kube-scheduler's "0/3 nodes
// are available" and Nomad's AllocMetric do.
type Summary struct {
	// Nodes and NodePools are the existing nodes (and in-flight NodeClaims) and the NodePools
	// that rejected the pod.
	Nodes, NodePools int
	// Counts are the causes grouped by everything but their object, most frequent first
	// (ties in order of first appearance: NodePools by weight, then nodes by name).
	Counts []CauseCount
}

// CauseCount is one group of a Summary.
type CauseCount struct {
	// Cause is the group's cause without its object (NodePool and Node empty); Available is
	// the largest of the group's.
	Cause Cause
	// Count is how many objects gave it; Nodes and NodePools split it by kind.
	Count, Nodes, NodePools int
}

// String is the count and the group's cause without an object ("3 untolerated taint
// team=a:NoSchedule").
func (g CauseCount) String() string {
	c := g.Cause
	// The amount's wording follows the kind of object when the group has one kind.
	switch {
	case g.Nodes == g.Count:
		c.Node = nodesGroup
	case g.NodePools == g.Count:
		c.NodePool = nodesGroup
	}
	return fmt.Sprintf("%d %s", g.Count, c.text())
}

// summarize groups causes.
func summarize(causes ...[]Cause) Summary {
	var s Summary
	at := map[groupKey]int{}
	for _, cs := range causes {
		for _, c := range cs {
			k := c.groupKey()
			i, ok := at[k]
			if !ok {
				i = len(s.Counts)
				at[k] = i
				g := c
				g.Node, g.NodePool = "", ""
				s.Counts = append(s.Counts, CauseCount{Cause: g})
			}
			g := &s.Counts[i]
			g.Count++
			if c.Node != "" {
				g.Nodes++
				s.Nodes++
			} else if c.NodePool != "" {
				g.NodePools++
				s.NodePools++
			}
			if c.Available != nil && g.Cause.Available != nil && c.Available.Cmp(*g.Cause.Available) > 0 {
				g.Cause.Available = c.Available
			}
		}
	}
	// Stable: ties keep their order of first appearance.
	for i := 1; i < len(s.Counts); i++ {
		for j := i; j > 0 && s.Counts[j].Count > s.Counts[j-1].Count; j-- {
			s.Counts[j], s.Counts[j-1] = s.Counts[j-1], s.Counts[j]
		}
	}
	return s
}

// String is "0/3 nodes and 0/2 NodePools available: 2 untolerated taint ..., 3 insufficient
// cpu (needs 4, at most 3.92 available)".
func (s Summary) String() string {
	var of []string
	if s.Nodes > 0 {
		of = append(of, fmt.Sprintf("0/%d nodes", s.Nodes))
	}
	if s.NodePools > 0 {
		of = append(of, fmt.Sprintf("0/%d NodePools", s.NodePools))
	}
	parts := make([]string, len(s.Counts))
	for i, g := range s.Counts {
		parts[i] = g.String()
	}
	if len(of) == 0 {
		return strings.Join(parts, ", ")
	}
	return strings.Join(of, " and ") + " available: " + strings.Join(parts, ", ")
}

// PodError says why a pod could not be placed.
type PodError struct {
	Pod *corev1.Pod
	// Code classifies the error: NoNodePool when no NodePool can launch nodes, else the
	// first cause's (NodePools are tried by weight).
	Code ReasonCode
	// Causes are the NodePool-level causes, one per NodePool tried in weight order (or the
	// single cause of a pod never tried, or of a NodeClaim that could not launch); never
	// empty.
	Causes []Cause
	// NodeCauses say why each existing node and in-flight NodeClaim rejected the pod (Node
	// set, by name, uninitialized nodes last), as the pod stood when Solve ended with all its
	// preferences relaxed; empty for a pod never tried.
	NodeCauses []Cause
}

// Summary counts the pod's causes per NodePool and per node.
func (e PodError) Summary() Summary { return summarize(e.Causes, e.NodeCauses) }

// Message is the error in English: the single cause of a pod never tried, else the summary
// of its causes (and why no NodePool could launch anything).
func (e PodError) Message() string {
	if e.Code == ReasonNoNodePool {
		var head string
		if len(e.NodeCauses) > 0 {
			head = summarize(e.NodeCauses).String() + "; "
		}
		if len(e.Causes) == 1 && e.Causes[0].Code == ReasonNoNodePool {
			return head + e.Causes[0].String()
		}
		return head + "no NodePool can launch nodes: " + joinCauses(e.Causes)
	}
	if len(e.NodeCauses) == 0 && len(e.Causes) == 1 && (e.Causes[0].NodePool == "" || e.Code == ReasonLaunchRefused) {
		return e.Causes[0].String()
	}
	return e.Summary().String()
}

func joinCauses(cs []Cause) string {
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = c.String()
	}
	return strings.Join(texts, "; ")
}
