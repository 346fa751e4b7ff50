package disruption

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Options tune Plan. The zero value is Karpenter's default behaviour.
type Options struct {
	// SpotToSpotConsolidation allows replacing spot nodes by cheaper spot nodes (Karpenter's
	// feature gate of the same name, default off).
	SpotToSpotConsolidation bool
	// Repack adds consolidation moves Karpenter cannot make: single-node consolidation may
	// replace its node by several cheaper NodeClaims (1→N, MethodSplit), and several nodes
	// may be replaced by a different, cheaper set (m→n, MethodRepack). Off: Karpenter's
	// moves exactly.
	Repack bool
	// Scheduling are the options of every scheduling simulation (the provisioner's pass and
	// each candidate's), all passed on except SingleRound and SkipRepack: a simulation is
	// always one Solve, as Karpenter's are, without the default packing's repair.
	Scheduling scheduling.Options
	// Consolidated is Karpenter's consolidated state (its IsConsolidated): emptiness and
	// consolidation found nothing to do and the cluster has not changed since in a way that
	// marks it unconsolidated (a pod bound or deleted, a node added, removed, initialized or
	// marked for deletion, a NodePool changed), and it is less than five minutes since it last
	// changed. They do not run then; interruption, repair, expiration and drift do. A host
	// that plans in a loop tracks it (package simulate); the zero value runs every method.
	Consolidated bool
	// Cache, when set, is the scheduling.Cache of Plan's simulations, so that a host planning
	// in a loop over a slowly changing cluster keeps what Solve derived from the objects that
	// did not change since the last Plan (package simulate does). It changes no result; it
	// must not be used by two Plans or Solves at once. Nil: a new one per Plan.
	Cache *scheduling.Cache
	// PDBMatches, when set, remembers which PodDisruptionBudgets select each pod across
	// Plans (package simulate keeps one beside its Cache): each node's pods are read against
	// the PDBs at every Plan. It changes no result; the same rules as Cache hold. Nil: the
	// selectors are read again at every Plan.
	PDBMatches *cluster.PDBMatches
}

// Method is the disruption method that produced a command.
type Method string

// Methods, in the order Plan tries them (repack before multi-node, split in single-node's
// place).
const (
	MethodInterruption Method = "interruption"
	MethodRepair       Method = "repair"
	MethodExpiration   Method = "expiration"
	MethodEmptiness    Method = "emptiness"
	MethodDrift        Method = "drift"
	MethodMultiNode    Method = "multi-node"
	MethodSingleNode   Method = "single-node"
	// MethodSplit (Options.Repack) replaces one node by several NodeClaims cheaper together
	// (or by one that only a simulation with the types below the node's price finds).
	MethodSplit Method = "split"
	// MethodRepack (Options.Repack) replaces several nodes by a different, cheaper set of
	// NodeClaims (or by none).
	MethodRepack Method = "repack"
)

// ReasonCode is why a command disrupts its nodes.
type ReasonCode string

// Reasons. Empty, Drifted and Underutilized are the budget reasons of v1.DisruptionReason.
const (
	ReasonInterrupted   ReasonCode = "Interrupted"
	ReasonUnhealthy     ReasonCode = "Unhealthy"
	ReasonExpired       ReasonCode = "Expired"
	ReasonEmpty         ReasonCode = ReasonCode(v1.DisruptionReasonEmpty)
	ReasonDrifted       ReasonCode = ReasonCode(v1.DisruptionReasonDrifted)
	ReasonUnderutilized ReasonCode = ReasonCode(v1.DisruptionReasonUnderutilized)
)

// Forceful reports whether commands of this reason delete at once, whatever the budgets,
// do-not-disrupt and PodDisruptionBudgets say (expiration, interruption, node repair): the
// termination drain still honours the pod blockers until the terminationGracePeriod.
func (r ReasonCode) Forceful() bool {
	return r == ReasonExpired || r == ReasonInterrupted || r == ReasonUnhealthy
}

