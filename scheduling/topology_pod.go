package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// admissibleDomains are the domains of a group a pod may join now, whatever the node.
type admissibleDomains struct {
	domains []string
	// low is a spread's global minimum the domains keep within its skew of.
	low int
	// bootstrap: a self-selecting pod whose affinity finds no match may start anywhere.
	bootstrap bool
}

// selfSelects reports whether g counts p itself.
func (p *podData) selfSelects(g *topologyGroup) bool { return slices.Contains(p.selectedBy, g) }

// admissible is, for pod p (form f), the domains of g it may join now (see each rule's
// admissible). Computed once per attempt.
func (t *topology) admissible(g *topologyGroup, p *podData, f *podForm) admissibleDomains {
	if t.bindingNow && g.spread != nil && !g.hostname {
		return t.admissibleNow(g, p, f)
	}
	if a, ok := t.admCache[g]; ok {
		return a
	}
	a := g.rule.admissible(t, g, p.selfSelects(g), f.strict)
	t.admCache[g] = a
	return a
}

// admissibleNow is admissible for spread g over its nodeCounts: what the pod may join on a
// node that takes it now, before any NodeClaim of the plan launches and its pods bind
// (kube-scheduler checks a spread when it binds the pod that carries it).
func (t *topology) admissibleNow(g *topologyGroup, p *podData, f *podForm) admissibleDomains {
	if a, ok := t.admNowCache[g]; ok {
		return a
	}
	a := g.spread.admissibleWith(t, g, p.selfSelects(g), f.strict, g.nodeCounts, t.nowDomains(g))
	t.admNowCache[g] = a
	return a
}

// beginAttempt forgets what was computed for the previous pod or form.
func (t *topology) beginAttempt() {
	clear(t.admCache)
	clear(t.admNowCache)
}

// allowed narrows the node requirement r for g's key for the pod p with form f, or returns
// nil when no domain is allowed. host is the candidate's host id.
func (g *topologyGroup) allowed(t *topology, p *podData, f *podForm, r *requirements.Requirement, host int32) *requirements.Requirement {
	if g.hostname {
		if g.hostAllows(p.selfSelects(g), host) {
			return r
		}
		return nil
	}
	return g.rule.narrow(t, g, t.admissible(g, p, f), r)
}

// current is the requirement on key of a node with requirements nodeReqs, as narrowed so far.
func (t *topology) current(narrowed, nodeReqs requirements.Requirements, key string) *requirements.Requirement {
	if r, ok := narrowed[key]; ok {
		return r
	}
	return t.get(nodeReqs, key)
}

// requirementsFor returns the requirements topology adds for pod p (form f) on a node with
// requirements nodeReqs, or ok=false with the group whose key has no allowed domain.
func (t *topology) requirementsFor(p *podData, f *podForm, nodeReqs requirements.Requirements, host int32) (narrowed requirements.Requirements, failed *topologyGroup, ok bool) {
	if len(f.owned) == 0 && len(p.blockedBy) == 0 && !p.collapses && !t.capCarriers {
		return nil, nil, true
	}
	if t.probe.c != nil {
		t.probe.pod, t.probe.form = p, f
	}
	for _, g := range f.owned {
		t.probe.narrowed = narrowed
		if narrowed, ok = t.narrowFor(g, p, f, nodeReqs, narrowed, host); !ok {
			if !t.karpenter && !t.widen && g.rule.bootstraps() && spreadsOn(f, g.key) {
				// A spread narrowed the key to its least populated domains, where the
				// affinity has no match: any domain that keeps the skew will do (difftest
				// default plan:971384: app-1's zone spread of maxSkew 2 took zone b, empty,
				// where its zone affinity needs zone a, which holds app-1-0 and keeps the
				// skew; app-1-1 was left out, where Karpenter placed it in zone a).
				t.widen = true
				narrowed, failed, ok = t.requirementsFor(p, f, nodeReqs, host)
				t.widen = false
				return narrowed, failed, ok
			}
			return nil, g, false
		}
	}
	for _, g := range p.blockedBy {
		t.probe.narrowed = narrowed
		if narrowed, ok = t.narrowFor(g, p, f, nodeReqs, narrowed, host); !ok {
			return nil, g, false
		}
	}
	if t.karpenter {
		return narrowed, nil, true
	}
	if t.capCarriers {
		// A pod a spread only selects keeps off the domains where it would raise the
		// spread's carriers above maxSkew (host_spread_cap.go).
		for _, g := range p.selectedBy {
			if g.hostname || len(g.carriedIn) == 0 || f.carries(g) || !g.passesFilter(nodeReqs, nil, t.wellKnown) {
				continue
			}
			cur := t.current(narrowed, nodeReqs, g.key)
			next := g.narrowCapped(t, cur)
			if next == nil {
				// No domain is left where the node may pass the spread's filter; on a node
				// that fails it kube-scheduler does not count the pod, so the node may
				// still take it, held to fail the filter (plan:980196).
				if failing, ok := t.failFilter(g, nodeReqs, narrowed); ok {
					narrowed = failing
					continue
				}
				return nil, g, false
			}
			if next != cur {
				if narrowed == nil {
					narrowed = requirements.Requirements{}
				}
				narrowed[g.key] = cur.Intersection(next)
			}
		}
	}
	return t.settleInverse(p, nodeReqs, narrowed), nil, true
}

