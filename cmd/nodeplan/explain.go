package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The tables group pods that cannot be scheduled by owner and reason ("200 pods of
// Deployment shop/web: ..."); --explain lists, for each group, the cause per NodePool and
// per existing node, the one to fix first on the first line.

// podGroup is the pod errors of pods with one owner and the same reason.
type podGroup struct {
	owner string // "Deployment shop/web"; "" for a pod without a controller
	pods  []string
	err   scheduling.PodError // the first pod's
}

// groupPodErrors groups errors by owner and reason (with explain, by owner and every cause
// with its numbers), in order of first appearance.
func groupPodErrors(errs []scheduling.PodError, set *manifest.Set, explain bool) []*podGroup {
	deployments := map[string]bool{}
	for _, w := range set.Workloads {
		if w.Kind == "Deployment" {
			deployments[w.Namespace+"/"+w.Name] = true
		}
	}
	var out []*podGroup
	at := map[string]*podGroup{}
	for _, e := range errs {
		owner := ownerOf(e.Pod, deployments)
		key := owner + "\x00" + e.Message()
		if explain {
			key = owner + "\x00" + string(e.Code) + "\x00" + joinCauseTexts(e.Causes) + "\x00" + joinCauseTexts(e.NodeCauses)
		}
		if owner == "" {
			key = "\x00pod " + podName(e.Pod) // a pod of its own is its own group
		}
		g, ok := at[key]
		if !ok {
			g = &podGroup{owner: owner, err: e}
			at[key] = g
			out = append(out, g)
		}
		g.pods = append(g.pods, podName(e.Pod))
	}
	return out
}

func joinCauseTexts(cs []scheduling.Cause) string {
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = c.String()
	}
	return strings.Join(texts, "\x00")
}

// ownerOf names a pod's controller: its Deployment when a ReplicaSet of one controls it (by
// the pod-template-hash suffix, or a Deployment of the input of the ReplicaSet's name, as
// nodeplan names the ReplicaSets of the Deployments it expands; nil deployments: any
// ReplicaSet), else the controller's kind and name; "" without one.
func ownerOf(p *corev1.Pod, deployments map[string]bool) string {
	for _, r := range p.OwnerReferences {
		if r.Controller == nil || !*r.Controller {
			continue
		}
		name := p.Namespace + "/" + r.Name
		if r.Kind == "ReplicaSet" {
			if hash := p.Labels["pod-template-hash"]; hash != "" && strings.HasSuffix(r.Name, "-"+hash) {
				return "Deployment " + strings.TrimSuffix(name, "-"+hash)
			}
			if deployments == nil || deployments[name] {
				return "Deployment " + name
			}
		}
		return r.Kind + " " + name
	}
	return ""
}

// title is how a group is named: "200 pods of Deployment shop/web (shop/web-0, …)", "pod
// shop/web-0 of Deployment shop/web", "pod default/x".
func (g *podGroup) title() string {
	of := ""
	if g.owner != "" {
		of = " of " + g.owner
	}
	if len(g.pods) == 1 {
		return "pod " + g.pods[0] + of
	}
	return fmt.Sprintf("%d pods%s (%s)", len(g.pods), of, shortList(g.pods))
}