// Result is what Plan decided.
type Result struct {
	// Commands in the order Karpenter would start them.
	Commands []Command
	// Blocked lists, sorted by node name, every managed node that is in no command, with why.
	Blocked []Blocked
	// Provisioned are the NodeClaims Karpenter's provisioner launches before the commands
	// start, for the pending pods and the pods of deleting and expired nodes (expiration
	// itself launches nothing). Every later simulation sees them in flight.
	Provisioned []*scheduling.NodeClaim
	// PendingPods says, for every pending pod of the snapshot (Snapshot.Pending), sorted by
	// namespace/name, where the provisioner's pass puts it: an existing node or in-flight
	// NodeClaim (To), a Provisioned claim (Provisioned), or nowhere (Pending
	// MoveUnschedulable with the pod error, or MoveUnlaunchable). With the commands' Moves
	// and the Drains, every pod the Plan places again is in the Result, placed or with why.
	PendingPods []PodMove
	// Interruptions says, per input event and instance, what it did (see InterruptionOutcome).
	Interruptions []InterruptionOutcome
	// Drains are the termination plans of every node being deleted, by a command or in the
	// input, sorted by node name (see Drain).
	Drains []Drain
}

// Command disrupts Candidates and launches Replacements. With no replacement it is a
// DELETE; otherwise a REPLACE.
type Command struct {
	Method Method
	Reason ReasonCode
	// Candidates are the node names, sorted.
	Candidates []string
	// Replacements are the NodeClaims to launch before the candidates are drained.
	Replacements []*scheduling.NodeClaim
	// Destinations are the existing nodes and in-flight NodeClaims its simulation sends pods
	// to (the candidates' and pending pods), sorted: nominated, they are no candidates of a
	// later command.
	Destinations []string
	// Moves say, for every pod the candidates displace (not finished, not a DaemonSet or
	// mirror pod, not terminating unless a StatefulSet's), sorted by namespace/name, where the
	// simulation that justified the command put it: for consolidation and drift the
	// command's own simulation (an existing node or a replacement), for interruption, repair
	// and expiration the provisioner's pass that follows them (an existing node, a
	// Result.Provisioned claim, or nowhere). Each pod appears once. A later command's
	// simulation plans the pods of earlier commands' candidates again and may put them
	// elsewhere; Moves record only this command's decision.
	Moves []PodMove
	// SavingsPerHour is the candidates' price minus the replacements' (cheapest launchable
	// offering). Always positive for consolidation; may be negative for drift; 0 for
	// expiration, which is forceful and not a cost decision (the NodeClaims its pods need are
	// in Result.Provisioned).
	SavingsPerHour float64
	// Event is the interruption event that started an interruption command, for its
	// instance InstanceID (the node's); nil for the others.
	Event      *interruption.Event
	InstanceID string
	// Unhealthy is the node condition that started a repair command, held past its policy's
	// Toleration; nil for the others.
	Unhealthy  *corev1.NodeCondition
	Toleration time.Duration
	// Drift is why a drift command's node drifted (the zero Drift for the others).
	Drift Drift
}

// Detail says in English what started an interruption, repair or drift command: the event,
// the unhealthy node condition, the drift ("" for the others).
func (c Command) Detail() string {
	switch {
	case c.Event != nil:
		return fmt.Sprintf("%s %s at %s", c.Event.Kind, c.InstanceID, timeText(&c.Event.Time))
	case c.Unhealthy != nil:
		return fmt.Sprintf("%s, tolerated for %s", conditionText(*c.Unhealthy), c.Toleration)
	}
	return c.Drift.String()
}

// Blocked says why a node is in no command.
type Blocked struct {
	Node string
	// Blockers are every reason the node is kept, as data (see Blocker), the one Message
	// explains first. Never empty: a node nothing blocks has BlockNoDisruption.
	Blockers []Blocker
	// Drift is why the node drifted (whatever keeps it: a blocked replacement, a budget, a
	// pod), the zero Drift when it did not.
	Drift Drift
	// ExpiresAt is when the node's expireAfter ends, nil without one.
	ExpiresAt *time.Time
}

// Message is why the node is kept, in English: its first blocker's (Blocker.String),
// followed by the second's when the first is a repair note (RepairPending, RepairLimited).
func (b Blocked) Message() string {
	if len(b.Blockers) == 0 {
		return ""
	}
	msg := b.Blockers[0].String()
	if c := b.Blockers[0].Code; (c == BlockRepairPending || c == BlockRepairLimited) && len(b.Blockers) > 1 {
		msg += "; " + b.Blockers[1].String()
	}
	return msg
}
