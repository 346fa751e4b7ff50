package verify

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// leaving are the pods a command's candidates must leave, in order: not finished, not
// DaemonSet or mirror pods, not terminating unless a StatefulSet's.
func (p *planWorld) leaving(cmd disruption.Command) []movedPod {
	var out []movedPod
	for _, name := range cmd.Candidates {
		n := p.nodes[name]
		if n == nil {
			continue
		}
		for _, pod := range n.Pods {
			if pod != nil && mustMove(pod) {
				out = append(out, movedPod{pod, name})
			}
		}
	}
	return out
}

// displaced are the leaving pods by namespace/name, with their node.
func (p *planWorld) displaced(cmd disruption.Command) map[string]string {
	out := map[string]string{}
	for _, m := range p.leaving(cmd) {
		out[key(m.pod)] = m.node
	}
	return out
}

// moves checks every command's per-pod destinations (Command.Moves) and the pending pods'
// (Result.PendingPods): each displaced or pending pod is listed once and nothing else is;
// each move names one destination, or a reason the command's kind allows (a pending pod:
// Unschedulable or Unlaunchable); a node destination exists and is not disrupted; a claim
// destination is in range and lists the pod; and the pods a simulation sends to one existing
// node fit it with the pods bound there (resources with DaemonSet pods to come, node
// selection, taints, host ports, volumes). The forceful commands' moves and the pending pods
// are the provisioner pass's, one simulation: they are fitted together; every other
// command's alone.
func (p *planWorld) moves(res *disruption.Result) []Violation {
	var out []Violation
	w := p.world()
	provisioner := &moveSim{command: -1, onto: map[string][]*corev1.Pod{}}
	sims := []*moveSim{provisioner}
	for ci, cmd := range res.Commands {
		s := provisioner
		if !cmd.Reason.Forceful() {
			s = &moveSim{command: ci, onto: map[string][]*corev1.Pod{}}
			sims = append(sims, s)
		}
		out = append(out, p.checkMoves(res, ci, cmd.Moves, cmd.Replacements, p.displaced(cmd), s, func(m disruption.PodMove, from string) bool {
			return p.pendingAllowed(cmd, m, from)
		})...)
	}
	pending := map[string]string{}
	for _, pod := range p.snap.Pending() {
		pending[key(pod)] = ""
	}
	out = append(out, p.checkMoves(res, -1, res.PendingPods, nil, pending, provisioner, func(m disruption.PodMove, _ string) bool {
		return m.Pending == disruption.MoveUnschedulable || m.Pending == disruption.MoveUnlaunchable
	})...)
	for _, s := range sims {
		for _, name := range sortedKeysOf(s.onto) {
			base := w.byName[name]
			if base == nil {
				continue
			}
			l := *base
			l.placed = s.onto[name]
			for _, v := range w.checkFit(&l) {
				v.Command = s.command
				out = append(out, v)
			}
		}
	}
	return out
}

// moveSim is the pods one simulation sends to existing nodes, by node name; command is the
// command reported for fit violations (-1: the provisioner's pass).
type moveSim struct {
	command int
	onto    map[string][]*corev1.Pod
}

// checkMoves checks the moves of command number ci (-1: the pending pods) against want, the
// pods that must be listed (namespace/name to the node they leave, "" for a pending pod);
// replacements are the command's claims, allowed says whether a move may have no
// destination. The moves onto existing nodes are added to s.
func (p *planWorld) checkMoves(res *disruption.Result, ci int, moves []disruption.PodMove, replacements []*scheduling.NodeClaim,
	want map[string]string, s *moveSim, allowed func(m disruption.PodMove, from string) bool) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, m := range moves {
		if m.Pod == nil {
			out = append(out, planViolation(PlanMoveMalformed, ci, m.From))
			continue
		}
		k := key(m.Pod)
		v := planViolation("", ci, m.To)
		v.Pod, v.Claim = k, m.Claim
		from, ok := want[k]
		switch {
		case seen[k]:
			v.Code = PlanMoveTwice
		case !ok || m.From != from:
			v.Code, v.Node = PlanMoveNotDisplaced, m.From
		case destinationsOf(m) != 1 || (m.Pending == disruption.MoveUnschedulable) != (m.Error != nil):
			v.Code = PlanMoveMalformed
		case m.To != "" && p.nodes[m.To] == nil:
			v.Code = PlanMoveNodeUnknown
		case m.To != "" && (p.held[m.To] || isMarked(p.nodes[m.To])):
			v.Code = PlanMoveNodeDisrupted
		case m.Claim >= len(replacements), m.Provisioned >= len(res.Provisioned),
			m.Claim >= 0 && replacements[m.Claim] == nil,
			m.Provisioned >= 0 && res.Provisioned[m.Provisioned] == nil:
			v.Code = PlanMoveClaimUnknown
		case m.Claim >= 0 && !slices.Contains(replacements[m.Claim].Pods, m.Pod),
			m.Provisioned >= 0 && !slices.Contains(res.Provisioned[m.Provisioned].Pods, m.Pod):
			v.Code = PlanMoveNotOnClaim
		case m.Pending != "" && !allowed(m, from):
			v.Code, v.Key, v.Node = PlanNoDestination, string(m.Pending), from
		}
		seen[k] = true
		if v.Code != "" {
			out = append(out, v)
			continue
		}
		if m.To != "" {
			s.onto[m.To] = append(s.onto[m.To], m.Pod)
		}
	}
	for _, k := range sortedKeysOf(want) {
		if !seen[k] {
			v := planViolation(PlanMoveMissing, ci, want[k])
			v.Pod = k
			out = append(out, v)
		}
	}
	return out
}

// destinationsOf counts what m sets of Node, Replacement, Provisioned and Pending.
func destinationsOf(m disruption.PodMove) int {
	n := 0
	for _, set := range []bool{m.To != "", m.Claim >= 0, m.Provisioned >= 0, m.Pending != ""} {
		if set {
			n++
		}
	}
	return n
}

// pendingAllowed: a pod may be left without a destination by a forceful command (which goes
// ahead regardless), but only waits where a blocker keeps it; by drift with a grace period
// when a blocker keeps it; by emptiness, which simulates nothing. Any other command must give
// every pod it displaces a home.
func (p *planWorld) pendingAllowed(cmd disruption.Command, m disruption.PodMove, from string) bool {
	switch m.Pending {
	case disruption.MoveWaits:
		return p.podsExempt(cmd, from) && p.blocked(m.Pod)
	case disruption.MoveUnschedulable, disruption.MoveUnlaunchable:
		return cmd.Reason.Forceful()
	case disruption.MoveNotSimulated:
		return cmd.Method == disruption.MethodEmptiness
	}
	return false
}
