package scheduling

import (
	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// The default mode holds a NodeClaim to the capacity reservation it would launch on, as
// Karpenter's provisioner does (its scheduler's strict reserved-offering mode): once a
// NodeClaim's cheapest launch is a reserved offering whose reservation has room left among
// the NodeClaims holding it, a pod joins it only if some type that fits keeps an offering
// of that reservation. Growing out of the reservation would put all its pods on the dearer
// capacity (difftest plan:520004: four pods grew a reserved $0.0366/h claim into an
// on-demand $0.98/h one, where Karpenter opened a second reserved claim). Finalisation gives
// each holder its reservation before any claim that does not hold it takes the room.
// Karpenter mode keeps its packing unchanged.

// holdReservation makes c hold the reservation of its cheapest launch option when that is a
// reserved offering whose reservation has room left among the NodeClaims holding it.
func (s *solver) holdReservation(c *claim) {
	if s.karpenter || c.holds != "" || !c.t.hasReserved {
		return
	}
	l, ok := cheapestLaunch(c.t, c.countingReqs(), c.types, anyType)
	if !ok || l.o.CapacityType() != v1.CapacityTypeReserved {
		return
	}
	id := l.o.ReservationID()
	if s.held[id] >= s.reservations[id] {
		return
	}
	s.held[id]++
	c.holds = id
}

// keepsReservation reports whether c, with requirements reqs and types after a pod joins,
// keeps a type that fits (fits) with an available offering of the reservation it holds.
func (c *claim) keepsReservation(reqs requirements.Requirements, types bitset, fits func(int) bool) bool {
	if c.holds == "" {
		return true
	}
	kept := false
	types.each(func(i int) bool {
		if !fits(i) {
			return true
		}
		for _, o := range c.t.types[i].it.Offerings {
			if o.Available && o.ReservationID() == c.holds && offeringCompatible(o, reqs) {
				kept = true
				return false
			}
		}
		return true
	})
	return kept
}
