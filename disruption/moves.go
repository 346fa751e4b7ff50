package disruption

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// PodMove is where one pod a command displaces goes, as the simulation that justified the
// command placed it: a cluster.Move (From the candidate it leaves, To an existing node or
// in-flight NodeClaim of the input, Claim the index in the command's Replacements), or a
// Result.Provisioned claim, or, when it has no destination, why. Exactly one of To, Claim,
// Provisioned and Pending is set. Result.PendingPods has the same shape for the pending pods
// the provisioner's pass plans (From empty, Claim -1).
type PodMove struct {
	cluster.Move
	// Provisioned is the index in Result.Provisioned of the NodeClaim the provisioner plans
	// the pod onto (forceful commands), -1 if none.
	Provisioned int
	// Pending says why the pod has no destination ("" when it has one).
	Pending MoveCode
	// Error is the simulation's reason when Pending is MoveUnschedulable.
	Error *scheduling.PodError
}

// MoveCode says why a displaced pod has no destination.
type MoveCode string

// Move codes. A graceful command (emptiness, drift, consolidation) only goes ahead when its
// simulation found a home for every pod it moves, so only MoveWaits (drift) and
// MoveNotSimulated (emptiness) appear there; forceful ones go ahead regardless.
const (
	// MoveUnschedulable: the provisioner's pass placed the pod nowhere (Error says why).
	// The only code of a pending pod without a destination, with MoveUnlaunchable.
	MoveUnschedulable MoveCode = "Unschedulable"
	// MoveWaits: the simulation left the pod on its node: karpenter.sh/do-not-disrupt or a
	// PodDisruptionBudget keeps it there until its blocker goes or the node's
	// terminationGracePeriod deadline (at once for node repair; see the drain plan); then it
	// is pending.
	MoveWaits MoveCode = "Waits"
	// MoveUnlaunchable: the provisioner's pass planned the pod onto a NodeClaim without a
	// launchable instance type and offering, which is therefore not in Result.Provisioned.
	MoveUnlaunchable MoveCode = "Unlaunchable"
	// MoveNotSimulated: the command ran no simulation (emptiness: the node's pods have no
	// positive eviction cost, so the node counts as empty).
	MoveNotSimulated MoveCode = "NotSimulated"
)

// movesOf lists every pod the candidates displace (their reschedulable pods), sorted by
// namespace/name, where res — the simulation behind the command, nil for none — put it.
// claim sets the destination of a pod res placed on res.NewNodeClaims[i].
func movesOf(cands []*node, res *scheduling.Result, claim func(i int, m *PodMove)) []PodMove {
	var out []PodMove
	seen := map[*corev1.Pod]bool{}
	pending := MoveWaits
	if res == nil {
		pending = MoveNotSimulated
	}
	for _, c := range cands {
		for _, p := range c.reschedulable {
			if !seen[p] {
				seen[p] = true
				out = append(out, PodMove{Move: cluster.Move{Pod: p, From: c.Name(), Claim: -1}, Provisioned: -1, Pending: pending})
			}
		}
	}
	return placeMoves(out, res, claim)
}

// pendingMoves are the pending pods (on no node) where the provisioner's pass res put them,
// sorted by namespace/name; claim as for movesOf.
func pendingMoves(pods []*corev1.Pod, res *scheduling.Result, claim func(i int, m *PodMove)) []PodMove {
	out := make([]PodMove, 0, len(pods))
	for _, p := range pods {
		out = append(out, PodMove{Move: cluster.Move{Pod: p, Claim: -1}, Provisioned: -1, Pending: MoveUnschedulable})
	}
	return placeMoves(out, res, claim)
}

// placeMoves sets where res (nil: nowhere) put the pods of moves and sorts them by
// namespace/name.
func placeMoves(out []PodMove, res *scheduling.Result, claim func(i int, m *PodMove)) []PodMove {
	if len(out) == 0 {
		return nil
	}
	if res != nil {
		at := make(map[*corev1.Pod]int, len(out))
		for i := range out {
			at[out[i].Pod] = i
		}
		for _, b := range res.Bindings {
			if i, ok := at[b.Pod]; ok {
				out[i].To, out[i].Pending = b.To, ""
			}
		}
		for ci, c := range res.NewNodeClaims {
			for _, p := range c.Pods {
				if i, ok := at[p]; ok {
					out[i].Pending = ""
					claim(ci, &out[i])
				}
			}
		}
		for k := range res.PodErrors {
			if i, ok := at[res.PodErrors[k].Pod]; ok {
				e := res.PodErrors[k]
				out[i].Pending, out[i].Error = MoveUnschedulable, &e
			}
		}
	}
	slices.SortStableFunc(out, func(a, b PodMove) int { return cluster.ComparePods(a.Pod, b.Pod) })
	return out
}

// replacementMove: res.NewNodeClaims[i] is the command's Replacements[i].
func replacementMove(i int, m *PodMove) { m.Claim = i }