// spreadsOn reports whether form f carries a spread on key (not the hostname's).
func spreadsOn(f *podForm, key string) bool {
	for _, g := range f.spread {
		if !g.hostname && g.key == key {
			return true
		}
	}
	return false
}

// failFilter adds to narrowed what holds a node with requirements nodeReqs to fail spread
// g's node filter: every filter term is one In or NotIn requirement on a key the node names,
// and the node is narrowed to its complement. ok=false when the filter is not of that form or
// the node cannot fail it.
func (t *topology) failFilter(g *topologyGroup, nodeReqs, narrowed requirements.Requirements) (requirements.Requirements, bool) {
	if g.spread == nil || g.spread.filterTerms == nil {
		return narrowed, false
	}
	out := requirements.Requirements{}
	for _, term := range g.spread.filterTerms {
		if len(term) != 1 {
			return narrowed, false
		}
		for k, r := range term {
			if _, named := nodeReqs[k]; !named {
				return narrowed, false
			}
			if _, _, _, bounded := r.Bounds(); bounded || len(r.Values()) == 0 {
				return narrowed, false
			}
			op := requirements.NotIn
			if r.Operator() == requirements.NotIn {
				op = requirements.In
			}
			cur := out[k]
			if cur == nil {
				cur = t.current(narrowed, nodeReqs, k)
			}
			next := cur.Intersection(requirements.MustNew(k, op, r.Values()...))
			if next.IsEmpty() {
				return narrowed, false
			}
			out[k] = next
		}
	}
	if narrowed == nil {
		return out, true
	}
	for k, r := range out {
		narrowed[k] = r
	}
	return narrowed, true
}

// narrowFor adds g's narrowing of g's key to narrowed, or returns ok=false when g allows no
// domain there.
func (t *topology) narrowFor(g *topologyGroup, p *podData, f *podForm, nodeReqs, narrowed requirements.Requirements, host int32) (requirements.Requirements, bool) {
	if t.keyless(g, nodeReqs) && !narrowed.Has(g.key) {
		return narrowed, true
	}
	cur := t.current(narrowed, nodeReqs, g.key)
	from := cur
	if _, spread := g.rule.(*spreadRule); spread && t.karpenter && !g.hostname {
		// Karpenter takes each group's domain over the node's own domains and intersects
		// them: a spread's least populated domain is not sought among those the pod's other
		// groups left (difftest plan:964651: a zone spread drew zone a among its tied
		// domains, where another spread's count was above its minimum in b and c).
		from = t.get(nodeReqs, g.key)
	}
	next := g.allowed(t, p, f, from, host)
	if next == nil {
		return narrowed, false
	}
	if next != cur {
		if narrowed == nil {
			narrowed = requirements.Requirements{}
		}
		narrowed[g.key] = cur.Intersection(next)
		if narrowed[g.key].IsEmpty() {
			return narrowed, false
		}
	}
	return narrowed, true
}
