package scheduling

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// A pod that a spread counts is counted where its NodeClaim will launch (pod anti-affinity
// counts it in every domain it may launch in, affinity in none, until the round ends:
// rounds.go).
// When a pod that carries the spread joins a NodeClaim that is still open on the spread's key
// (any zone), or that may launch on a type that passes the spread's node filter or on one that
// does not, the NodeClaim is settled the way its cheapest launch option (the one the plan
// reports) goes: pinned to that option's domain, and narrowed to the options that pass the
// filter, or to those that fail it. A pod the spread only selects is counted once something
// else settles the NodeClaim, else when the round ends (settleDeferred), in the domain of
// those the NodeClaim launches in at its cheapest price that holds fewest of the spreads'
// pods. A settlement that would leave fewer instance types than a minValues asks is not
// pinned but promised: the NodeClaim's cheapest option must keep meeting it, so pods that
// would move it elsewhere go to another NodeClaim. So the plan, as launched, has every pod
// where the counts put it. (Karpenter counts such a pod only once its node's domain is known,
// and counts it when the node might pass the filter, so its launched plan can break a hard
// spread.)

// launchOption is the cheapest choice a NodeClaim could launch with: a template type and its
// cheapest offering under the NodeClaim's requirements.
type launchOption struct {
	t    *template
	i    int
	o    *cloudprovider.Offering
	reqs requirements.Requirements
}

// anyType is the fits filter that accepts every type (for types that already fit their pods).
func anyType(int) bool { return true }

// cheapestLaunch is the cheapest type of types that fits (ties by name) with its cheapest
// offering under reqs, or ok=false when none can launch. It walks the offerings' types
// cheapest first and stops at the first of types that fits: a scan of every type in
// types, keeping the cheapest that fits, was a tenth of a Solve at 20k pods.
func cheapestLaunch(t *template, reqs requirements.Requirements, types bitset, fits func(int) bool) (launchOption, bool) {
	info := t.offerings(reqs)
	for _, i := range info.launchOrder(t) {
		if types.has(int(i)) && fits(int(i)) {
			return launchOption{t: t, i: int(i), o: info.cheapest[i], reqs: reqs}, true
		}
	}
	return launchOption{}, false
}

// launchOrder are the types with an offering, by the price of their cheapest offering, then
// name, then the later type first: the order in which a scan over the types in index order,
// keeping the cheapest (a later type of the same price and name replacing an earlier one),
// would prefer them.
func (info *offerInfo) launchOrder(t *template) []int32 {
	if info.ordered {
		return info.byPrice
	}
	info.ordered = true
	for i, o := range info.cheapest {
		if o != nil {
			info.byPrice = append(info.byPrice, int32(i))
		}
	}
	slices.SortFunc(info.byPrice, func(a, b int32) int {
		return cmp.Or(
			cmp.Compare(info.cheapest[a].Price, info.cheapest[b].Price),
			strings.Compare(t.types[a].it.Name, t.types[b].it.Name),
			cmp.Compare(b, a))
	})
	return info.byPrice
}

