package scheduling

import (
	"slices"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
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
// reserved offering whose reservation has room left among the NodeClaims holding it; when
// other NodeClaims hold all of that one, the cheapest offering with room is the one c
// launches on (reserve), and c holds it if it is reserved.
func (s *solver) holdReservation(c *claim) {
	if s.karpenter || c.holds != "" || !c.t.hasReserved {
		return
	}
	reqs := c.countingReqs()
	l, ok := cheapestLaunch(c.t, reqs, c.types, anyType)
	if !ok || l.o.CapacityType() != v1.CapacityTypeReserved {
		return
	}
	o := l.o
	if s.reservationFull(o) {
		if o = s.cheapestWithRoom(c.t, reqs, c.types, anyType); o == nil || o.CapacityType() != v1.CapacityTypeReserved {
			return
		}
	}
	id := o.ReservationID()
	s.held[id]++
	if s.held[id] == s.reservations[id] {
		s.fullReservations++
	}
	c.holds = id
}

// reservationFull reports whether o is a reserved offering whose reservation other NodeClaims
// hold all of.
func (s *solver) reservationFull(o *cloudprovider.Offering) bool {
	if o.CapacityType() != v1.CapacityTypeReserved {
		return false
	}
	id := o.ReservationID()
	return s.held[id] >= s.reservations[id]
}

// cheapestWithRoom is the cheapest available offering, under reqs, of the types that fit
// (fits), that is not reserved or whose reservation has room left: the one a NodeClaim that
// holds no reservation launches on. Nil when none has.
func (s *solver) cheapestWithRoom(t *template, reqs requirements.Requirements, types bitset, fits func(int) bool) *cloudprovider.Offering {
	info := t.offerings(reqs)
	var best *cloudprovider.Offering
	types.each(func(i int) bool {
		if info.cheapest[i] == nil || !fits(i) {
			return true
		}
		if o := s.withRoom(info, i, nil, ""); o != nil && (best == nil || o.Price < best.Price) {
			best = o
		}
		return true
	})
	return best
}

// launchWithRoom is the option c launches on: its cheapest, unless that is a reserved
// offering of a reservation c does not hold and other NodeClaims hold all of, when it is the
// cheapest offering with room (as finalisation launches it: claim.reserve). The limit recount
// keeps a NodeClaim's options no larger than it (difftest default plan:993225: the recount
// kept app-1's NodeClaims to r7-2x16, whose only offering in their zone was a reservation
// two other NodeClaims held, and they launched on it past its capacity, 4 > 2).
func (s *solver) launchWithRoom(c *claim) (launchOption, bool) {
	return s.launchOf(c, c.launchReqs(), c.types, anyType)
}

// launchOf is where c, with requirements reqs and types that fit (fits), launches: its
// cheapest option, or the cheapest with room when that one is a reservation other NodeClaims
// hold all of (roomAfter). The pods a spread counts on c count there, and a settlement pins
// c there: pinned to the full reservation's capacity type, c kept only types that launch on
// it and launched on it past its capacity (difftest default plan:1009228: app-0's NodeClaims
// in zone a, counted and pinned "reserved" for app-4's capacity-type spread, launched eight
// instances of a one-instance reservation).
func (s *solver) launchOf(c *claim, reqs requirements.Requirements, types bitset, fits func(int) bool) (launchOption, bool) {
	l, ok := cheapestLaunch(c.t, reqs, types, fits)
	return s.roomAfter(c, types, fits, l, ok)
}

// roomAfter is l, the cheapest option of c's types (types, fits; ok=false: none) under
// l.reqs, or, when l is a reserved offering of a reservation c does not hold and other
// NodeClaims hold all of, the cheapest offering with room of those types (an offering of the reservation c holds has
// room for c). Karpenter mode keeps the cheapest: its NodeClaims reserve as they grow
// (karpenter_reservations.go).
func (s *solver) roomAfter(c *claim, types bitset, fits func(int) bool, l launchOption, ok bool) (launchOption, bool) {
	if !ok || s.karpenter || l.o.CapacityType() != v1.CapacityTypeReserved ||
		l.o.ReservationID() == c.holds || !s.reservationFull(l.o) {
		return l, ok
	}
	info := c.t.offerings(l.reqs)
	var best launchOption
	found := false
	for _, i := range info.launchOrder(c.t) {
		if found && info.cheapest[i].Price >= best.o.Price {
			break // no offering of a type is cheaper than its cheapest
		}
		if !types.has(int(i)) || !fits(int(i)) {
			continue
		}
		if o := s.withRoom(info, int(i), nil, c.holds); o != nil && (!found || o.Price < best.o.Price) {
			best, found = launchOption{t: c.t, i: int(i), o: o, reqs: l.reqs}, true
		}
	}
	return best, found
}

// withRoom is the cheapest available offering of type i (info: under the NodeClaim's
// requirements) that is not reserved or whose reservation has room left (own, the one the
// NodeClaim holds, has room for it), and when held is not empty is a reservation of held;
// nil when none is.
func (s *solver) withRoom(info *offerInfo, i int, held []string, own string) *cloudprovider.Offering {
	offers := []*cloudprovider.Offering{info.cheapest[i]}
	if info.offers != nil && info.offers[i] != nil {
		offers = info.offers[i]
	}
	for _, o := range offers { // cheapest first
		if s.reservationFull(o) && o.ReservationID() != own {
			continue
		}
		if len(held) > 0 && (o.CapacityType() != v1.CapacityTypeReserved || !slices.Contains(held, o.ReservationID())) {
			continue
		}
		return o
	}
	return nil
}

// launchesUnheld reports whether a NodeClaim that holds no reservation, with requirements
// reqs and types, can still launch after the pod joins: some type that fits has an offering
// that is not reserved or whose reservation has room. Only a reservation all of which other
// NodeClaims hold can make it fail (difftest default plan:910070: a second NodeClaim whose pod
// may only launch reserved, in the zone of a one-instance reservation, launched it twice).
func (s *solver) launchesUnheld(c *claim, reqs requirements.Requirements, types bitset, fits func(int) bool) bool {
	if s.karpenter || c.holds != "" || !c.t.hasReserved || s.fullReservations == 0 {
		return true
	}
	if l, ok := cheapestLaunch(c.t, reqs, types, fits); ok && !s.reservationFull(l.o) {
		return true
	}
	return s.cheapestWithRoom(c.t, reqs, types, fits) != nil
}

// keepsReservation reports whether c, with requirements reqs and types after a pod joins,
// keeps a type that fits (fits) with an available offering of the reservation it holds, or
// of another reservation with room left: Karpenter's strict mode refuses a pod only when it
// would take every reserved offering from a NodeClaim that had one, and the NodeClaim then
// reserves what it still offers (difftest default plan:830098: a third pod too large for
// the held c5 reservation grew the NodeClaim onto an r7g reservation in Karpenter; refused
// here, it went to another NodePool's on-demand node at ten times the price). holdReservation
// moves the hold after the pod joins (moveHold).
func (s *solver) keepsReservation(c *claim, reqs requirements.Requirements, types bitset, fits func(int) bool) bool {
	if c.holds == "" {
		return true
	}
	return offersAny(c.t, reqs, types, fits, func(o *cloudprovider.Offering) bool {
		return o.CapacityType() == v1.CapacityTypeReserved && (o.ReservationID() == c.holds || !s.reservationFull(o))
	})
}

// heldBack reports whether c, a new NodeClaim, with requirements reqs and types, could launch
// on a capacity reservation only other NodeClaims hold all of, and on none with room:
// Karpenter's strict reserved-offering mode refuses the pod then, and its next round places
// it (on a node its first round launched, or on a reservation the round released).
func (s *solver) heldBack(c *claim, reqs requirements.Requirements, types bitset, fits func(int) bool) bool {
	if s.karpenter || len(c.pods) > 0 || c.holds != "" || !c.t.hasReserved || s.fullReservations == 0 {
		return false
	}
	return offersAny(c.t, reqs, types, fits, func(o *cloudprovider.Offering) bool {
		return o.CapacityType() == v1.CapacityTypeReserved && s.reservations[o.ReservationID()] > 0
	}) && !offersAny(c.t, reqs, types, fits, func(o *cloudprovider.Offering) bool {
		return o.CapacityType() == v1.CapacityTypeReserved && !s.reservationFull(o)
	})
}

// offersAny reports whether a type of types that fits (fits) has an available offering,
// compatible with reqs, that want accepts.
func offersAny(t *template, reqs requirements.Requirements, types bitset, fits func(int) bool, want func(*cloudprovider.Offering) bool) bool {
	found := false
	types.each(func(i int) bool {
		if !fits(i) {
			return true
		}
		for _, o := range t.types[i].it.Offerings {
			if o.Available && want(o) && offeringCompatible(o, reqs) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// moveHold releases the reservation c holds when none of its types offers it any more (a pod
// that joined moved it onto another reservation: keepsReservation), so that holdReservation
// holds the one it launches on now.
func (s *solver) moveHold(c *claim) {
	if s.karpenter || c.holds == "" {
		return
	}
	if offersAny(c.t, c.countingReqs(), c.types, anyType, func(o *cloudprovider.Offering) bool { return o.ReservationID() == c.holds }) {
		return
	}
	if s.held[c.holds] == s.reservations[c.holds] {
		s.fullReservations--
	}
	s.held[c.holds]--
	c.holds = ""
}
