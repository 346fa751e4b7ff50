package disruption

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Apply is snap after cmd (a command of a Plan of snap) was carried out: launched[i] is what
// CloudProvider.Create returned for cmd.Replacements[i] (nil: not launched), added in flight
// with the pods the replacement was planned for bound to it; the candidates are gone, and each
// of their pods that moves (cluster.NeedsNewNode) is bound where cmd.Moves sends it: to its
// existing node (or in-flight claim), or to the launched claim of its replacement. The others
// are pending, for the next Solve to place: those cmd.Moves gives no destination, sends to a
// Result.Provisioned claim (the provisioner's, not the command's) or to a replacement not
// launched, and those it does not list (a terminating pod). A move to a node the snapshot
// does not hold or that the command deletes, to a replacement out of range, or of a pod that
// does not move off a candidate is a *cluster.InvalidInputError (InputNotFound or
// InputMismatch), as are a nil snapshot, launched not aligned with cmd.Replacements, and
// Carry's errors.
//
// Each command's Moves are its own simulation's, which planned the pods of the commands
// before it in the same Result again (as Karpenter's simulations do) and may have put them
// elsewhere than those commands' Moves: after applying a command that moves pods, Plan again
// before applying a later one, or a node may get both commands' pods. (The forceful commands
// at the start of a Result share one simulation, the provisioner's, and may be applied
// together.) Result.Batch picks the commands that may be applied so.
func Apply(snap *cluster.Snapshot, cmd Command, launched []*v1.NodeClaim) (*cluster.Snapshot, error) {
	const op = "disruption.Apply"
	switch {
	case snap == nil:
		return nil, invalid(op, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	case len(launched) != len(cmd.Replacements):
		return nil, invalid(op, cluster.InputMismatch, "", "", "launched", "%d launched NodeClaims for %d replacements", len(launched), len(cmd.Replacements))
	}
	candidate := map[*cluster.Node]bool{}
	var displaced []*corev1.Pod
	for _, name := range cmd.Candidates {
		n := snap.Find(name)
		if n == nil {
			return nil, invalid(op, cluster.InputNotFound, "Node", name, "", "a candidate of the command, not in the snapshot")
		}
		candidate[n] = true
		for _, p := range n.Pods {
			if cluster.NeedsNewNode(p) {
				displaced = append(displaced, p)
			}
		}
	}
	dest := map[string]cluster.Move{} // pod key -> where it goes next (no To or Claim: pending)
	for i, m := range cmd.Moves {
		if m.Pod == nil {
			return nil, invalid(op, cluster.InputNil, "Pod", "", fmt.Sprintf("cmd.Moves[%d].Pod", i), "is nil")
		}
		k := cluster.PodKey(m.Pod)
		d := cluster.Move{Claim: -1}
		switch {
		case m.To != "":
			n := snap.Find(m.To)
			if n == nil || candidate[n] {
				return nil, invalid(op, cluster.InputNotFound, "Pod", k, "", "moves to node %q, which the snapshot does not hold or the command deletes", m.To)
			}
			d.To = n.BindName()
		case m.Claim >= len(launched):
			return nil, invalid(op, cluster.InputMismatch, "Pod", k, "", "moves to replacement %d of %d", m.Claim, len(launched))
		case m.Claim >= 0:
			d.Claim = m.Claim
		}
		dest[k] = d
	}
	var moves []cluster.Move
	for _, p := range displaced {
		k := cluster.PodKey(p)
		if d, ok := dest[k]; ok && (d.To != "" || d.Claim >= 0) {
			d.Pod, d.From = p, p.Spec.NodeName
			moves = append(moves, d)
		}
		delete(dest, k)
	}
	if len(dest) > 0 {
		pods := slices.Sorted(maps.Keys(dest))
		return nil, invalid(op, cluster.InputMismatch, "Pod", pods[0], "", "cmd.Moves lists pods %v, which do not move off a candidate", pods)
	}
	// Carry binds the moves first: a displaced pod without one (or whose replacement was not
	// launched) is pending.
	return snap.Without(cmd.Candidates...).Carry(launched, append(moves, scheduling.ClaimMoves(cmd.Replacements)...), displaced)
}

// Batch is the commands of r a host may carry out one after another with Apply on the
// snapshot r was planned on, and whether any are left for the next Plan: the commands in
// order up to the first one that is not forceful after a command that moves pods. A later
// command's simulation planned those pods again, maybe elsewhere than the earlier command's
// Moves (see Apply); the forceful commands at the start share the provisioner's simulation
// and go together. Plan again after carrying the batch out when planAgain.
func (r *Result) Batch() (cmds []Command, planAgain bool) {
	moved := false
	for i, cmd := range r.Commands {
		if moved && !cmd.Reason.Forceful() {
			return r.Commands[:i], true
		}
		moved = moved || len(cmd.Moves) > 0
	}
	return r.Commands, false
}
