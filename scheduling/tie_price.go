package scheduling

import "slices"

// A pod that carries a spread over a key other than the hostname settles a new NodeClaim in
// one of the spread's least populated domains. Karpenter draws that domain first, among the
// tied ones, and then tries its NodePools in order there; the default tries its NodePools in
// order and settles the first that takes the pod in the cheapest of the tied domains it
// launches in. A tied domain that NodePool cannot launch in then goes to no NodePool, where
// Karpenter's draw gives it to the next one that can: difftest default plan:1007112 (app-2's
// zone spread, maxSkew 1: pool-1, tried first, offers only GPU types and only in zones b
// and c, pool-0 a $0.07/h type in zone a; the default settled each tie in b or c on pool-1,
// three GPU nodes, where Karpenter's draws put two pods in zone a). So a new NodeClaim
// settled among tied domains goes, in the default mode, to the tied domain whose first
// NodePool that can launch the pod there launches it cheapest: a domain the NodePool the
// default tried first launches in stays its own (its cheapest is where it settled), and a
// domain it cannot launch in goes to the first later NodePool that can, when that costs
// less. Every answer is one of Karpenter's draws. Disruption's simulations (SkipRepack),
// which model Karpenter's decisions, keep the NodePool order alone.

// cheaperTie is the NodeClaim, with its placement, that p (form f) opens instead of c (of
// template t, placement pl, settled among tied domains of a spread p carries) in another
// tied domain that t cannot launch in, where a later template launches it for less; ok=false
// when there is none. cut: the limits took types out of the new NodeClaim.
func (s *solver) cheaperTie(t *template, p *podData, f *podForm, c *claim, pl *placement) (alt *claim, altPl placement, cut, ok bool) {
	if s.karpenter || s.opts.SkipRepack || !p.settling || len(pl.loose) != 1 || len(pl.promise) > 0 {
		return nil, placement{}, false, false
	}
	var g *topologyGroup
	for _, h := range p.settlingFor(f) {
		if h.spread != nil && !h.hostname && pl.loose[h.key] != nil {
			g = h
			break
		}
	}
	if g == nil {
		return nil, placement{}, false, false
	}
	tied := pl.loose[g.key]
	chosen := singleValue(pl.reqs.Get(g.key))
	if chosen == "" {
		return nil, placement{}, false, false
	}
	from := slices.Index(s.templates, t)
	l, launches := cheapestLaunch(t, pl.launchReqs(), pl.types, c.fitsWith(p))
	if from < 0 || !launches {
		return nil, placement{}, false, false
	}
	best := l.o.Price
	// What a check notes (a minValues refusal, a reservation held back) stays only for the
	// NodeClaim that opens.
	saved := s.checkNotes()
	kept := saved
	defer func() { s.setCheckNotes(kept) }()
	pl.types = pl.types.clone() // the placements below reuse the scratch space it may be in (c's commit keeps it)
	for _, d := range g.domains {
		if d == chosen || !tied.Has(d) {
			continue
		}
		for _, u := range s.templates[from:] {
			s.setCheckNotes(saved)
			tc, tpl, tcut, placed := s.tieClaim(u, p, f, g, d)
			if !placed {
				continue
			}
			if u == t {
				break // t launches in d too, for no less than where it settled
			}
			if l, ok := cheapestLaunch(u, tpl.launchReqs(), tpl.types, tc.fitsWith(p)); ok && l.o.Price < best-priceEpsilon {
				tpl.types = tpl.types.clone()
				alt, altPl, cut, best, kept = tc, tpl, tcut, l.o.Price, s.checkNotes()
			}
			break
		}
	}
	return alt, altPl, cut, alt != nil
}

// tieClaim is a new NodeClaim of t for p (form f) in domain d of spread g alone, and its
// placement (placed=false: t cannot take p there); cut: t's limits took types out of it.
func (s *solver) tieClaim(t *template, p *podData, f *podForm, g *topologyGroup, d string) (c *claim, pl placement, cut, placed bool) {
	if t.nodesLeft == 0 {
		return nil, placement{}, false, false
	}
	types := t.all
	if t.hasLimits {
		if types, cut = t.withinLimits(); types.empty() {
			return nil, placement{}, false, false
		}
	}
	c = s.openClaim(t, s.nextHostname(), types)
	s.topo.tie, s.topo.tieDomain = g, d
	pl, placed = c.check(s, p, f, nil)
	s.topo.tie, s.topo.tieDomain = nil, ""
	return c, pl, cut, placed
}

// checkNotes are what a NodeClaim's check notes on the solver: a minValues or limit
// refusal, a reservation held back or waited for.
type checkNotes struct {
	minValuesRefused, limitRefused, reservedDeferred, reservedWaits bool
}

func (s *solver) checkNotes() checkNotes {
	return checkNotes{s.claimMinValuesRefused, s.limitRefused, s.reservedDeferred, s.reservedWaits}
}

func (s *solver) setCheckNotes(n checkNotes) {
	s.claimMinValuesRefused, s.limitRefused, s.reservedDeferred, s.reservedWaits = n.minValuesRefused, n.limitRefused, n.reservedDeferred, n.reservedWaits
}
