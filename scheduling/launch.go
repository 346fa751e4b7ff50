package scheduling

import (
	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// A pod that a spread counts is counted where its NodeClaim will launch (pod anti-affinity
// counts it in every domain it may launch in, affinity in none, until the round ends:
// rounds.go).
// When it joins a NodeClaim that is still open on the group's key (any zone), or that may
// launch on a type that passes the group's node filter or on one that does not, the NodeClaim
// is settled the way its cheapest launch option (the one the plan reports) goes: pinned to
// that option's domain, and narrowed to the options that pass the filter, or to those that
// fail it. So the plan, as launched, has every pod where the counts put it. (Karpenter counts
// such a pod only once its node's domain is known, and counts it when the node might pass
// the filter, so its launched plan can break a hard spread.)

// launchOption is the cheapest choice a NodeClaim could launch with: a template type and its
// cheapest offering under the NodeClaim's requirements.
type launchOption struct {
	t    *template
	i    int
	o    *cloudprovider.Offering
	reqs requirements.Requirements
}

// cheapestLaunch is the cheapest type of types that fits (ties by name) with its cheapest
// offering under reqs, or ok=false when none can launch.
func cheapestLaunch(t *template, reqs requirements.Requirements, types bitset, fits func(int) bool) (launchOption, bool) {
	info := t.offerings(reqs)
	best := -1
	types.each(func(i int) bool {
		o := info.cheapest[i]
		if o == nil {
			return true
		}
		// Types sit roughly cheapest first: compare prices before the dearer fit check.
		if best >= 0 && (o.Price > info.cheapest[best].Price ||
			o.Price == info.cheapest[best].Price && t.types[i].it.Name > t.types[best].it.Name) {
			return true
		}
		if fits(i) {
			best = i
		}
		return true
	})
	if best < 0 {
		return launchOption{}, false
	}
	return launchOption{t: t, i: best, o: info.cheapest[best], reqs: reqs}, true
}

// value is the option's label value for key: the offering's (zone, capacity type), the
// type's, or the NodeClaim's own (a resolved custom label, as finalize resolves it).
func (l launchOption) value(key string) (string, bool) {
	if r, ok := l.o.Requirements[key]; ok {
		if vs := r.Values(); len(vs) == 1 && r.Operator() == requirements.In {
			return vs[0], true
		}
	}
	if r, ok := l.t.types[l.i].it.Requirements[key]; ok {
		if v := singleValue(r); v != "" {
			return v, true
		}
		if r.Operator() == requirements.DoesNotExist {
			return "", false
		}
	}
	if r, ok := l.reqs[key]; ok && r.Operator() != requirements.DoesNotExist {
		if v := r.Any(); v != "" {
			return v, true
		}
	}
	return "", false
}

// pinLaunched pins key in reqs (which it modifies) to where launch option l goes: l's value,
// or DoesNotExist when l has no such label; a key with a single value or DoesNotExist stays.
// It returns the value ("": none) and whether reqs changed.
func (t *topology) pinLaunched(reqs requirements.Requirements, key string, l launchOption) (string, bool) {
	cur := t.get(reqs, key)
	if v := singleValue(cur); v != "" {
		return v, false
	}
	if cur.Operator() == requirements.DoesNotExist {
		return "", false
	}
	v, _ := l.value(key)
	if v == "" {
		reqs[key] = requirements.MustNew(key, requirements.DoesNotExist)
		return "", true
	}
	reqs[key] = cur.Intersection(requirements.MustNew(key, requirements.In, v))
	return v, true
}

// pin is `key In [value]` of the option, or `key DoesNotExist` when it has no such label.
func (l launchOption) pin(key string) *requirements.Requirement {
	if v, ok := l.value(key); ok {
		return requirements.MustNew(key, requirements.In, v)
	}
	return requirements.MustNew(key, requirements.DoesNotExist)
}

// satisfies reports whether a node launched with this option satisfies every requirement
// of term (a missing label satisfies only NotIn and DoesNotExist).
func (l launchOption) satisfies(term requirements.Requirements) bool {
	for k, r := range term {
		if v, ok := l.value(k); ok {
			if !r.Has(v) {
				return false
			}
		} else if !negative(r) {
			return false
		}
	}
	return true
}

// failing is a requirement that excludes term: on a key where the option fails it, the
// complement of the term's requirement when it has one, else the option's own value. It
// returns no key when the NodeClaim can never pass term: a label no option can carry (not
// well-known, not the NodeClaim's) is missing whatever launches.
func (l launchOption) failing(term requirements.Requirements, wellKnown requirements.KeySet) (string, *requirements.Requirement) {
	var key string
	for _, k := range term.Keys() {
		r := term[k]
		v, ok := l.value(k)
		if ok && r.Has(v) || !ok && negative(r) {
			continue
		}
		if _, defined := l.reqs[k]; !ok && !defined && !wellKnown[k] {
			return "", nil
		}
		if c := complementOf(r); c != nil {
			return k, c
		}
		if key == "" {
			key = k
		}
	}
	if key == "" {
		return "", nil
	}
	return key, l.pin(key)
}

// complementOf is the requirement allowing exactly the values (and absence) r does not, or
// nil when it cannot be written (integer bounds).
func complementOf(r *requirements.Requirement) *requirements.Requirement {
	if _, hasGte, _, hasLte := r.Bounds(); hasGte || hasLte {
		return nil
	}
	switch r.Operator() {
	case requirements.In:
		return requirements.MustNew(r.Key, requirements.NotIn, r.Values()...)
	case requirements.NotIn:
		return requirements.MustNew(r.Key, requirements.In, r.Values()...)
	case requirements.Exists:
		return requirements.MustNew(r.Key, requirements.DoesNotExist)
	default:
		return requirements.MustNew(r.Key, requirements.Exists)
	}
}

// settles reports whether a NodeClaim the pod joins may have to be settled: a group on a key
// other than the hostname counts the pod or records its required anti-affinity, or a spread
// group with a node filter counts it.
func (p *podData) settles() bool {
	for _, g := range p.selectedBy {
		if pinsCounted(g) || hasFilter(g) {
			return true
		}
	}
	return false
}

// pinsCounted reports whether a NodeClaim open on g's key is pinned when a pod g counts joins
// it: for a spread, not for pod (anti-)affinity, which count the pod in no domain (affinity)
// or in every domain the NodeClaim may launch in (anti-affinity) until the round ends
// (rounds.go), as Karpenter does.
func pinsCounted(g *topologyGroup) bool {
	return g.key != v1.LabelHostname && g.kind == groupSpread
}

// hasFilter reports whether a spread group counts only nodes passing non-empty terms.
func hasFilter(g *topologyGroup) bool {
	if g.kind != groupSpread {
		return false
	}
	for _, t := range g.filterTerms() {
		if len(t) > 0 {
			return true
		}
	}
	return false
}

// settlement returns the requirements that settle a NodeClaim with requirements reqs and
// remaining types for every group counting p, following its cheapest launch option (nil
// when nothing is open), or ok=false when no option can launch.
func (s *solver) settlement(t *template, p *podData, reqs requirements.Requirements, types bitset, fits func(int) bool) (out requirements.Requirements, ok bool) {
	var l launchOption
	have, tried := false, false
	option := func() bool {
		if !tried {
			l, have = cheapestLaunch(t, reqs, types, fits)
			tried = true
		}
		return have
	}
	add := func(r *requirements.Requirement) {
		if out == nil {
			out = requirements.Requirements{}
		}
		if cur, ok := out[r.Key]; ok {
			r = cur.Intersection(r)
		}
		out[r.Key] = r
	}
	// pinOpen pins an open key of g to the option's domain.
	pinOpen := func(g *topologyGroup) bool {
		if g.key == v1.LabelHostname {
			return true
		}
		if _, done := out[g.key]; done {
			return true
		}
		if cur := s.topo.get(reqs, g.key); singleValue(cur) != "" || cur.Operator() == requirements.DoesNotExist {
			return true
		}
		if !option() {
			return false
		}
		if v, ok := l.value(g.key); ok {
			add(g.domainRequirement(v))
		} else {
			add(l.pin(g.key))
		}
		return true
	}
	for _, g := range p.selectedBy {
		if pinsCounted(g) && !pinOpen(g) {
			return nil, false
		}
		if !hasFilter(g) || g.key == v1.LabelHostname {
			// Counting a pod on a host it may not count on only makes that host look fuller.
			continue
		}
		if !option() {
			return nil, false
		}
		passed := false
		for _, term := range g.filterTerms() {
			if l.satisfies(term) {
				for _, k := range term.Keys() {
					add(term[k])
				}
				passed = true
				break
			}
		}
		if passed {
			continue
		}
		for _, term := range g.filterTerms() {
			if k, r := l.failing(term, s.wellKnown); k != "" {
				add(r)
			}
		}
	}
	return out, true
}
