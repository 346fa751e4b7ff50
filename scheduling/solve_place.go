package scheduling

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// Solve's placement loop: Karpenter's queue in rounds, each pod tried on existing nodes,
// open NodeClaims, then a new NodeClaim per template.

// run is Karpenter's queue: pods in first-fit-decreasing order, retried while anything else
// makes progress; then, while NodePool limits refused pods, Karpenter's later rounds.
func (s *solver) run(pods []*podData) map[*podData]podFailure {
	errs := map[*podData]podFailure{}
	queue := make([]*podData, 0, len(pods))
	for _, p := range pods {
		if p.invalid != nil {
			errs[p] = singleFailure(*p.invalid)
			continue
		}
		queue = append(queue, p)
	}
	var undo *roundUndo
	for len(queue) > 0 {
		s.round++
		s.limitRefused, s.claimMinValuesRefused, s.reservedDeferred = false, false, false
		s.topo.startRound(queue)
		s.startReservationRound()
		placed := s.runQueue(queue, errs)
		if s.karpenter {
			if placed == 0 || placed == s.createClaims(errs) {
				break // nothing placed, or every NodeClaim holding its pods refused
			}
			queue = s.karpenterRound(pods, errs)
			continue
		}
		s.settleDeferred()
		if placed == 0 && undo != nil {
			undo.apply(s.topo) // a later round that places nothing changes nothing
			break
		}
		queue, undo = s.laterRound(pods, errs)
	}
	s.restoreUnchanged()
	return errs
}

// runQueue places the pods of one round, recording the reason of each that fails in errs,
// and returns how many it placed.
func (s *solver) runQueue(queue []*podData, errs map[*podData]podFailure) (placed int) {
	sortQueue(queue)
	n := 0
	for n < len(queue) && queue[n].first {
		n++
	}
	if n == 0 || n == len(queue) {
		return s.runTurns(queue, errs)
	}
	// A second try's pods placed first take their turns among themselves before the
	// others': one may need another placed first (a required pod affinity, firstAffinity),
	// where retried behind the rest it finds what they took (plan:980196).
	head := slices.Clone(queue[:n])
	placed = s.runTurns(head, errs)
	rest := queue[n:]
	for _, p := range head {
		if _, failed := errs[p]; failed {
			rest = append(rest, p)
		}
	}
	return placed + s.runTurns(rest, errs)
}

// runTurns places the pods of queue in its order, a pod that fails retried behind the
// others while anything else makes progress; it records the reason of each that fails in
// errs and returns how many it placed.
func (s *solver) runTurns(queue []*podData, errs map[*podData]podFailure) (placed int) {
	lastLen := make(map[*podData]int, len(queue))
	s.capWaits = !s.karpenter
	defer func() { s.capWaits = false }()
	var ready []*podData // waiting pods a minimum of which rose (cap_wait.go), tried first
	for {
		if len(ready) == 0 && len(s.waiting) > 0 && (len(queue) == 0 || lastLen[queue[0]] == len(queue)) {
			// Nothing left can raise a minimum: the pods still waiting take their turn as
			// any pod that failed, their fallback included.
			s.capWaits = false
			for _, w := range s.waiting {
				queue = append(queue, w.p)
			}
			s.waiting = s.waiting[:0]
			clear(lastLen)
		}
		var p *podData
		switch {
		case len(ready) > 0:
			p, ready = ready[0], ready[1:]
		case len(queue) > 0:
			p, queue = queue[0], queue[1:]
			if n, ok := lastLen[p]; ok && n == len(queue)+1 {
				return placed // a full turn of the queue placed nothing: the rest keep their reasons
			}
		default:
			return placed
		}
		if failure, ok := s.trySchedule(p); !ok {
			errs[p] = failure
			if s.waitCap {
				s.waitCap = false
				delete(lastLen, p)
				s.wait(p)
				continue
			}
			queue = append(queue, p)
			lastLen[p] = len(queue)
			continue
		}
		delete(errs, p)
		placed++
		if len(s.waiting) > 0 {
			ready = s.release(ready)
		}
	}
}

