package verify

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// schedulingInput is the disruption snapshot as a scheduling snapshot.
func (p *planWorld) schedulingInput() *scheduling.Input {
	in := p.in
	return &scheduling.Input{Pods: in.Pods, NodePools: in.NodePools, InstanceTypes: in.InstanceTypes,
		WellKnownLabels: in.WellKnownLabels, Nodes: in.Nodes, DaemonSets: in.DaemonSets,
		PersistentVolumeClaims: in.PersistentVolumeClaims, PersistentVolumes: in.PersistentVolumes,
		StorageClasses: in.StorageClasses, CSINodes: in.CSINodes, Namespaces: in.Namespaces}
}

// replacements checks each replacement like a new NodeClaim of Solve: its launch choice
// and that its pods fit it.
func (p *planWorld) replacements(ci int, cmd disruption.Command) []Violation {
	var out []Violation
	w := newWorld(p.schedulingInput())
	for i, c := range cmd.Replacements {
		if c == nil {
			continue
		}
		l := claimLocation(i, c)
		l.finish()
		vs := w.checkLaunch(l)
		if l.launched {
			vs = append(vs, w.checkFit(l)...)
		}
		for _, v := range vs {
			v.Command = ci
			out = append(out, v)
		}
	}
	return out
}

// movedPods are the pods a command's candidates must find a new home for: active or
// terminating StatefulSet pods that a DaemonSet or the kubelet do not own; under drift with
// a grace period, not the pods that block (they wait for the deadline).
func (p *planWorld) movedPods(cmd disruption.Command) []*corev1.Pod {
	var out []*corev1.Pod
	for _, name := range cmd.Candidates {
		n := p.nodes[name]
		if n == nil {
			continue
		}
		exempt := p.podsExempt(cmd, n.Node, name)
		for _, pod := range n.Pods {
			if pod == nil || isTerminal(pod) || isMirror(pod) || ownerKind(pod) == "DaemonSet" {
				continue
			}
			if isTerminating(pod) && ownerKind(pod) != "StatefulSet" {
				continue
			}
			if exempt && p.blocked(pod) {
				continue
			}
			out = append(out, pod)
		}
	}
	return out
}

// destinations: every pod moved off a disrupted node (not for expiration, which
// Karpenter carries out whether or not the pods fit elsewhere) is on one of the
// replacements or fits, by first-fit decreasing, a node no command disrupts or a
// replacement's room left — with its resources, node selector, taints and host ports.
func (p *planWorld) destinations(res *disruption.Result) []Violation {
	w := newWorld(p.schedulingInput())
	disrupted := map[string]bool{}
	for _, cmd := range res.Commands {
		for _, name := range cmd.Candidates {
			disrupted[name] = true
		}
	}
	var bins []*location
	for _, l := range w.locs {
		if !l.marked && !disrupted[l.name] {
			bins = append(bins, l)
		}
	}
	onReplacement := map[string]bool{}
	for _, cmd := range res.Commands {
		for i, c := range cmd.Replacements {
			if c == nil || c.InstanceType == nil || c.Offering == nil {
				continue
			}
			l := claimLocation(i, c)
			l.finish()
			bins = append(bins, l)
			for _, pod := range c.Pods {
				onReplacement[key(pod)] = true
			}
		}
	}
	type move struct {
		pod     *corev1.Pod
		command int
		node    string
		req     corev1.ResourceList
	}
	var moves []move
	for ci, cmd := range res.Commands {
		if cmd.Reason == disruption.ReasonExpired {
			continue
		}
		for _, pod := range p.movedPods(cmd) {
			if !onReplacement[key(pod)] {
				moves = append(moves, move{pod, ci, pod.Spec.NodeName, requests(pod)})
			}
		}
	}
	sort.SliceStable(moves, func(i, j int) bool {
		a, b := moves[i].req, moves[j].req
		if c := a.Cpu().Cmp(*b.Cpu()); c != 0 {
			return c > 0
		}
		if c := a.Memory().Cmp(*b.Memory()); c != 0 {
			return c > 0
		}
		return key(moves[i].pod) < key(moves[j].pod)
	})
	used := make([]corev1.ResourceList, len(bins))
	ports := make([][]hostPort, len(bins))
	for i, l := range bins {
		used[i] = corev1.ResourceList{}
		for _, q := range append(l.pods(), daemonsOn(p.in.DaemonSets, l)...) {
			addTo(used[i], requests(q))
			ports[i] = append(ports[i], hostPortsOf(q)...)
		}
	}
	var out []Violation
	for _, m := range moves {
		placed := false
		for i, l := range bins {
			if !matchesNode(m.pod, l.k8s) {
				continue
			}
			if _, bad := untolerated(m.pod.Spec.Tolerations, l.taints); bad {
				continue
			}
			if portClash(ports[i], hostPortsOf(m.pod)) || !fitsWith(used[i], m.req, l.alloc) {
				continue
			}
			addTo(used[i], m.req)
			ports[i] = append(ports[i], hostPortsOf(m.pod)...)
			placed = true
			break
		}
		if !placed {
			v := planViolation(PlanNoDestination, m.command, m.node)
			v.Pod = key(m.pod)
			out = append(out, v)
		}
	}
	return out
}

func portClash(have, want []hostPort) bool {
	for _, a := range want {
		for _, b := range have {
			if a.conflicts(b) {
				return true
			}
		}
	}
	return false
}

// fitsWith: used plus req stay within alloc for every requested resource.
func fitsWith(used, req, alloc corev1.ResourceList) bool {
	for name, q := range req {
		if q.Sign() <= 0 {
			continue
		}
		total := used[name]
		total.Add(q)
		if total.Cmp(alloc[name]) > 0 {
			return false
		}
	}
	return true
}
