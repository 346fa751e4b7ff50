package simulate

import (
	"time"

	"github.com/nodeplan/nodeplan/disruption"
)

// Karpenter's consolidated state. Its emptiness and consolidation methods remember the
// cluster's consolidation state when they find nothing to do (and no budget held them
// back), and skip while it is unchanged. The state changes when a pod is bound or deleted,
// a node is added, removed, initialized or marked for deletion, or a NodePool changes; and
// when it has not changed for five minutes, the next look resets it (so a consolidateAfter
// that elapses with nothing else happening is noticed within five minutes, not at once).
// Plan runs with disruption.Options.Consolidated while it holds.
//
// One state stands for Karpenter's three (emptiness, multi-node and single-node consolidation
// each remember their own): they differ only when one method is held back by a budget and
// another is not, where Karpenter marks the unconstrained one consolidated and this marks none.

// consolidationReset is how long Karpenter's consolidation state stays unchanged before a
// look resets it (its ConsolidationState).
const consolidationReset = 5 * time.Minute

// unconsolidate records a change that marks the cluster unconsolidated.
func (s *sim) unconsolidate() { s.stateChangedAt = s.now }

// consolidationState is Karpenter's ConsolidationState as the disruption controller reads it
// at a tick: the time of the last change, reset to now when that is five minutes old.
func (s *sim) consolidationState() time.Time {
	if s.now.Sub(s.stateChangedAt) >= consolidationReset {
		s.stateChangedAt = s.now
	}
	return s.stateChangedAt
}

// consolidated reports whether emptiness and consolidation skip this look (IsConsolidated).
func (s *sim) consolidated() bool {
	return s.consolidatedAt != nil && s.consolidatedAt.Equal(s.consolidationState())
}

// noteConsolidation marks the cluster consolidated after a Plan that ran emptiness and
// consolidation and found nothing, unless a budget held a node back (Karpenter does not mark
// it then: the node may go once the budget allows).
func (s *sim) noteConsolidation(res *disruption.Result) {
	for _, cmd := range res.Commands {
		if cmd.Reason == disruption.ReasonEmpty || cmd.Reason == disruption.ReasonUnderutilized {
			return
		}
	}
	for _, b := range res.Blocked {
		for _, x := range b.Blockers {
			if x.Code == disruption.BlockBudget && (x.Budget == string(disruption.ReasonEmpty) || x.Budget == string(disruption.ReasonUnderutilized)) {
				return
			}
		}
	}
	at := s.stateChangedAt
	s.consolidatedAt = &at
}

// resetWake is the first tick at which a consolidated cluster's state resets, so that
// emptiness and consolidation look again (zero when it is not consolidated).
func (s *sim) resetWake() time.Time {
	if s.consolidatedAt == nil || !s.consolidatedAt.Equal(s.stateChangedAt) {
		return time.Time{}
	}
	return s.stateChangedAt.Add(consolidationReset)
}