// sortQueue sorts the queue by queueKey.compare, equal pods in their order: a stable sort,
// done as pdqsort on the positions with the keys read from a table, since SortStableFunc's
// in-place merging cost 5 % of Solve at 20,000 pods, reading each comparison's fields through
// the pods as much, and moving 80-byte keys with pointers (write barriers) half of that.
func sortQueue(queue []*podData) {
	keys := make([]queueKey, len(queue))
	order := make([]int32, len(queue))
	for i, p := range queue {
		keys[i], order[i] = p.queueKey(), int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(keys[a].compare(&keys[b]), cmp.Compare(a, b))
	})
	sorted := make([]*podData, len(queue))
	for i, j := range order {
		sorted[i] = queue[j]
	}
	copy(queue, sorted)
}

// queueKey is what orders a pod in the queue: the pods placed first in a second try
// (starved.go) ahead, then first-fit decreasing by cpu, then memory, then the oldest first
// (created, as seconds and nanoseconds: time.Time's Before and Equal), then by UID and
// namespace/name.
type queueKey struct {
	first       bool
	cpu, mem    int64
	createdSec  int64
	createdNsec int
	uid         types.UID
	key         string
}

func (p *podData) queueKey() queueKey {
	t := p.pod.CreationTimestamp
	return queueKey{p.first, p.cpu, p.mem, t.Unix(), t.Nanosecond(), p.pod.UID, p.key}
}

func (a *queueKey) compare(b *queueKey) int {
	switch {
	case a.first != b.first:
		if a.first {
			return -1
		}
		return 1
	case a.cpu != b.cpu:
		return cmp.Compare(b.cpu, a.cpu)
	case a.mem != b.mem:
		return cmp.Compare(b.mem, a.mem)
	case a.createdSec != b.createdSec:
		return cmp.Compare(a.createdSec, b.createdSec)
	case a.createdNsec != b.createdNsec:
		return cmp.Compare(a.createdNsec, b.createdNsec)
	case a.uid != b.uid:
		return cmp.Compare(a.uid, b.uid)
	}
	return cmp.Compare(a.key, b.key)
}

// trySchedule places p, relaxing its preferences one at a time; it reports success or the
// failure of the last attempt.
func (s *solver) trySchedule(p *podData) (podFailure, bool) {
	// A Solve that stands for Karpenter's scheduler tries the terms in Karpenter's order
	// (difftest disrupt:1007557).
	if !s.asKarpenters() && !s.termsInOrder && s.onExistingByAnyTerm(p) {
		return podFailure{}, true
	}
	s.topo.othersMissed = false
	failure, ok := s.tryForms(p)
	if ok || !s.topo.othersMissed || failure.deferred() || s.waitCap {
		return failure, ok
	}
	// An attempt's spread took a tied domain the pod's other groups refuse, and every
	// relaxation failed: Karpenter's queue retries the pod with new draws (othersRefuse).
	s.topo.redrawOthers = true
	failure, ok = s.tryForms(p)
	s.topo.redrawOthers = false
	return failure, ok
}

