package scheduling

import (
	"slices"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// Karpenter mode holds capacity reservations as Karpenter's scheduler does within a round
// (ReservationManager, in the strict reserved-offering mode its provisioner asks for):
// after every pod it takes, a NodeClaim holds one instance of every capacity reservation
// that one of its remaining instance types offers (available, compatible with its
// requirements) and that still has an instance not held by another NodeClaim of the round.
// A pod may not join a NodeClaim, or open one, when that would leave it holding nothing
// while some such reservation exists (all held by others), nor make a NodeClaim that held
// reservations hold none. A pod so refused by a new NodeClaim is not tried on a NodePool of
// lower weight, nor relaxed: it waits for the next round, when the round's NodeClaims have
// launched (each on the cheapest offering of the reservations it holds) and released the
// others. The default mode holds one reservation per NodeClaim instead (reservations.go).

// reservedDetail is the Detail of the cause a pod gets when the reservations it could
// launch on are all held by other NodeClaims of the round.
const reservedDetail = "every capacity reservation it could launch on is held by another NodeClaim of this round: Karpenter tries the pod again next round"

// startReservationRound gives the round's NodeClaims every reservation's instances left in
// the cloud (Karpenter builds its ReservationManager afresh for each scheduling run).
func (s *solver) startReservationRound() {
	if !s.karpenter {
		return
	}
	if s.cloudLeft == nil {
		s.cloudLeft = make(map[string]int, len(s.reservations))
		for id, n := range s.reservations {
			s.cloudLeft[id] = n
		}
	}
	s.unheld = make(map[string]int, len(s.cloudLeft))
	for id, n := range s.cloudLeft {
		s.unheld[id] = n
	}
}

// reservationsFor is, in Karpenter mode, the reservations c would hold with requirements
// reqs and the types of types that fit (fits), sorted; ok is false when Karpenter refuses the
// pod for them (strict mode).
func (c *claim) reservationsFor(s *solver, reqs requirements.Requirements, types bitset, fits func(int) bool) (held []string, ok bool) {
	if !c.t.hasReserved && len(c.reserved) == 0 {
		return nil, true
	}
	compatible := false
	types.each(func(i int) bool {
		if !fits(i) {
			return true
		}
		for _, o := range c.t.types[i].it.Offerings {
			if o.CapacityType() != v1.CapacityTypeReserved || !o.Available || !offeringCompatible(o, reqs) {
				continue
			}
			id := o.ReservationID()
			if s.cloudLeft[id] <= 0 {
				continue // launched to its capacity in an earlier round: no longer available
			}
			compatible = true
			if (s.unheld[id] > 0 || slices.Contains(c.reserved, id)) && !slices.Contains(held, id) {
				held = append(held, id)
			}
		}
		return true
	})
	if compatible && len(held) == 0 || len(c.reserved) > 0 && len(held) == 0 {
		return nil, false
	}
	slices.Sort(held)
	return held, true
}

// holdReservations makes c hold the reservations held (from reservationsFor) instead of
// those it held.
func (s *solver) holdReservations(c *claim, held []string) {
	for _, id := range held {
		if !slices.Contains(c.reserved, id) {
			s.unheld[id]--
		}
	}
	for _, id := range c.reserved {
		if !slices.Contains(held, id) {
			s.unheld[id]++
		}
	}
	c.reserved = held
}

// pinReserved narrows reqs to the reservations c holds, as Karpenter's FinalizeScheduling
// does: capacity type reserved, reservation ID one of them.
func (c *claim) pinReserved(reqs requirements.Requirements) requirements.Requirements {
	if len(c.reserved) == 0 {
		return reqs
	}
	out := reqs.Copy()
	withMinIn(out, v1.CapacityTypeLabelKey, requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeReserved))
	out[cloudprovider.ReservationIDLabel] = requirements.MustNew(cloudprovider.ReservationIDLabel, requirements.In, c.reserved...)
	return out
}

// withoutExhaustedReservations keeps the next round's NodeClaims off the reservations earlier
// rounds launched to their capacity: Karpenter's cloud provider offers them as unavailable,
// so a NodeClaim can no longer launch on them (reservationsFor only stops holding them).
// Each template with reserved offerings gets the requirement that the reservation ID is none
// of them.
func (s *solver) withoutExhaustedReservations() {
	var gone []string
	for id, n := range s.cloudLeft {
		if n <= 0 {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return
	}
	slices.Sort(gone)
	notIn := requirements.MustNew(cloudprovider.ReservationIDLabel, requirements.NotIn, gone...)
	for _, t := range s.templates {
		if !t.hasReserved {
			continue
		}
		reqs := t.reqs.Copy()
		reqs[cloudprovider.ReservationIDLabel] = reqs.Get(cloudprovider.ReservationIDLabel).Intersection(notIn)
		t.reqs = reqs
	}
}
