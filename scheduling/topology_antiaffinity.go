package scheduling

import (
	"github.com/nodeplan/nodeplan/requirements"
)

// antiAffinityRule is a pod anti-affinity term (the pods it selects keep the owner away): a
// pod may only join a domain holding none of the group's pods.
type antiAffinityRule struct{}

// inverseRule is a required anti-affinity term seen from the pods it selects: the owners,
// counted where they are, keep those pods away (the same domains are free); its group pins
// the pending pods it repels (pinned).
type inverseRule struct{ antiAffinityRule }

func (antiAffinityRule) name() string        { return "anti-affinity" }
func (antiAffinityRule) code() ReasonCode    { return ReasonPodAntiAffinity }
func (antiAffinityRule) repels() bool        { return false }
func (antiAffinityRule) countsDecided() bool { return false }
func (antiAffinityRule) bootstraps() bool    { return false }
func (antiAffinityRule) needsKey() bool      { return false }

// exclusiveHost: over hostnames, a pod keeps every other pod of the group off its host.
func (antiAffinityRule) exclusiveHost(bool) bool { return true }

// countOpen: the pod may land in any domain r allows: block them all until it is known.
// Karpenter mode and disruption's simulations (asKarpenters) block only the domains r
// names: Karpenter records a pod in the values of its NodeClaim's requirement on the key,
// none when the NodeClaim does not constrain it.
func (antiAffinityRule) countOpen(t *topology, g *topologyGroup, r *requirements.Requirement) []string {
	if t.asKarpenters && r.Operator() != requirements.In {
		return []string{}
	}
	return t.countEveryOpen(g, r)
}

func (antiAffinityRule) settle(t *topology, oc openCount, v string)   { t.settleEveryOpen(oc, v) }
func (antiAffinityRule) unsettle(t *topology, oc openCount, v string) { t.unsettleEveryOpen(oc, v) }

func (inverseRule) name() string { return "inverse" }
func (inverseRule) repels() bool { return true }

// admissible: the empty domains.
func (antiAffinityRule) admissible(_ *topology, g *topologyGroup, _ bool, _ requirements.Requirements) admissibleDomains {
	var a admissibleDomains
	for _, d := range g.domains {
		if g.counts[d] == 0 {
			a.domains = append(a.domains, d)
		}
	}
	return a
}

// narrow: the empty domains the node allows (r itself when that is every domain and r is
// open, outside Karpenter mode: Karpenter always requires the key In the free domains, so a
// node that does not define a key it does not know refuses the pod).
func (antiAffinityRule) narrow(t *topology, g *topologyGroup, adm admissibleDomains, r *requirements.Requirement) *requirements.Requirement {
	free := allowedBy(adm.domains, r)
	if len(free) == 0 {
		return nil
	}
	if len(free) == len(g.domains) && r.Operator() != requirements.In && !t.karpenter {
		return r
	}
	return requirements.MustNew(g.key, requirements.In, free...)
}

func (antiAffinityRule) allowsHost(_ *topologyGroup, _ bool, count int32) bool {
	return count == 0
}

// pinnedTo is the domain of g's key a pending pod's own strict requirements pin it to, or "".
func (p *podData) pinnedTo(t *topology, g *topologyGroup) string {
	if p.form == nil || g.hostname || !g.rule.repels() {
		return ""
	}
	return singleValue(t.get(p.form.strict, g.key))
}

// pinPending adds delta to the pending pods pinned to p's domain of every inverse group that
// repels p (+1 while p is pending, -1 once it is placed; only for a pod countPinned counted).
func (t *topology) pinPending(p *podData, delta int) {
	if p.affinityPinned {
		t.pinAffinity(p, delta)
	}
	if !p.pinCounted {
		return
	}
	for _, g := range p.blockedBy {
		if v := p.pinnedTo(t, g); v != "" {
			g.pinned[v] += delta
		}
	}
}