// tryForms is one pass of trySchedule over p's relaxations.
//
// In Karpenter mode, when an attempt's spreads took tied domains their NodeClaims cannot
// launch in, and Karpenter's draws, as good as random, most likely miss there too (missOdds
// over one half), and the pod's next relaxation gives it spread groups of its own
// (relaxBears), the retry that draws again is that relaxed attempt, as in Karpenter's
// trySchedule: the relaxed groups are made before the pod lands and count it (difftest
// plan:991064: app-0-0 missed zone a of a, b and c, relaxed to tolerate PreferNoSchedule and
// landed in c, so no later app-0 pod's relaxed spread found c empty). Otherwise the unrelaxed
// form draws again, as before (plan:978197: pool-2 launches in two of three tied zones).
func (s *solver) tryForms(p *podData) (podFailure, bool) {
	var failure podFailure
	defer func() { s.relaxedRedraw = false }()
	for f := p.form; f != nil; f = f.relax(s.pns()) {
		if f != p.form {
			s.topo.bear(f.spread)
		}
		s.canRelax = s.karpenter && f.relaxBears(s.pns())
		var ok bool
		failure, ok = s.add(p, f)
		s.canRelax = false
		if ok {
			return podFailure{}, true
		}
		if failure.deferred() {
			return failure, false // Karpenter relaxes no pod its reservations held back
		}
		if s.waitCap {
			return failure, false // relaxed only once its wait is over (cap_wait.go)
		}
	}
	if s.karpenter {
		return failure, false
	}
	// Karpenter's relaxation drops a required node-affinity term before any preference, so a
	// term is never tried without them; kube-scheduler binds a pod to a node matching any
	// term, whatever its preferences. The default tries each term but the last (whose form
	// without preferences the loop tried) with every preference relaxed away (difftest
	// default plan:971612: app-0's zone affinity held it to zone c, where its ScheduleAnyway
	// zone spread refused it under its first term, cpu > 4; its second term, zone b, found
	// no match: three app-0 pods were left out, where Karpenter placed all four).
	f := p.form
	for len(f.requiredTerms) > 1 {
		if bare := f.withoutPreferences(s.pns()); bare != nil {
			s.topo.bear(bare.spread)
			if _, ok := s.add(p, bare); ok {
				return podFailure{}, true
			}
			s.waitCap = false
		}
		f = f.relax(s.pns()) // drops the first term
	}
	return failure, false
}

// onExistingByAnyTerm places p on an existing node that matches any one of its required
// node-affinity terms, trying them in order. kube-scheduler binds a pod to a node matching
// any term; Karpenter's relaxation (trySchedule's loop) tries the terms one at a time, so it
// opens a NodeClaim for the first before it looks at a node that only a later one matches.
// The default offers the existing nodes every term first (difftest default plan:910079: a
// $0.0454/h NodeClaim for a pod a free node would take), but not in disruption's simulations,
// where Karpenter's order decides which nodes the provisioner nominates (difftest
// disrupt:1007557: pending-0, on-demand OR zone c, took spot node-05 in zone c, which Karpenter,
// launching an on-demand NodeClaim for the first term, found empty and removed).
func (s *solver) onExistingByAnyTerm(p *podData) bool {
	f := p.form
	if len(f.requiredTerms) < 2 || len(s.existing) == 0 {
		return false
	}
	for {
		s.topo.beginAttempt()
		// Under the hostname-spread cap, as add's first attempt: the uncapped fallback comes
		// only after every capped place, NodeClaims included (host_spread_cap.go).
		s.topo.capCarriers = s.capsCarriers(p, f)
		placed := s.placeOnExisting(p, f)
		s.topo.capCarriers = false
		if placed {
			s.laterTerm = s.laterTerm || f != p.form
			return true
		}
		if len(f.requiredTerms) < 2 {
			return false
		}
		f = f.relax(s.pns()) // drops the first term
		s.topo.bear(f.spread)
	}
}

// noDomainFor computes the domain pre-filters of p (form f) into s.filterBuf and reports
// whether one of its groups admits no domain at all (none of the NodeClaims can take p).
func (s *solver) noDomainFor(p *podData, f *podForm) bool {
	s.filterBuf = s.topo.filters(p, f, s.filterBuf)
	for _, df := range s.filterBuf {
		if len(df.allowed) == 0 {
			return true
		}
	}
	return false
}

