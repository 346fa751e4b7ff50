package scheduling

import v1 "github.com/nodeplan/nodeplan/apis/v1"

// A pod that carries a spread over another key than the hostname is tied to its domain: the
// repack (packing_repack.go) moves it only among the NodeClaims of its domain. The greedy
// adds it to the first open NodeClaim that takes it, as Karpenter does, even when that grows
// the NodeClaim into a type dearer by more than the NodeClaim it would open in another domain
// that keeps the skew costs (difftest default plan:990029: app-0-3 grew a zone-b m7g-1x4 into
// a c5-4x8, $0.029/h more, where Karpenter opened a $0.0143/h m7g-1x4 in zone c, the least
// populated; $0.1568/h against $0.1278/h, the NodePool's cpu limit keeping the repack from
// splitting it). When such a pod joined a NodeClaim past its cheapest type's room, solveBest
// plans once more with each such join priced (priceJoins): the pod grows the NodeClaim only
// when that adds no more than the NodeClaim it would open costs, and opens that NodeClaim
// otherwise; the plan is kept when it leaves out fewer pods (none of a higher priority), or
// as many and costs less. Priced in every plan, 700 generated inputs (hack/difftest
// 973000-973549, 984000-984149) gave 35 cheaper plans and 8 dearer ones, so it is a second
// try, not the rule; as a second try it changed 33, 31 cheaper and 2 placing more pods. The
// try holds plans of up to guardMaxPods pods, as the guard on the price of preferences;
// larger plans and disruption's simulations (SkipRepack) cost nothing more. Its plan is kept
// only when its launches take no capacity reservation past its capacity (reservationsHold).
// A pod held to its domain otherwise (tiedToDomain: a zone affinity or anti-affinity, a
// volume) is priced the same way.

// tiedToDomain reports whether p (form f) is held to its NodeClaim's domain beyond the
// hostname, so the repack cannot move it to a cheaper NodeClaim elsewhere: it carries a
// spread, or a required pod affinity or anti-affinity, over another key than the hostname,
// or its volumes pin it. Such a pod that grew a NodeClaim is priced (priceJoins) as a
// spread's carrier is: difftest default plan:993068 (app-0-2, a zone anti-affinity, grew
// app-4-1's zone-a c7-2x4, pinned there by its volume, into an r5-4x32, $0.266/h, where a
// c6-1x2 of its own costs $0.0359/h).
func tiedToDomain(p *podData, f *podForm) bool {
	if f.spreadsBeyondHosts() || len(p.volumeAlternatives) > 0 {
		return true
	}
	for _, gs := range [][]*topologyGroup{f.requiredAffinity, f.requiredAnti} {
		for _, g := range gs {
			if !g.hostname {
				return true
			}
		}
	}
	return false
}

// joinAnyOpen is addOnce's last resort for a pod whose new NodeClaim would have cost less
// than growing an open one, when no new NodeClaim opened after all.
func (s *solver) joinAnyOpen(p *podData, f *podForm) bool {
	if s.noDomainFor(p, f) {
		return false
	}
	s.runKeys().track(s.filterBuf)
	return s.addToOpenClaim(p, f, false)
}

// paidJoin is the open NodeClaim addToOpenClaim would add p to at extra cost, and what that
// adds to the price of its cheapest launch (found=false: none takes p).
func (s *solver) paidJoin(p *podData, f *podForm) (c *claim, extra float64, found bool) {
	c, pl, found := s.openClaimFor(p, f, false)
	if !found {
		return nil, 0, false
	}
	extra, _ = c.joinCost(p, pl) // no price to compare: join, as before
	return c, extra, true
}

// newClaimPrice is the price of the cheapest launch of the NodeClaim newClaim would open for
// p, without opening it (opens=false: none would).
func (s *solver) newClaimPrice(p *podData, f *podForm) (price float64, opens bool) {
	minValuesRefused, limitRefused, reservedDeferred, reservedWaits := s.claimMinValuesRefused, s.limitRefused, s.reservedDeferred, s.reservedWaits
	defer func() {
		s.claimMinValuesRefused, s.limitRefused, s.reservedDeferred, s.reservedWaits = minValuesRefused, limitRefused, reservedDeferred, reservedWaits
	}()
	hostname := s.nextHostname()
	for _, t := range s.templates {
		if t.nodesLeft == 0 {
			continue
		}
		types := t.all
		if t.hasLimits {
			if types, _ = t.withinLimits(); types.empty() {
				continue
			}
		}
		pl, ok := s.openClaim(t, hostname, types).check(s, p, f, nil)
		if !ok {
			continue
		}
		l, ok := cheapestLaunch(t, pl.launchReqs(), pl.types, func(i int) bool {
			tt := t.types[i]
			return p.requests.fits(tt.alloc) && (len(p.ports) == 0 || !portsConflict(tt.daemonPorts, p.ports))
		})
		if !ok {
			continue
		}
		return l.o.Price, true
	}
	return 0, false
}

// reservationsHold reports whether res launches no capacity reservation more times than it
// has instances. A NodeClaim that holds no reservation may find, when it is finalised, the
// reservation of its cheapest offering taken by a NodeClaim that moved its hold there after
// it opened, and no other offering its requirements allow (a pod that asks for reserved
// capacity): it keeps that offering (difftest default plan:973198, priced: two c5-8x16
// launches of a one-instance reservation). The first plans never met it; the priced one is
// not kept so.
func reservationsHold(res *Result) bool {
	var launched map[string]int
	for _, c := range res.NewNodeClaims {
		o := c.Offering
		if o == nil || o.CapacityType() != v1.CapacityTypeReserved {
			continue
		}
		if launched == nil {
			launched = map[string]int{}
		}
		id := o.ReservationID()
		launched[id]++
		if launched[id] > o.ReservationCapacity {
			return false
		}
	}
	return true
}