// countPinned counts each pending pod that some NodePool or existing node could take in the
// domains its own requirements pin it to (pinPending): a pod nothing can ever take holds no
// domain against a zone anti-affinity.
func (s *solver) countPinned(pods []*podData) {
	if s.karpenter {
		return
	}
	for _, p := range pods {
		if p.form != nil && len(p.blockedBy) > 0 && !s.unpinned[p.pod] && s.reachable(p) {
			p.pinCounted = true
			s.topo.pinPending(p, 1)
		}
		if p.form != nil && p.invalid == nil && len(p.form.requiredAffinity) > 0 {
			p.affinityPinned = true
			s.topo.pinAffinity(p, 1)
		}
	}
}

// affinityPinnedTo is the domain of affinity g's key a pending pod's own strict requirements,
// or its volumes' one node requirement, pin it to, or "".
func (p *podData) affinityPinnedTo(t *topology, g *topologyGroup) string {
	if v := singleValue(t.get(p.form.strict, g.key)); v != "" {
		return v
	}
	if len(p.volumeAlternatives) == 1 {
		return singleValue(t.get(p.volumeAlternatives[0], g.key))
	}
	return ""
}

// pinAffinity adds delta to the pending pods pinned to p's domain of each of p's own required
// pod affinities (+1 while p is pending, -1 once it is placed): a pod starting the group goes
// where they can follow it (bootstrapPinned).
func (t *topology) pinAffinity(p *podData, delta int) {
	for _, g := range p.form.requiredAffinity {
		if g.hostname {
			continue
		}
		if v := p.affinityPinnedTo(t, g); v != "" {
			g.pinned[v] += delta
		}
	}
}

// reachable reports whether some NodePool could launch a node that takes p alone (its strict
// requirements, tolerations and requests), or some existing node could take it.
func (s *solver) reachable(p *podData) bool {
	f := p.form
	for _, t := range s.templates {
		if !tolerates(f.tolerations, t.taints) || !t.reqs.IsCompatible(f.strict, s.wellKnown) {
			continue
		}
		reqs := t.reqs.Union(f.strict)
		for _, tt := range t.types {
			if p.requests.fits(tt.alloc) && typeIntersects(tt.it.Requirements, reqs) && cheapestOffering(tt.it, reqs) != nil {
				return true
			}
		}
	}
	for _, e := range s.existing {
		if p.requests.fits(e.available) && tolerates(f.tolerations, e.taints) && e.reqs.IsCompatible(f.strict, nil) {
			return true
		}
	}
	return false
}

// settleInverse narrows the domains of p's node for its own required anti-affinity terms.
// A pod with a required anti-affinity is recorded in every domain its NodeClaim may launch
// in, so the pods it repels keep away from all of them until the round ends (rounds.go).
// Karpenter keeps the NodeClaim to every free domain; nodeplan keeps it to those the fewest
// pending pods are pinned to, so it does not take their place.
func (t *topology) settleInverse(p *podData, nodeReqs, narrowed requirements.Requirements) requirements.Requirements {
	for _, g := range p.inverse {
		if g.hostname || t.keyless(g, nodeReqs) && !narrowed.Has(g.key) {
			continue
		}
		cur := t.current(narrowed, nodeReqs, g.key)
		if singleValue(cur) != "" || cur.Operator() == requirements.DoesNotExist {
			continue
		}
		if r := g.leastPinned(cur); r != nil {
			if narrowed == nil {
				narrowed = requirements.Requirements{}
			}
			narrowed[g.key] = cur.Intersection(r)
		}
	}
	return narrowed
}

// leastPinned is the domains of r that the fewest pending pods g selects are pinned to by
// their own node requirements, or nil when that is all of r's domains.
func (g *topologyGroup) leastPinned(r *requirements.Requirement) *requirements.Requirement {
	pinned := g.pinned
	var best []string
	all, fewest := 0, 0
	for _, d := range g.domains {
		if !r.Has(d) {
			continue
		}
		all++
		switch n := pinned[d]; {
		case len(best) == 0 || n < fewest:
			best, fewest = append(best[:0], d), n
		case n == fewest:
			best = append(best, d)
		}
	}
	switch {
	case len(best) == 0 || len(best) == all && r.Operator() == requirements.In:
		return nil
	case len(best) == 1:
		return g.domainRequirement(best[0])
	}
	return requirements.MustNew(g.key, requirements.In, best...)
}