// add tries existing nodes, then open NodeClaims, then a new NodeClaim per template. In
// Karpenter mode a spread takes the first of its tied domains on each NodeClaim, as
// Karpenter's map order mostly does, and falls to the next NodePool when that domain
// cannot launch; only when the pod fails everywhere does Karpenter retry it, drawing
// again, so add then tries once more taking the first tied domain that launches.
func (s *solver) add(p *podData, f *podForm) (podFailure, bool) {
	if !s.karpenter && s.capsCarriers(p, f) {
		// Keep the carriers of the hostname spreads that only select p within their skew
		// while p has another place (host_spread_cap.go).
		s.topo.capCarriers = true
		failure, ok := s.addOnce(p, f)
		s.topo.capCarriers = false
		if !ok && s.waitsForCap(p, f) {
			s.waitCap = true // before its fallback, the pod waits (cap_wait.go)
			return failure, false
		}
		if ok || s.strictCap {
			return failure, ok
		}
		failure, ok = s.addDrawn(p, f)
		s.uncapped = s.uncapped || ok
		return failure, ok
	}
	return s.addDrawn(p, f)
}

// addDrawn is add without the cap: addOnce, and in Karpenter mode once more after a missed
// draw.
func (s *solver) addDrawn(p *podData, f *podForm) (podFailure, bool) {
	if s.relaxedRedraw {
		// An earlier form missed its draw: this relaxed attempt is the retry.
		s.topo.redraw = true
		failure, ok := s.addOnce(p, f)
		s.topo.redraw = false
		return failure, ok
	}
	s.topo.missedDraw, s.topo.missOdds, s.topo.missed = false, 1, s.topo.missed[:0]
	failure, ok := s.addOnce(p, f)
	if ok || !s.topo.missedDraw {
		return failure, ok
	}
	if s.canRelax && s.topo.missOdds > 0.5 {
		s.relaxedRedraw = true // the pod's relaxed form draws again (tryForms)
		return failure, ok
	}
	s.topo.redraw = true
	failure, ok = s.addOnce(p, f)
	s.topo.redraw = false
	return failure, ok
}

// addOnce is one attempt of add.
func (s *solver) addOnce(p *podData, f *podForm) (failure podFailure, ok bool) {
	s.topo.beginAttempt()
	if s.placeOnExisting(p, f) {
		return podFailure{}, true
	}
	if len(s.launched) > 0 && !s.noDomainFor(p, f) {
		for _, c := range s.launched {
			if len(s.filterBuf) > 0 && (rejectedByFilters(s.filterBuf, c.values) || s.domainsRefuse(c)) {
				continue
			}
			if c.tryAdd(s, p, f) {
				return podFailure{}, true
			}
		}
	}
	s.lastChange = claimChange{} // Karpenter re-sorts its NodeClaims here (karpenter_create.go)
	s.korderSort()
	if !p.claimsExhausted(f, len(s.claims)) && !s.noDomainFor(p, f) {
		s.runKeys().track(s.filterBuf)
		// A NodeClaim whose cheapest remaining type still has room for the pod takes it at no
		// extra cost; only then fall back to Karpenter's fewest-pods-first order (alone in
		// the default's karpenterOrder variant).
		if s.opts.Packing != PackingKarpenter && !s.karpenterOrder && s.addToOpenClaim(p, f, true) {
			return podFailure{}, true
		}
		// In solveBest's priceJoins try, a pod tied to its domain (a spread over another key
		// than the hostname, a zone affinity or anti-affinity, a volume: tiedToDomain) grows
		// a NodeClaim only when that costs no more than the NodeClaim it would open
		// (paid_joins.go).
		// Read only where a try prices it: the plan is small enough (watchTries), or this is it.
		tied := (s.priceJoins || s.watchTries) && tiedToDomain(p, f)
		if tied && s.priceJoins {
			if c, extra, found := s.paidJoin(p, f); found {
				if n, opens := s.newClaimPrice(p, f); !opens || extra <= n+priceEpsilon {
					if s.addTo(c, p, f) {
						return podFailure{}, true
					}
				} else {
					defer func() {
						if !ok && s.joinAnyOpen(p, f) {
							failure, ok = podFailure{}, true
						}
					}()
				}
			}
		} else if s.addToOpenClaim(p, f, false) {
			s.spreadJoins = s.spreadJoins || tied
			return podFailure{}, true
		}
	}
	if s.noNewClaims {
		return singleFailure(Cause{Code: ReasonTopologySpread}), false
	}
	if len(s.templates) == 0 {
		// Every usable NodePool was dropped (its requirements left no instance type).
		return noNodePoolFailure(s.templateErrors), false
	}
	var causes []Cause
	for _, t := range s.templates {
		c, why := s.newClaim(t, p, f)
		if c != nil {
			return podFailure{}, true
		}
		causes = append(causes, why)
		if why.Detail == reservedDetail {
			break // Karpenter tries no NodePool of lower weight (karpenter_reservations.go)
		}
	}
	return nodePoolsFailure(causes), false
}