// writePodGroups prints the pods that cannot be scheduled, grouped; with explain each group
// is followed by its causes, one per line, the one to fix first.
func writePodGroups(w io.Writer, errs []scheduling.PodError, set *manifest.Set, explain bool) {
	if len(errs) == 0 {
		return
	}
	noun := "pods cannot"
	if len(errs) == 1 {
		noun = "pod cannot"
	}
	groups := groupPodErrors(errs, set, explain)
	if !explain {
		fmt.Fprintf(w, "\n%d %s be scheduled (--explain says why per NodePool and node):\n", len(errs), noun)
		for _, g := range groups {
			fmt.Fprintf(w, "  %s: %s\n", g.title(), g.err.Message())
		}
		return
	}
	fmt.Fprintf(w, "\n%d %s be scheduled (per group, the cause to fix first is on top):\n", len(errs), noun)
	pools := map[string]*v1.NodePool{}
	for _, np := range set.NodePools {
		pools[np.Name] = np
	}
	for _, g := range groups {
		fmt.Fprintf(w, "  %s:\n", g.title())
		for _, line := range explainPodError(g.err, pools) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

// maxNodeLines is how many existing nodes --explain names one by one per group; the rest are
// counted by cause.
const maxNodeLines = 10

// explainPodError is one line per cause of e: NodePools then existing nodes, each ordered by
// what to fix first (fixOrder), then as Solve listed them.
func explainPodError(e scheduling.PodError, pools map[string]*v1.NodePool) []string {
	pool, nodes := causesByFix(e)
	var lines []string
	for _, c := range pool {
		lines = append(lines, explainCause(c, pools))
	}
	for i, c := range nodes {
		if i == maxNodeLines {
			rest := scheduling.PodError{NodeCauses: nodes[i:]}
			lines = append(lines, fmt.Sprintf("… %d more nodes: %s", len(nodes)-i, rest.Summary()))
			break
		}
		lines = append(lines, "existing "+explainCause(c, pools))
	}
	return lines
}

// causesByFix are e's NodePool and node causes, each ordered by what to fix first, then as
// Solve listed them.
func causesByFix(e scheduling.PodError) (pool, nodes []scheduling.Cause) {
	pool = append([]scheduling.Cause(nil), e.Causes...)
	nodes = append([]scheduling.Cause(nil), e.NodeCauses...)
	for _, cs := range [][]scheduling.Cause{pool, nodes} {
		sort.SliceStable(cs, func(i, j int) bool { return fixOrder(cs[i].Code) < fixOrder(cs[j].Code) })
	}
	return pool, nodes
}

// fixOrder ranks reason codes by what to fix first: the pod or the input itself, then what
// excludes a NodePool or node whatever its size (taints, requirements, topology, ports,
// volumes), then a limit, then sizes, then availability.
func fixOrder(code scheduling.ReasonCode) int {
	switch code {
	case scheduling.ReasonInvalidPodSpec, scheduling.ReasonNotProvisionable, scheduling.ReasonVolumeUnresolved, scheduling.ReasonNoNodePool, scheduling.ReasonNodePoolNotReady:
		return 0
	case scheduling.ReasonUntoleratedTaint:
		return 1
	case scheduling.ReasonRequirementsUnsatisfiable:
		return 2
	case scheduling.ReasonTopologySpread, scheduling.ReasonPodAffinity, scheduling.ReasonPodAntiAffinity, scheduling.ReasonHostPort,
		scheduling.ReasonVolumeTopology, scheduling.ReasonVolumeAttachLimit, scheduling.ReasonMinValues:
		return 3
	case scheduling.ReasonNodePoolLimit:
		return 4
	case scheduling.ReasonInsufficientResource:
		return 5
	}
	return 6 // OfferingUnavailable, ConsolidateAfter, codes added later
}

// explainCause is c in English, a NodePool limit with the limit and what is used of it.
func explainCause(c scheduling.Cause, pools map[string]*v1.NodePool) string {
	np := pools[c.NodePool]
	if c.Code != scheduling.ReasonNodePoolLimit || np == nil || c.Resource == "" {
		return c.String()
	}
	limit, ok := np.Spec.Limits[corev1.ResourceName(c.Resource)]
	if !ok {
		return c.String()
	}
	if c.Resource == "nodes" {
		return fmt.Sprintf("NodePool %q: limit of %s nodes reached", c.NodePool, limit.String())
	}
	used := limit.DeepCopy()
	if c.Available != nil {
		used.Sub(*c.Available)
	}
	return fmt.Sprintf("NodePool %q: limit on %s is %s: %s used, %s left, but the smallest type that fits the pod has %s",
		c.NodePool, c.Resource, amount(c.Resource, &limit), amount(c.Resource, &used), amount(c.Resource, c.Available), amount(c.Resource, c.Needed))
}

// amount renders a quantity for people: cpu in cores, memory in binary units.
func amount(name string, q *resource.Quantity) string {
	if q == nil {
		return "?"
	}
	switch corev1.ResourceName(name) {
	case corev1.ResourceCPU:
		return trimFloat(float64(q.MilliValue()) / 1000)
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return bytesText(q.Value())
	}
	return q.String()
}

// writeBlockedNodes prints the nodes not disrupted: each with its first reason or, with
// explain, every blocker on a line of its own; a node that drifted or expires says so even
// when what keeps it is a budget or a replacement.
func writeBlockedNodes(w io.Writer, res *disruption.Result, explain bool) {
	if len(res.Blocked) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s not disrupted:\n", plural(len(res.Blocked), "node"))
	for _, b := range res.Blocked {
		var facts []string
		if b.Drift.Reason != "" {
			facts = append(facts, "drifted ("+b.Drift.String()+")")
		}
		if explain && b.ExpiresAt != nil {
			facts = append(facts, "expires "+rfc3339(*b.ExpiresAt))
		}
		head := b.Node
		if len(facts) > 0 {
			head += " [" + strings.Join(facts, ", ") + "]"
		}
		if !explain {
			fmt.Fprintf(w, "  %s: %s\n", head, b.Message())
			continue
		}
		fmt.Fprintf(w, "  %s:\n", head)
		for _, x := range b.Blockers {
			fmt.Fprintf(w, "    - %s\n", x)
		}
	}
}

// disruptPodErrors are the pod errors of a disrupt result, once per pod: pending pods and
// displaced pods the provisioner's pass finds no place for, pods whose drain waits without a
// place, and pods that keep a node because they cannot be rescheduled.
func disruptPodErrors(res *disruption.Result) []scheduling.PodError {
	var out []scheduling.PodError
	seen := map[string]bool{}
	add := func(e *scheduling.PodError) {
		if e == nil || e.Pod == nil || seen[podName(e.Pod)] {
			return
		}
		seen[podName(e.Pod)] = true
		out = append(out, *e)
	}
	for _, m := range res.PendingPods {
		add(m.Error)
	}
	for _, c := range res.Commands {
		for _, m := range c.Moves {
			add(m.Error)
		}
	}
	for _, d := range res.Drains {
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				add(p.PodError)
			}
		}
	}
	for _, b := range res.Blocked {
		for _, x := range b.Blockers {
			add(x.PodError)
		}
	}
	return out
}