// cheapestLaunch is cheapestLaunch(c.t, counting, c.types, anyType), the last answer for c
// when it still holds: the same offerings, the types a subset of those it was found among,
// and its type (or none) still the answer — the cheapest of a set is the cheapest of every
// subset holding it. A pod joining a claim mostly narrows its types and keeps its
// offerings: the scan over up to 400 types per joining pod was a tenth of a Solve.
// SolveWithoutIndexes scans every time (TestPropIndexesChangeNothing).
func (c *claim) cheapestLaunch(counting requirements.Requirements) (launchOption, bool) {
	info := c.t.offerings(counting)
	if info == c.launchInfo && c.types.subsetOf(c.launchTypes) {
		switch {
		case c.launchAt < 0:
			return launchOption{}, false
		case c.types.has(c.launchAt):
			return launchOption{t: c.t, i: c.launchAt, o: info.cheapest[c.launchAt], reqs: counting}, true
		}
	}
	l, ok := cheapestLaunch(c.t, counting, c.types, anyType)
	c.launchInfo, c.launchTypes = info, append(c.launchTypes[:0], c.types...)
	return l, ok
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

// settles reports whether a NodeClaim the pod joins may have to be settled: the pod carries
// a spread that counts it on a key other than the hostname, or one with a node filter.
func (p *podData) settles() bool { return p.form != nil && len(p.settlingFor(p.form)) > 0 }

// selfAffinity reports whether g is a pod affinity on a key other than the hostname (whose
// own pods, selecting themselves, settle a NodeClaim they join: settlingFor).
func selfAffinity(g *topologyGroup) bool {
	return g.rule.bootstraps() && !g.hostname
}

// pinsCounted reports whether a NodeClaim open on g's key is pinned when a pod g counts joins
// it: for a spread, not for pod (anti-)affinity, which count the pod in no domain (affinity)
// or in every domain the NodeClaim may launch in (anti-affinity) until the round ends
// (rounds.go), as Karpenter does.
func pinsCounted(g *topologyGroup) bool {
	return !g.hostname && g.rule.countsDecided()
}

// hasFilter reports whether a spread group counts only nodes passing non-empty terms.
func hasFilter(g *topologyGroup) bool {
	for _, t := range g.filterTerms() {
		if len(t) > 0 {
			return true
		}
	}
	return false
}

// settlement returns the requirements that settle NodeClaim c with requirements reqs and
// remaining types for each of groups, following the option it launches on (launchOf: its
// cheapest, or the cheapest with room past a full reservation; nil when nothing is open), or
// ok=false when no option can launch.
func (s *solver) settlement(c *claim, groups []*topologyGroup, reqs requirements.Requirements, types bitset, fits func(int) bool) (out requirements.Requirements, ok bool) {
	var l launchOption
	have, tried := false, false
	option := func() bool {
		if !tried {
			l, have = s.launchOf(c, reqs, types, fits)
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
		if g.hostname {
			return true
		}
		if cur, done := out[g.key]; done && (singleValue(cur) != "" || cur.Operator() == requirements.DoesNotExist) {
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
	for _, g := range groups {
		if (pinsCounted(g) || selfAffinity(g) && !s.matchedEverywhere(g, reqs)) && !pinOpen(g) {
			return nil, false
		}
		if !hasFilter(g) || g.hostname {
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

// matchedEverywhere reports whether pod affinity g counts a pod it matches in every domain
// of its key a NodeClaim with requirements reqs may launch in: a pod of g joining it then
// need not pin it, as its peers find a match wherever it launches (difftest default
// plan:1000289: app-0-0's NodeClaim, open on zones b and c, each with app-0 pods bound, was
// pinned to zone b, its cheapest r6-2x16, and app-1-0, whose four GPUs only zone c offers,
// could no longer join it as Karpenter's did).
func (s *solver) matchedEverywhere(g *topologyGroup, reqs requirements.Requirements) bool {
	r := s.topo.get(reqs, g.key)
	n := 0
	for _, d := range g.domains {
		if !r.Has(d) {
			continue
		}
		if g.counts[d] == 0 {
			return false
		}
		n++
	}
	return n > 0
}

// trackDeferred keeps the pods c holds uncounted (deferSelected) counted where c launches now
// (its cheapest option, or the cheapest with room: roomAfter), and not counted where it fails their spread's node filter: a pod
// joining c may have changed that option.
func (s *solver) trackDeferred(c *claim) {
	counting := c.countingReqs()
	var l launchOption
	var ok bool
	if s.opts.withoutIndexes {
		l, ok = cheapestLaunch(c.t, counting, c.types, anyType)
	} else {
		l, ok = c.cheapestLaunch(counting)
	}
	c.launchAt, c.roomed = -1, false
	if ok {
		c.launchAt = l.i
		cheapest := l.o
		l, ok = s.roomAfter(c, c.types, anyType, l, ok)
		c.roomed = !ok || l.o != cheapest
	}
	for i := range c.deferred {
		d := &c.deferred[i]
		want := s.deferredDomain(c, d, counting, l, ok)
		if want == d.at {
			continue
		}
		if d.at != "" {
			s.topo.uncountN(d.g, d.at, d.n)
		}
		if want != "" {
			s.topo.countN(d.g, want, d.n)
		}
		d.at = want
	}
}

// deferredDomain is where the pods of d on c count when c has requirements counting (with its
// promise) and cheapest option l (ok=false: none): "" for nowhere.
func (s *solver) deferredDomain(c *claim, d *deferredCount, counting requirements.Requirements, l launchOption, ok bool) string {
	if d.g.hostname {
		if d.at != "" {
			return d.at
		}
		// Counted once the NodeClaim passes the filter whatever launches (it never stops
		// passing: requirements only narrow), as Karpenter counts it only where its
		// requirements name the filter's labels (issue #15's R4, plan-a731).
		if pass, decided := d.g.filterDecided(counting, c.t.taints, s.wellKnown); pass && decided {
			return c.hostname
		}
		return ""
	}
	if !ok || !launchedPasses(d.g, l) {
		return ""
	}
	v, _ := l.value(d.g.key)
	return v
}

// keepsDeferred reports whether placing p (form f) on c with placement pl (fits: the types
// that fit p) keeps the spreads whose pods c holds counted where its cheapest option
// launches (trackDeferred): those pods move with that option, and a move must leave every
// spread's minimum at or above its floor (a pod that carries the spread was placed against
// the minimum of its time) and every domain holding a carrier, p's own included, within maxSkew
// (keepsCarrier).
// The launch is found once for both.
func (s *solver) keepsDeferred(c *claim, p *podData, f *podForm, pl placement, fits func(int) bool) bool {
	// Pods left uncounted (at "": the NodeClaim's filter undecided) that p's joining counts
	// raise their new domain as pods that move do.
	watched := func(d *deferredCount) bool {
		return !d.g.hostname && (d.at != "" && d.g.floor > 0 || len(d.g.carriedIn) > 0 || f.carriesRequired(d.g))
	}
	moving := false
	for i := range c.deferred {
		moving = moving || watched(&c.deferred[i])
	}
	if !moving {
		return true
	}
	counting := pl.reqs
	if len(pl.promise) > 0 {
		counting = pl.reqs.Union(pl.promise)
	}
	l, ok := s.launchOf(c, counting, pl.types, fits)
	for i := range c.deferred {
		d := &c.deferred[i]
		if !watched(d) {
			continue
		}
		to := s.deferredDomain(c, d, counting, l, ok)
		if to == d.at {
			continue
		}
		if d.at != "" && d.g.floor > 0 && !d.keepsFloor() {
			return false
		}
		// p itself carries the spread into to: its own check counted the pods before they moved.
		if to != "" && (d.g.carriedIn[to] > 0 || f.carriesRequired(d.g)) && !s.keepsCarrier(d, to, p, f) {
			return false
		}
	}
	return true
}

// keepsFloor reports whether d's spread keeps its minimum at or above its floor once d's
// pods leave d.at.
func (d *deferredCount) keepsFloor() bool {
	low := d.g.counts[d.at] - d.n
	for _, dom := range d.g.domains {
		if dom != d.at {
			low = min(low, d.g.counts[dom])
		}
	}
	return low >= d.g.floor
}

// raiseFloors records, for each spread p (form f) carries, the minimum p was placed
// against (keepsDeferred).
func (s *solver) raiseFloors(p *podData, f *podForm) {
	for _, g := range f.spread {
		if !g.hostname {
			g.floor = max(g.floor, s.topo.admissible(g, p, f).low)
		}
	}
	if s.topo.capCarriers {
		// Under the cap, p kept a carrier's domain within maxSkew of the minimum of its
		// time: that minimum may not drop either (host_spread_cap.go).
		for _, g := range p.selectedBy {
			if !g.hostname && len(g.carriedIn) > 0 && !f.carries(g) {
				g.floor = max(g.floor, g.capLow(s.topo))
			}
		}
	}
}

// settleDeferred settles, at the end of a round, every NodeClaim holding pods a spread
// selects that were counted where its cheapest option launches (trackDeferred): it is
// pinned there on the spreads' keys, and narrowed to the options that pass or fail their
// node filters as that option does (settlement), so it launches where they were counted.
func (s *solver) settleDeferred() {
	for _, c := range s.claims {
		if len(c.deferred) == 0 || c.launched {
			continue
		}
		var groups []*topologyGroup
		for _, d := range c.deferred {
			groups = append(groups, d.g)
		}
		if out, ok := s.settlement(c, groups, c.countingReqs(), c.types, anyType); ok && len(out) > 0 {
			s.settleClaim(c, out)
		}
		// A hostname spread's pods still uncounted count where the option c launches on
		// passes its filter (the settlement leaves the NodeClaim open there).
		if l, ok := s.launchOf(c, c.countingReqs(), c.types, anyType); ok {
			for _, d := range c.deferred {
				if d.g.hostname && d.at == "" && launchedPasses(d.g, l) {
					s.topo.countN(d.g, c.hostname, d.n)
				}
			}
		}
		c.deferred = nil
	}
}

// settleClaim narrows c by extra, or, when that would leave fewer instance types than a
// minValues asks, promises it (c's cheapest option must keep meeting extra).
func (s *solver) settleClaim(c *claim, extra requirements.Requirements) {
	reqs, changed, loose := settleReqs(c.reqs, extra, c.loose, true)
	if len(changed) == 0 {
		return
	}
	types := c.types.clone()
	c.t.narrowTypes(types, changed, reqs)
	if types.empty() || !s.keepsMinValues(c, types, reqs, anyType) {
		c.promise = c.promise.Union(extra)
	} else {
		c.reqs, c.loose = reqs, loose
		c.keepTypes(types)
	}
	c.setValues(s, c.countingReqs())
}

// settleReqs narrows reqs by settlement, copying reqs at its first change, and notes each
// key it narrows in loose with its value before (copying loose first while own is true):
// the claim's settlement, whether check settles it for a joining pod or settleClaim at the
// end of a round. settled are the narrowed keys, sorted, as narrowTypes takes them.
func settleReqs(reqs, settlement requirements.Requirements, loose map[string]*requirements.Requirement, own bool) (out requirements.Requirements, settled []string, _ map[string]*requirements.Requirement) {
	out = reqs
	for k, r := range settlement {
		cur := out.Get(k)
		next := cur.Intersection(r)
		if next.Equal(cur) {
			continue
		}
		if len(settled) == 0 {
			out = out.Copy()
		}
		if _, ok := loose[k]; !ok {
			if own {
				loose, own = copyLoose(loose), false
			}
			loose[k] = cur
		}
		out[k] = next
		settled = append(settled, k)
	}
	sort.Strings(settled)
	return out, settled, loose
}

// crowdedBy is the spread p (form f) carries that its domain on c would break once the pods
// of it that c holds counted elsewhere (trackDeferred) are counted there with p, or nil.
// (Settled with p, c takes them to p's domain: the plan as launched keeps p's skew with
// them.)
func (s *solver) crowdedBy(c *claim, p *podData, f *podForm, reqs, promise requirements.Requirements) *topologyGroup {
	for _, g := range p.settlingFor(f) {
		d := deferredOf(c.deferred, g)
		if d == nil || !pinsCounted(g) {
			continue
		}
		v := singleValue(s.topo.get(reqs, g.key))
		if r, ok := promise[g.key]; ok && v == "" {
			v = singleValue(r)
		}
		if v == "" {
			continue
		}
		moving := 0
		if d.at != v {
			moving = d.n
		}
		adm := s.topo.admissible(g, p, f)
		if g.counts[v]+boolInt(p.selfSelects(g))+moving-adm.low > int(g.spread.maxSkew) {
			return g
		}
	}
	return nil
}