// addToOpenClaim adds p (form f) to the first open NodeClaim in list order that takes it, with
// onHead only to one whose cheapest remaining type has the room; s.filterBuf holds p's domain
// filters.
func (s *solver) addToOpenClaim(p *podData, f *podForm, onHead bool) bool {
	c, pl, ok := s.openClaimFor(p, f, onHead)
	if !ok {
		return false
	}
	s.commitTo(c, p, f, pl)
	return true
}

// addTo adds p (form f) to the open NodeClaim c if it takes it.
func (s *solver) addTo(c *claim, p *podData, f *podForm) bool {
	pl, ok := c.check(s, p, f, nil)
	if ok {
		s.commitTo(c, p, f, pl)
	}
	return ok
}

// commitTo adds p to the open NodeClaim c after a successful check.
func (s *solver) commitTo(c *claim, p *podData, f *podForm, pl placement) {
	c.commit(s, p, f, pl)
	s.lastChange = claimChange{c: c, prev: c.prev, joined: true}
	s.bumpCount(c)
}

// openClaimFor is the first open NodeClaim in list order that takes p (form f), with onHead
// only one whose cheapest remaining type has the room, and the placement there; s.filterBuf
// holds p's domain filters.
func (s *solver) openClaimFor(p *podData, f *podForm, onHead bool) (*claim, placement, bool) {
	var caps []capScan
	if s.topo.capCarriers && !s.opts.withoutIndexes {
		if caps = s.capScans(p, f); s.capRefusesAll(caps) {
			return nil, placement{}, false
		}
	}
	for c := s.head; c != nil; c = c.next {
		if last := c.skip(p, s.filterBuf, onHead); last != nil && !s.opts.withoutIndexes {
			c = last // no claim of c's run has the room in a domain p may take: each is refused
			continue
		}
		if onHead && (!c.mayFitHead(p) || !p.requests.fits(c.head)) {
			continue
		}
		if len(s.filterBuf) > 0 && (rejectedByFilters(s.filterBuf, c.values) || s.domainsRefuse(c)) {
			continue
		}
		if len(caps) > 0 && s.capRefuses(caps, c) {
			continue
		}
		if pl, ok := c.check(s, p, f, nil); ok {
			if onHead && pl.changed && (s.priceHeads || s.watchTries && !s.headJoins) && headJoinCosts(c, p, pl) {
				if s.priceHeads {
					continue
				}
				s.headJoins = true
			}
			return c, pl, true
		}
	}
	return nil, placement{}, false
}

// headJoinCosts reports whether p, joining c with placement pl, raises the price of c's
// cheapest launch: its requirements (a zone its volume or node affinity pins it to) take
// the offering of c's cheapest type that has the room, so the join is not the free one
// addToOpenClaim's first pass looks for (difftest default plan:993106: app-2's pods, their
// volumes in zone b, joined app-3's NodeClaims one each, whose cheapest type, a c5-16x32,
// had the room only in zone a, growing four into c7-32x64s where one holds them all). As a
// rule it made other plans dearer (plan:996662: the greedy's later choices), so
// solveBest only notes such a join (watchTries, plans of up to guardMaxPods pods) and plans
// once more with them not free (priceHeads), keeping the plan when it is better.
func headJoinCosts(c *claim, p *podData, pl placement) bool {
	extra, ok := c.joinCost(p, pl)
	return ok && extra > priceEpsilon
}
