package scheduling

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// claim is a NodeClaim opened in this Solve.
type claim struct {
	// next, and the cpu and memory of head, come first: Solve's scans over the NodeClaims
	// read them from one cache line.
	next             *claim
	headCPU, headMem int64
	t                *template
	hostname         string
	host             int32
	reqs             requirements.Requirements
	types            bitset // template types that still fit every pod
	maxAlloc         vec    // per-resource maximum allocatable over types
	head             vec    // room left on the cheapest remaining type
	requests         vec
	pods             []*podData
	ports            []hostPort
	relaxed          bool
	// values are the single values of reqs per topology key (topology.keys), "" where open.
	values []string
	// counted is what the claim takes from its NodePool's limits: the largest capacity of its
	// options when it was opened (Karpenter's pessimistic count), or of its launched type
	// after a later round recounted it (rounds.go).
	counted vec
	// open are the pods (anti-)affinity groups count in every domain the claim may launch
	// in; the round's end settles them (rounds.go).
	open []openCount
	// loose are the keys a settlement pinned, as they were before the pin and narrowed by
	// later pods' own requirements: Karpenter's NodeClaim stays open there, and its
	// consolidation prices the replacement so (NodeClaim.PriceRequirements).
	loose map[string]*requirements.Requirement
	// deferred are the spread counts Karpenter mode leaves to the launch (karpenter.go);
	// launched is set once the NodeClaim launched between Karpenter's rounds, pre is what it
	// was before.
	deferred []deferredCount
	// made are, in Karpenter mode on a limited NodePool, the counts its pods made in a
	// single domain before it launched: dropClaim undoes them if its creation is refused.
	made []madeCount
	// launchAt is the type of the cheapest option (trackDeferred), -1: none; launchInfo and
	// launchTypes are the offerings and types it was found among. roomed: the deferred pods
	// count at another option, as that one is a reservation others hold all of (roomAfter).
	launchAt    int
	launchInfo  *offerInfo
	launchTypes bitset
	roomed      bool
	// promise are settlements not pinned because the NodeClaim would then have fewer instance
	// types than a minValues asks: its cheapest option must keep meeting them (launch.go).
	promise  requirements.Requirements
	launched bool
	pre      *prelaunch
	// node is the room of the node c launched as, when its DaemonSets are not the ones its
	// type keeps room for in the NodePool (launchedRoom); nil otherwise.
	node *nodeRoom
	// holds is the capacity reservation the claim holds ("" none; reservations.go).
	holds string
	// reserved are the capacity reservations a Karpenter-mode NodeClaim holds, sorted
	// (karpenter_reservations.go).
	reserved []string
	// onHold: the claim launches on the reservation it holds, not its cheapest option
	// (promiseMinValues).
	onHold bool
	round  int // the round that opened it (from 1)

	count int
	prev  *claim
	run   *claimRun // its run of the list (claim_runs.go), nil outside it
	// roomCPU and roomMem are claimRoom(0) and claimRoom(1) as setHead last computed them.
	roomCPU, roomMem int64
}

// placement is a successful trial: the claim's requirements and types after adding the pod.
type placement struct {
	reqs    requirements.Requirements
	types   bitset
	relaxed bool // BestEffort lowered a minValues
	loose   map[string]*requirements.Requirement
	promise requirements.Requirements
	changed bool // reqs differ from the claim's
	// reserved are the reservations the claim holds once the pod joins (Karpenter mode).
	reserved []string
	// unfit: types keeps options that do not fit the pod, dearer than the claim's launch
	// (promiseMinValues); onHold: the claim launches on a reservation, as Karpenter launches
	// one before any cheaper offering, and its cheaper options do not fit the pod.
	unfit, onHold bool
}

// tryAdd adds p (with form f) to c if it fits, and reports whether it did.
func (c *claim) tryAdd(s *solver, p *podData, f *podForm) bool {
	pl, ok := c.check(s, p, f, nil)
	if !ok {
		return false
	}
	c.commit(s, p, f, pl)
	return true
}

// reject sets why (when asked) to c on NodePool t; it returns false, check's answer.
func (t *template) reject(why *Cause, c Cause) bool {
	if why != nil {
		c.NodePool = t.name
		*why = c
	}
	return false
}

// check tries p on c without changing c. When p does not fit and why is not nil, why gets
// the cause (its details cost only then: every rejected candidate would pay otherwise).
func (c *claim) check(s *solver, p *podData, f *podForm, why *Cause) (placement, bool) {
	t := c.t
	if !fits2(c.requests, p.requests, c.maxAlloc) {
		return placement{}, t.reject(why, Cause{Code: ReasonInsufficientResource})
	}
	if g := p.hostBlocked(f, c.host, s.topo.capCarriers); g != nil {
		return placement{}, why != nil && t.reject(why, topologyCause(g))
	}
	if s.topo.capCarriers && len(c.deferred) > 0 {
		if g := c.deferredCapped(p, f); g != nil {
			return placement{}, why != nil && t.reject(why, topologyCause(g))
		}
	}
	if !tolerates(f.tolerations, t.taints) {
		return placement{}, why != nil && t.reject(why, Cause{Code: ReasonUntoleratedTaint, Taint: untolerated(f.tolerations, t.taints)})
	}
	if len(p.ports) > 0 && portsConflict(c.ports, p.ports) {
		return placement{}, why != nil && t.reject(why, portCause(c.ports, p.ports))
	}
	if !c.reqs.IsCompatible(f.reqs, s.wellKnown) {
		return placement{}, why != nil && t.reject(why, conflictCause(c.reqs, f.reqs, s.wellKnown))
	}
	merged := c.reqs
	var changed []string
	for k, pr := range f.reqs {
		cur, had := c.reqs[k]
		var next *requirements.Requirement
		if had {
			if cur.Equal(pr) {
				continue
			}
			next = cur.Intersection(pr)
			if next.Equal(cur) {
				continue
			}
		} else {
			next = pr
		}
		if len(changed) == 0 {
			merged = c.reqs.Copy()
		}
		merged[k] = next
		changed = append(changed, k)
	}
	if len(p.volumeAlternatives) == 0 {
		return c.checkTopologyAndTypes(s, p, f, merged, changed, why)
	}
	// Volume topology: the first alternative (a PV's OR-ed node-affinity terms, or a
	// StorageClass's allowed topologies) under which everything else fits wins; the cause is
	// the last alternative's.
	for _, alt := range p.volumeAlternatives {
		if !merged.IsCompatible(alt, s.wellKnown) {
			if why != nil {
				t.reject(why, volumeCause(merged, alt, s.wellKnown))
			}
			continue
		}
		m := merged.Copy()
		ch := append([]string(nil), changed...)
		for k, r := range alt {
			m[k] = m.Get(k).Intersection(r)
			ch = append(ch, k)
		}
		if pl, ok := c.checkTopologyAndTypes(s, p, f, m, ch, why); ok {
			return pl, true
		}
	}
	return placement{}, false
}

// checkTopologyAndTypes finishes check once the pod's (and its volumes') requirements are
// merged: topology narrows the requirements, and some remaining instance type must fit.
func (c *claim) checkTopologyAndTypes(s *solver, p *podData, f *podForm, merged requirements.Requirements, changed []string, why *Cause) (placement, bool) {
	t := c.t
	fitsPod := c.fitsWith(p)
	merged, changed, types, status := c.narrowTopology(s, p, f, merged, changed, fitsPod, why)
	if status == narrowedNoType && f.spreadsBeyondHosts() && !s.karpenter && len(c.pods) > 0 {
		// Maybe none of the spreads' least populated domains can launch on c, which holds
		// pods: any domain that keeps the skew will do (the settlement takes the cheapest)
		// rather than another NodeClaim. A new one opens only in a least populated domain,
		// as Karpenter's: else a pod relaxing a ScheduleAnyway spread would buy a node for
		// it (difftest plan seed 400136).
		s.topo.widen = true
		merged, changed, types, status = c.narrowTopology(s, p, f, merged, changed, fitsPod, why)
		s.topo.widen = false
	}
	if status != narrowedOK {
		return placement{}, false
	}
	loose, own := c.looseWith(f.reqs)
	promise := c.promise
	if p.settling {
		// Settle the claim for the spreads p carries the way its cheapest option launches.
		settlement, ok := s.settlement(c, p.settlingFor(f), merged, types, fitsPod)
		if !ok {
			return placement{}, t.reject(why, Cause{Code: ReasonOfferingUnavailable})
		}
		// As settleClaim at the end of a round, but for a pod joining: a type must stay
		// that fits p (else p does not join, where settleClaim promises), and the
		// settlement becomes a promise only when it, not p, is what breaks a minValues.
		sMerged, settled, sLoose := settleReqs(merged, settlement, loose, own)
		if len(settled) > 0 {
			sTypes := types
			switch {
			case t.hasMinValues:
				sTypes = types.clone() // types stay for the minValues comparison
			case len(changed) == 0:
				sTypes = append(s.scratch[:0], types...) // types are the claim's
				s.scratch = sTypes
			}
			t.narrowTypes(sTypes, settled, sMerged)
			if !sTypes.anyReverse(fitsPod) {
				return placement{}, why != nil && t.reject(why, s.noTypeReason(t, p, types, sTypes, sMerged, settled))
			}
			if s.keepsMinValues(c, types, merged, fitsPod) && !s.keepsMinValues(c, sTypes, sMerged, fitsPod) {
				// Pinned, the NodeClaim would have fewer types than minValues asks: its
				// cheapest option is promised to stay where the settlement goes instead.
				promise = promise.Union(settlement)
			} else {
				merged, types, loose = sMerged, sTypes, sLoose
				changed = append(changed, settled...)
			}
		}
	}
	if len(promise) > 0 {
		if l, ok := cheapestLaunch(t, merged, types, fitsPod); !ok || !l.satisfies(promise) {
			return placement{}, t.reject(why, Cause{Code: ReasonTopologySpread})
		}
	}
	if p.settling && len(c.deferred) > 0 {
		if g := s.crowdedBy(c, p, f, merged, promise); g != nil {
			return placement{}, why != nil && t.reject(why, topologyCause(g))
		}
	}
	pl := placement{reqs: merged, types: types, loose: loose, promise: promise, changed: len(changed) > 0 || len(promise) != len(c.promise)}
	// Unchanged, c launches on the option its deferred pods count at if that fits p too.
	unchanged := len(changed) == 0 && len(promise) == 0 && len(c.promise) == 0 && c.launchAt >= 0 && !c.roomed && fitsPod(c.launchAt)
	if len(c.deferred) > 0 && !s.karpenter && !unchanged && !s.keepsDeferred(c, p, f, pl, fitsPod) {
		return placement{}, why != nil && t.reject(why, Cause{Code: ReasonTopologySpread})
	}
	if !s.keepsReservation(c, merged, types, fitsPod) || !s.launchesUnheld(c, merged, types, fitsPod) {
		return placement{}, why != nil && t.reject(why, Cause{Code: ReasonOfferingUnavailable})
	}
	if s.round == 1 && s.heldBack(c, merged, types, fitsPod) {
		// Karpenter's strict reserved-offering mode: the pod waits for the next round, which
		// finds the NodeClaims of the first launched (solver.strictReserved).
		if s.strictReserved {
			s.reservedDeferred = true
			return placement{}, why != nil && t.reject(why, Cause{Code: ReasonOfferingUnavailable, Detail: reservedDetail})
		}
		s.reservedWaits = true
	}
	if t.hasMinValues && !c.launched {
		out := types.filter(fitsPod)
		if key, have, want := t.minValuesShortfall(out, merged); key != "" {
			if s.opts.MinValuesPolicy != MinValuesBestEffort {
				if pl, ok := c.promiseMinValues(s, p, merged, changed, promise, fitsPod); ok && s.keepsDeferred(c, p, f, pl, fitsPod) {
					return pl, true
				}
				s.claimMinValuesRefused = true
				return placement{}, why != nil && t.reject(why, minValuesCause(key, want, have))
			}
			// BestEffort: lower every unmet minValues to what the fitting types achieve.
			if len(changed) == 0 {
				merged = merged.Copy()
			}
			for key != "" {
				merged[key] = merged[key].WithMinValues(have)
				key, have, _ = t.minValuesShortfall(out, merged)
			}
			pl.reqs, pl.relaxed, pl.changed = merged, true, true
		}
	}
	if s.karpenter && !c.launched {
		held, ok := c.reservationsFor(s, pl.reqs, types, fitsPod)
		if !ok {
			return placement{}, why != nil && t.reject(why, Cause{Code: ReasonOfferingUnavailable, Detail: reservedDetail})
		}
		pl.reserved = held
	}
	return pl, true
}

// promiseMinValues places p on c, a NodeClaim of an earlier round, when p's requirements
// (merged, on the changed keys) would leave c fewer instance types than minValues asks:
// Karpenter's later round finds c launched on its cheapest option and binds p there if that
// option meets them. c keeps its requirements and the options that fit p too, and its
// cheapest option is promised to keep meeting p's requirements.
func (c *claim) promiseMinValues(s *solver, p *podData, merged requirements.Requirements, changed []string, promise requirements.Requirements, fitsPod func(int) bool) (placement, bool) {
	if !s.minValuesRound || c.round >= s.round || c.launched {
		return placement{}, false
	}
	types, unfit, onHold := c.types.filter(fitsPod), false, c.onHold
	if types.empty() {
		return placement{}, false
	}
	if !s.keepsMinValues(c, types, c.reqs, anyType) {
		// Karpenter's NodeClaim was created with all its types, and its next round binds p
		// to the node its cheapest launched as: c keeps them all (the ones that do not fit p
		// stay dearer than its launch, which fits) when its cheapest fits p (difftest
		// default plan:640035).
		l, ok := cheapestLaunch(c.t, c.launchReqs(), c.types, anyType)
		if !ok {
			return placement{}, false
		}
		if !fitsPod(l.i) && !onHold {
			// Karpenter launches a NodeClaim on a capacity reservation its types can use
			// before any cheaper offering, and its next round binds p to that node: c
			// holds the cheapest reservation with room, when that fits p, and launches on
			// it (difftest default plan:990272: two pods refused for minValues ran on the
			// reserved r7g-16x128 Karpenter launched, where the default launched a spot
			// m7-4x16 and a second NodeClaim for a pod the NodePool's cpu limit then
			// left no room to).
			if l, ok = s.reservedLaunch(c); !ok || !fitsPod(l.i) {
				return placement{}, false
			}
			promise = promise.Union(l.o.Requirements) // its zone, capacity type and reservation
			onHold = true
		}
		if !fitsPod(l.i) || l.o.CapacityType() == v1.CapacityTypeReserved && l.o.ReservationID() != c.holds && !onHold {
			return placement{}, false // a reservation c does not hold may be gone at launch
		}
		types, unfit = c.types, true
	}
	for _, k := range changed {
		promise = promise.Union(requirements.Requirements{k: merged[k]})
	}
	reqs := c.reqs
	if onHold {
		reqs = c.reqs.Union(promise) // its launch: the reservation
	}
	if l, ok := cheapestLaunch(c.t, reqs, types, anyType); !ok || !l.satisfies(promise) {
		return placement{}, false
	}
	return placement{reqs: c.reqs, types: types, loose: c.loose, promise: promise, changed: true, unfit: unfit, onHold: onHold}, true
}

// reservedLaunch is where Karpenter launches c when its types can use a capacity
// reservation: the cheapest available reserved offering, under c's requirements, of a
// reservation c holds or that has room left, within what c counts against its NodePool's
// limits (ok=false: none).
func (s *solver) reservedLaunch(c *claim) (launchOption, bool) {
	t := c.t
	if !t.hasReserved || c.launched {
		return launchOption{}, false
	}
	reqs := c.countingReqs()
	var best launchOption
	found := false
	c.types.each(func(i int) bool {
		tt := t.types[i]
		if c.counted != nil {
			for r, lim := range t.limited {
				if lim && tt.capacity[r] > c.counted[r] {
					return true
				}
			}
		}
		for _, o := range tt.it.Offerings {
			if !o.Available || math.IsNaN(o.Price) || o.CapacityType() != v1.CapacityTypeReserved || !offeringCompatible(o, reqs) ||
				o.ReservationID() != c.holds && s.reservationFull(o) {
				continue
			}
			if !found || o.Price < best.o.Price {
				best, found = launchOption{t: t, i: i, o: o, reqs: reqs}, true
			}
		}
		return true
	})
	return best, found
}

// keepsMinValues reports whether the types of set that fit (fits) meet every minValues of
// reqs, or Solve does not hold c to them (BestEffort, a NodeClaim launched between Karpenter
// mode's rounds).
func (s *solver) keepsMinValues(c *claim, set bitset, reqs requirements.Requirements, fits func(int) bool) bool {
	t := c.t
	if !t.hasMinValues || c.launched || s.opts.MinValuesPolicy == MinValuesBestEffort {
		return true
	}
	key, _, _ := t.minValuesShortfall(set.filter(fits), reqs)
	return key == ""
}

// narrowStatus is how narrowTopology went.
type narrowStatus int

const (
	narrowedOK       narrowStatus = iota
	narrowedNoDomain              // topology allows no domain
	narrowedNoType                // no remaining type fits the pod
	noType                        // no remaining type fits the pod, topology narrowed nothing
)

// narrowTopology narrows merged (changed: the keys already narrowed) by topology for p (form
// f) on c, and c's types by the result (why set when asked and it fails). merged is restored
// when it fails.
func (c *claim) narrowTopology(s *solver, p *podData, f *podForm, merged requirements.Requirements, changed []string, fitsPod func(int) bool, why *Cause) (requirements.Requirements, []string, bitset, narrowStatus) {
	t := c.t
	s.topo.probing(c, merged, changed, fitsPod, t.hasMinValues && !c.launched && s.opts.MinValuesPolicy != MinValuesBestEffort)
	// p's domains are taken where c's pods count: with its promise, where its cheapest option
	// must launch (countingReqs), as Karpenter's later round finds it launched there. Over
	// the wider requirements alone a spread took a least populated domain the promise rules
	// out, and the promise then refused p (difftest default plan:1011260: app-5-1's zone
	// spread took zone c on the pool-0 NodeClaim promised to zone a, where its minValues 2
	// kept it open, and the pod Karpenter binds to that node in zone a was left out).
	nodeReqs := merged
	if len(c.promise) > 0 {
		nodeReqs = merged.Union(c.promise)
		for k := range c.promise {
			if nodeReqs[k].IsEmpty() {
				nodeReqs = merged // p's own requirements break the promise: check refuses p
				break
			}
		}
	}
	narrowed, failed, ok := s.topo.requirementsFor(p, f, nodeReqs, c.host)
	s.topo.probed()
	if !ok {
		if why != nil {
			t.reject(why, topologyCause(failed))
		}
		return merged, changed, nil, narrowedNoDomain
	}
	if len(c.promise) > 0 {
		narrowed = beyondPromise(narrowed, merged, nodeReqs)
	}
	if len(narrowed) > 0 && !merged.IsCompatible(narrowed, s.wellKnown) {
		// The NodeClaim is held to its topology requirements as to a pod's, as Karpenter
		// holds it: a domain on a key its NodePool does not define (not well known) is
		// refused. The launched node would carry a label its NodePool never gives.
		if why != nil {
			t.reject(why, conflictCause(merged, narrowed, s.wellKnown))
		}
		return merged, changed, nil, narrowedNoDomain
	}
	var saved requirements.Requirements
	if len(narrowed) > 0 && len(changed) > 0 {
		saved = make(requirements.Requirements, len(narrowed))
		for k := range narrowed {
			saved[k] = merged[k] // nil when merged had no such key
		}
	}
	base, before := merged, len(changed)
	for k, r := range narrowed {
		if len(changed) == 0 {
			merged = merged.Copy()
		}
		merged[k] = merged.Get(k).Intersection(r)
		changed = append(changed, k)
	}
	types := c.types
	if len(changed) > 0 {
		types = append(s.scratch[:0], c.types...)
		t.narrowTypes(types, changed, merged)
		s.scratch = types
	}
	// The remaining types all fit the claim's pods; one must also fit p. Larger types sit at
	// the expensive end, so look there first.
	if types.anyReverse(fitsPod) {
		return merged, changed, types, narrowedOK
	}
	if why != nil {
		t.reject(why, s.noTypeReason(t, p, c.types, types, merged, changed))
	}
	status := narrowedNoType
	if len(narrowed) == 0 {
		status = noType
	}
	if before == 0 {
		return base, changed[:0], nil, status
	}
	for k, r := range saved {
		if r == nil {
			delete(merged, k)
		} else {
			merged[k] = r
		}
	}
	return merged, changed[:before], nil, status
}

// beyondPromise is narrowed (topology's narrowing over nodeReqs, reqs with a NodeClaim's
// promise) without the keys it only narrows to the promise: the promise holds the NodeClaim's
// cheapest option there already, and pinned there the NodeClaim could keep fewer instance
// types than a minValues asks (the reason the settlement was promised, not pinned).
func beyondPromise(narrowed, reqs, nodeReqs requirements.Requirements) requirements.Requirements {
	out := make(requirements.Requirements, len(narrowed))
	for k, r := range narrowed {
		if !r.Equal(nodeReqs.Get(k)) || r.Equal(reqs.Get(k)) {
			out[k] = r
		}
	}
	switch len(out) {
	case len(narrowed):
		return narrowed
	case 0:
		return nil
	}
	return out
}

// looseWith is the claim's loose keys narrowed by a joining pod's requirements; own is
// true when that is c.loose itself.
func (c *claim) looseWith(reqs requirements.Requirements) (out map[string]*requirements.Requirement, own bool) {
	out, own = c.loose, true
	for k, r := range c.loose {
		if pr, ok := reqs[k]; ok {
			if next := r.Intersection(pr); !next.Equal(r) {
				if own {
					out, own = copyLoose(out), false
				}
				out[k] = next
			}
		}
	}
	return out, own
}

func copyLoose(m map[string]*requirements.Requirement) map[string]*requirements.Requirement {
	out := make(map[string]*requirements.Requirement, len(m)+1)
	for k, r := range m {
		out[k] = r
	}
	return out
}

// commit adds p to c after a successful check: the claim keeps the types that fit every pod.
func (c *claim) commit(s *solver, p *podData, f *podForm, pl placement) {
	t := c.t
	c.reqs = pl.reqs
	c.loose = pl.loose
	c.promise = pl.promise
	counting := c.countingReqs()
	c.setValues(s, counting)
	c.relaxed = c.relaxed || pl.relaxed
	c.requests.add(p.requests)
	c.onHold = c.onHold || pl.onHold
	if pl.unfit {
		c.keepTypes(pl.types)
	} else {
		c.keepFitting(s, pl.types, p.ports)
	}
	c.setHead()
	c.pods = append(c.pods, p)
	c.ports = append(c.ports, p.ports...)
	s.raiseFloors(p, f)
	s.topo.carry(f, c.host, counting)
	d := deferSelected
	switch {
	case s.karpenter && !c.launched:
		d = deferKarpenter
	case c.launched:
		d = countNow
	}
	var open []openCount
	var made *[]madeCount
	if d == deferKarpenter && c.t.hasLimits {
		made = &c.made // createClaims may refuse it: dropClaim undoes them
	}
	open, c.deferred = s.topo.record(p, f, s.ownedInverse(p, f), counting, t.taints, d, c.deferred, made)
	c.open = append(c.open, open...)
	if d == deferSelected && len(c.deferred) > 0 {
		s.trackDeferred(c)
	}
	s.moveHold(c)
	s.holdReservation(c)
	if s.karpenter && !c.launched {
		s.holdReservations(c, pl.reserved)
	}
}

// keepFitting makes the types of from whose allocatable holds the claim's requests (and
// whose DaemonSets leave the ports free) the claim's types, with their largest allocatable.
func (c *claim) keepFitting(s *solver, from bitset, ports []hostPort) {
	t := c.t
	kept := newBitset(len(t.types))
	copy(kept, from)
	if fit := t.fit(); c.node == nil && len(ports) == 0 && !s.opts.withoutIndexes && fit.fitting(kept, c.requests) {
		fit.maxAlloc(kept, c.maxAlloc)
		c.types = kept
		return
	}
	clear(kept)
	for r := range c.maxAlloc {
		c.maxAlloc[r] = -1 << 62
	}
	from.each(func(i int) bool {
		alloc, daemonPorts := c.typeRoom(i)
		if c.requests.fits(alloc) && (len(ports) == 0 || !portsConflict(daemonPorts, ports)) {
			kept.set(i)
			c.maxAlloc.raise(alloc)
		}
		return true
	})
	c.types = kept
}

// fitsWith reports, for type index i, whether c's pods and p fit on it together, host
// ports included.
func (c *claim) fitsWith(p *podData) func(int) bool {
	return func(i int) bool {
		alloc, ports := c.typeRoom(i)
		return fits2(c.requests, p.requests, alloc) && (len(p.ports) == 0 || !portsConflict(ports, p.ports))
	}
}

// launchReqs are the requirements the claim's launch is the cheapest option of once the pod
// joins with pl: its requirements with its promise.
func (pl placement) launchReqs() requirements.Requirements {
	if len(pl.promise) == 0 {
		return pl.reqs
	}
	return pl.reqs.Union(pl.promise)
}

// joinCost is what p joining c with placement pl adds to the price of c's cheapest launch
// (comparable=false: c or the joined claim has no launch to price).
func (c *claim) joinCost(p *podData, pl placement) (extra float64, comparable bool) {
	before, ok := cheapestLaunch(c.t, c.countingReqs(), c.types, anyType)
	if !ok {
		return 0, false
	}
	after, ok := cheapestLaunch(c.t, pl.launchReqs(), pl.types, c.fitsWith(p))
	if !ok {
		return 0, false
	}
	return after.o.Price - before.o.Price, true
}

// typeRoom is the allocatable the pods of c may use on its type i and the host ports its
// DaemonSets bind there: the launched node's (c.node) once it launched with other
// DaemonSets than the type keeps room for.
func (c *claim) typeRoom(i int) (vec, []hostPort) {
	if c.node != nil {
		return c.node.alloc, c.node.ports
	}
	tt := c.t.types[i]
	return tt.alloc, tt.daemonPorts
}

// launchReqs are the requirements the claim's launch is the cheapest option of: its own, or
// with its promise when it launches on the reservation it holds (onHold).
func (c *claim) launchReqs() requirements.Requirements {
	if c.onHold {
		return c.countingReqs()
	}
	return c.reqs
}

// countingReqs are the claim's requirements with its promise: where its pods are counted.
func (c *claim) countingReqs() requirements.Requirements {
	if len(c.promise) == 0 {
		return c.reqs
	}
	return c.reqs.Union(c.promise)
}

// keepTypes makes the types of from the claim's remaining types, with their largest
// allocatable (from the template's index when it has one: raising over each of up to 400
// types was a fifteenth of a Solve) and the room left on the cheapest.
func (c *claim) keepTypes(from bitset) {
	t := c.t
	c.types = newBitset(len(t.types))
	copy(c.types, from)
	if fit := t.fit(); fit.res != nil && c.node == nil {
		fit.maxAlloc(c.types, c.maxAlloc)
	} else {
		for r := range c.maxAlloc {
			c.maxAlloc[r] = -1 << 62
		}
		c.types.each(func(i int) bool {
			alloc, _ := c.typeRoom(i)
			c.maxAlloc.raise(alloc)
			return true
		})
	}
	c.setHead()
}

// setHead computes the room left on the cheapest remaining type.
func (c *claim) setHead() {
	old := room{c.headCPU, c.headMem, c.roomCPU, c.roomMem}
	c.head = c.head[:0]
	c.types.each(func(i int) bool {
		alloc, _ := c.typeRoom(i)
		c.head = append(c.head, alloc...)
		c.head.sub(c.requests)
		return false
	})
	c.headCPU, c.headMem = -1, -1
	if len(c.head) >= 2 {
		c.headCPU, c.headMem = c.head[0], c.head[1]
	}
	c.roomCPU, c.roomMem = c.claimRoom(0), c.claimRoom(1)
	c.roomChanged(old)
}

// mayFitHead reports whether p may fit the room left on c's cheapest remaining type (its cpu
// and memory do; fits(c.head) decides).
func (c *claim) mayFitHead(p *podData) bool { return p.cpu <= c.headCPU && p.mem <= c.headMem }

// ownedInverse are the inverse groups of p's required anti-affinity terms.
func (s *solver) ownedInverse(p *podData, f *podForm) []*topologyGroup {
	if len(f.requiredAnti) == 0 {
		return nil
	}
	return p.inverse
}

// noTypeReason says why no instance type of t fits p alone, types being what is left of
// from after narrowing it by the keys changed in merged.
func (s *solver) noTypeReason(t *template, p *podData, from, types bitset, merged requirements.Requirements, changed []string) Cause {
	if types.empty() {
		return t.typesGoneCause(from, merged, changed)
	}
	name := s.resourceNoTypeHas(t, p, types)
	if name == "" {
		// Each resource fits some type alone: all together fit none, or a type with room has
		// DaemonSets binding the pod's host port.
		var ports []hostPort
		if types.anyReverse(func(i int) bool {
			ports = t.types[i].daemonPorts
			return p.requests.fits(t.types[i].alloc)
		}) {
			return portCause(ports, p.ports)
		}
		return Cause{Code: ReasonInsufficientResource}
	}
	r := s.res.pos[corev1.ResourceName(name)]
	best := int64(0)
	types.each(func(i int) bool {
		best = max(best, t.types[i].alloc[r])
		return true
	})
	return Cause{Code: ReasonInsufficientResource, Resource: name, Needed: s.res.amount(r, p.requests[r]), Available: s.res.amount(r, best)}
}

// typesGoneCause says why narrowing from by the changed keys of merged left no type: the
// first key (sorted) that alone leaves none, else the key at which narrowing by them in
// order does; OfferingUnavailable when only the offerings' availability does.
func (t *template) typesGoneCause(from bitset, merged requirements.Requirements, changed []string) Cause {
	keys := append([]string(nil), changed...)
	sort.Strings(keys)
	conflict := func(k string) Cause {
		c := Cause{Code: ReasonRequirementsUnsatisfiable, Key: k}
		if r, ok := merged[k]; ok {
			c.Requirement = r.String()
		}
		return c
	}
	for _, k := range keys {
		b := from.clone()
		b.andWith(t.typesFor(k, merged[k]))
		if b.empty() {
			return conflict(k)
		}
	}
	b := from.clone()
	for _, k := range keys {
		b.andWith(t.typesFor(k, merged[k]))
		if b.empty() {
			return conflict(k)
		}
	}
	return Cause{Code: ReasonOfferingUnavailable}
}

// resourceNoTypeHas is the first resource of p's requests that no type in types can hold
// even alone, or "" when each fits some type (no single type fits them all, or ports clash).
func (s *solver) resourceNoTypeHas(t *template, p *podData, types bitset) string {
	return s.res.first(func(r int) bool {
		if r >= len(p.requests) || p.requests[r] == 0 {
			return false
		}
		need := p.requests[r]
		return !types.anyReverse(func(i int) bool { return t.types[i].alloc[r] >= need })
	})
}

// limitCause says which limit of t every type of among exceeds: the first limited resource
// whose remaining limit is below each one's capacity, with the smallest capacity and what is
// left.
func (s *solver) limitCause(t *template, among bitset) Cause {
	name := s.res.first(func(r int) bool {
		if r >= len(t.limited) || !t.limited[r] {
			return false
		}
		return !among.anyReverse(func(i int) bool { return t.types[i].capacity[r] <= t.remaining[r] })
	})
	c := Cause{Code: ReasonNodePoolLimit, NodePool: t.name, Resource: name}
	if name != "" {
		r := s.res.pos[corev1.ResourceName(name)]
		smallest := int64(1 << 62)
		among.each(func(i int) bool {
			smallest = min(smallest, t.types[i].capacity[r])
			return true
		})
		c.Needed, c.Available = s.res.amount(r, smallest), s.res.amount(r, max(t.remaining[r], 0))
	}
	return c
}

// withinLimits are the types of t whose capacity fits its remaining limits, and whether the
// limits took any out.
func (t *template) withinLimits() (bitset, bool) {
	types, cut := t.all.clone(), false
	for i, tt := range t.types {
		for r, lim := range t.limited {
			if lim && tt.capacity[r] > t.remaining[r] {
				types.clear(i)
				cut = true
				break
			}
		}
	}
	return types, cut
}

// limitedCause is the cause of t refusing p a new claim when its limits took instance types
// out (within are the types left, why the cause they gave). The cause that decides is the one
// to fix first: when p fits none of t's types regardless of the limits (a taint, a
// requirement, its size), that one, since raising the limit would not help; else the limit,
// with the smallest type that would hold p (not a type's size among those the limit left).
func (s *solver) limitedCause(t *template, p *podData, f *podForm, hostname string, within bitset, why Cause) Cause {
	var unlimited Cause
	if _, ok := s.openClaim(t, hostname, t.all).check(s, p, f, &unlimited); !ok {
		return unlimited
	}
	if why.Code == ReasonNodePoolLimit && why.Resource == "nodes" {
		return why
	}
	holding, excluded := newBitset(len(t.types)), newBitset(len(t.types))
	t.all.each(func(i int) bool {
		if !within.has(i) {
			excluded.set(i)
			if p.requests.fits(t.types[i].alloc) {
				holding.set(i)
			}
		}
		return true
	})
	if holding.empty() {
		holding = excluded
	}
	return s.limitCause(t, holding)
}

// openClaim is an empty claim of t on types, named hostname.
func (s *solver) openClaim(t *template, hostname string, types bitset) *claim {
	c := &claim{
		round:    s.round,
		launchAt: -1,
		t:        t,
		hostname: hostname,
		host:     s.topo.claimHost(hostname),
		reqs:     t.reqs.Copy(),
		types:    types,
		requests: make(vec, len(s.res.names)),
		maxAlloc: make(vec, len(s.res.names)),
	}
	c.reqs.Add(requirements.MustNew(v1.LabelHostname, requirements.In, hostname))
	for i := range c.maxAlloc {
		c.maxAlloc[i] = 1 << 62
	}
	return c
}

// nextHostname is the placeholder hostname of the next new claim (hostnameSeq), formatted once
// however many pods try a new claim before one opens.
func (s *solver) nextHostname() string {
	if s.hostnameFor != s.hostnameSeq+1 {
		s.hostname, s.hostnameFor = fmt.Sprintf("hostname-placeholder-%04d", s.hostnameSeq), s.hostnameSeq+1
	}
	return s.hostname
}

// newClaim opens a NodeClaim of template t for p, or says why it cannot.
func (s *solver) newClaim(t *template, p *podData, f *podForm) (*claim, Cause) {
	hostname := s.nextHostname()
	if t.nodesLeft == 0 || s.karpenter && t.nodesLimited && t.nodesLeft < 0 {
		s.boundByLimits()
		return nil, s.limitedCause(t, p, f, hostname, newBitset(len(t.types)), Cause{Code: ReasonNodePoolLimit, NodePool: t.name, Resource: "nodes"})
	}
	types, cut := t.all, false
	if t.hasLimits {
		types, cut = t.withinLimits()
		if cut {
			s.boundByLimits()
		}
		if types.empty() {
			s.limitRefused = true
			return nil, s.limitedCause(t, p, f, hostname, types, Cause{Code: ReasonNodePoolLimit, NodePool: t.name})
		}
	}
	c := s.openClaim(t, hostname, types)
	var why Cause
	pl, ok := c.check(s, p, f, &why)
	if !ok {
		if cut {
			// The limits took types out (maybe those a minValues needs): a recount may
			// give them back.
			s.limitRefused = true
			return nil, s.limitedCause(t, p, f, hostname, types, why)
		}
		return nil, why
	}
	s.hostnameSeq++
	c.commit(s, p, f, pl)
	if t.hasLimits {
		maxCap := make(vec, len(s.res.names))
		c.types.each(func(i int) bool {
			for r, x := range t.types[i].capacity {
				if x > maxCap[r] {
					maxCap[r] = x
				}
			}
			return true
		})
		t.remaining.sub(maxCap)
		c.counted = maxCap
	}
	if t.nodesLeft > 0 && !s.karpenter {
		t.nodesLeft--
	}
	s.claims = append(s.claims, c)
	s.insertClaim(c)
	s.korderAdd(c)
	s.lastChange = claimChange{c: c}
	return c, Cause{}
}

// insertClaim appends a claim with one pod behind every other one-pod claim.
func (s *solver) insertClaim(c *claim) {
	c.count = len(c.pods)
	after := s.lastOfCount[c.count]
	if after == nil {
		// behind every claim with fewer pods: find the last claim with count < c.count
		for x := s.tail; x != nil; x = x.prev {
			if x.count < c.count {
				after = x
				break
			}
		}
	}
	s.linkAfter(c, after)
	s.lastOfCount[c.count] = c
}

func (s *solver) linkAfter(c, after *claim) {
	if after == nil {
		c.prev, c.next = nil, s.head
		if s.head != nil {
			s.head.prev = c
		}
		s.head = c
		if s.tail == nil {
			s.tail = c
		}
		s.joinRun(c)
		return
	}
	c.prev, c.next = after, after.next
	if after.next != nil {
		after.next.prev = c
	} else {
		s.tail = c
	}
	after.next = c
	s.joinRun(c)
}

func (s *solver) unlink(c *claim) {
	prev, next := c.prev, c.next
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		s.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		s.tail = c.prev
	}
	c.prev, c.next = nil, nil
	s.leaveRun(c, prev, next)
}

// bumpCount moves a claim that gained a pod to the front of the next count's block, which is
// where a stable sort by pod count would put it.
func (s *solver) bumpCount(c *claim) {
	old := c.count
	if s.lastOfCount[old] == c {
		if c.prev != nil && c.prev.count == old {
			s.lastOfCount[old] = c.prev
		} else {
			delete(s.lastOfCount, old)
		}
	}
	anchor := s.lastOfCount[old]
	if anchor == nil {
		anchor = c.prev
	}
	s.unlink(c)
	c.count = len(c.pods)
	if anchor == nil {
		s.linkAfter(c, nil)
	} else {
		s.linkAfter(c, anchor)
	}
	if last := s.lastOfCount[c.count]; last == nil {
		s.lastOfCount[c.count] = c
	}
}

// finalOptions are the launch options of one set of instance types under one offering
// index; claims with the same remaining types share them (they are immutable).
type finalOptions struct {
	types       cloudprovider.InstanceTypes // cheapest first, at most MaxInstanceTypes
	idx         []int                       // their positions in the template
	chosen      bitset
	cheapest    *cloudprovider.Offering
	itReq       *requirements.Requirement
	ctReq       *requirements.Requirement // nil when no capacity type is launchable
	minOverhead vec
}

type finalKey struct {
	info *offerInfo
	set  string
}

// options orders the types of set by price under info (stable, ties by name), truncates them
// to MaxInstanceTypes and derives the instance-type and capacity-type requirements.
func (s *solver) options(t *template, info *offerInfo, set bitset) *finalOptions {
	key := finalKey{info: info, set: bitsetKey(set)}
	if fo, ok := s.finalCache[key]; ok {
		return fo
	}
	idx := make([]int, 0, set.count())
	set.each(func(i int) bool {
		if info.cheapest[i] != nil {
			idx = append(idx, i)
		}
		return true
	})
	less := func(a, b int) bool {
		pa, pb := info.cheapest[idx[a]].Price, info.cheapest[idx[b]].Price
		if pa != pb {
			return pa < pb
		}
		return t.types[idx[a]].it.Name < t.types[idx[b]].it.Name
	}
	// Template order is by price under the NodePool's requirements; a claim's narrower
	// requirements rarely change it, so sort only when needed.
	if !sort.SliceIsSorted(idx, less) {
		sort.SliceStable(idx, less)
	}
	if len(idx) > s.opts.MaxInstanceTypes {
		idx = idx[:s.opts.MaxInstanceTypes]
	}
	fo := &finalOptions{chosen: newBitset(len(t.types))}
	s.finalCache[key] = fo
	if len(idx) == 0 {
		return fo
	}
	fo.idx = idx
	fo.cheapest = info.cheapest[idx[0]]
	fo.minOverhead = t.types[idx[0]].overhead.clone()
	fo.types = make(cloudprovider.InstanceTypes, 0, len(idx))
	cts := map[string]bool{}
	for _, i := range idx {
		fo.chosen.set(i)
		fo.types = append(fo.types, t.types[i].it)
		for _, ct := range info.capacityTypes[i] {
			cts[ct] = true
		}
		for r, x := range t.types[i].overhead {
			if x < fo.minOverhead[r] {
				fo.minOverhead[r] = x
			}
		}
	}
	// Names in sorted order, so building the requirement needs no sort.
	names := make([]string, 0, len(idx))
	for _, i := range t.byName {
		if fo.chosen.has(i) {
			names = append(names, t.types[i].it.Name)
		}
	}
	fo.itReq = requirements.MustNew(v1.LabelInstanceType, requirements.In, names...)
	if len(cts) > 0 {
		ctNames := make([]string, 0, len(cts))
		for ct := range cts {
			ctNames = append(ctNames, ct)
		}
		fo.ctReq = requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, ctNames...)
	}
	return fo
}

func bitsetKey(b bitset) string {
	buf := make([]byte, 0, len(b)*8)
	for _, w := range b {
		for i := 0; i < 8; i++ {
			buf = append(buf, byte(w>>(8*i)))
		}
	}
	return string(buf)
}

// finalize turns a claim into the result's NodeClaim: instance-type options by price under
// the claim's requirements (at most MaxInstanceTypes), the cheapest launchable choice, the
// requests with the smallest DaemonSet overhead, and resolved labels.
func (s *solver) finalize(c *claim, errs map[*podData]podFailure) *NodeClaim {
	t := c.t
	reqs := c.reqs.Copy()
	delete(reqs, v1.LabelHostname)
	fo := s.options(t, t.offerings(reqs), c.types)
	if len(fo.types) == 0 {
		for _, p := range c.pods {
			errs[p] = singleFailure(Cause{Code: ReasonOfferingUnavailable, NodePool: t.name})
		}
		return nil
	}
	// One options slice per distinct option set, shared by the NodeClaims with that set
	// (capped: an append copies): a copy per claim was 15 MB of a 20,000-pod plan's memory.
	out := &NodeClaim{
		NodePool:            t.name,
		Hostname:            c.hostname,
		Taints:              append([]corev1.Taint(nil), t.taints...),
		StartupTaints:       append([]corev1.Taint(nil), t.startupTaints...),
		Labels:              map[string]string{},
		InstanceTypeOptions: fo.types[:len(fo.types):len(fo.types)],
		InstanceType:        fo.types[0],
		Offering:            fo.cheapest,
		MinValuesRelaxed:    c.relaxed,
		Round:               c.reportedRound(s),
	}
	withMin := func(key string, r *requirements.Requirement) { withMinIn(reqs, key, r) }
	withMin(v1.LabelInstanceType, fo.itReq)
	unnarrowed := reqs.Get(v1.CapacityTypeLabelKey) // open (any type) when nothing asks for one
	if fo.ctReq != nil {
		withMin(v1.CapacityTypeLabelKey, fo.ctReq)
	}
	if c.holds != "" {
		s.held[c.holds]-- // its own hold leaves the reservation room for it
	}
	if info := t.offerings(reqs); info.offers != nil {
		held := c.reserved
		if c.onHold && c.holds != "" {
			held = []string{c.holds} // its cheaper options do not fit its pods
		}
		s.reserve(t, out, reqs, fo, info, withMin, held)
	}
	out.CapacityType = unnarrowed
	if ct := reqs[v1.CapacityTypeLabelKey]; ct != nil && ct.Has(v1.CapacityTypeReserved) && ct.Len() == 1 {
		// A reservation pins the claim to it: Karpenter's scheduler puts this requirement on.
		out.CapacityType = ct
	}
	if t.hasMinValues && s.opts.MinValuesPolicy != MinValuesBestEffort && !c.grownAfterLaunch() {
		if key, have, want := t.minValuesShortfall(fo.chosen, reqs); key != "" {
			for _, p := range c.pods {
				why := minValuesCause(key, want, have)
				why.NodePool, why.InstanceTypes = t.name, len(fo.types)
				errs[p] = singleFailure(why)
			}
			return nil
		}
	}
	minOverhead := fo.minOverhead
	out.Requirements = reqs
	if len(c.loose) > 0 {
		out.PriceRequirements = reqs.Copy()
		for k, r := range c.loose {
			if k != v1.LabelInstanceType {
				out.PriceRequirements[k] = r
			}
		}
	}
	for k, v := range t.labels {
		out.Labels[k] = v
	}
	for _, k := range reqs.Keys() {
		if s.wellKnown[k] || v1.IsRestrictedLabel(k) || k == v1.LabelHostname {
			continue
		}
		if _, ok := out.Labels[k]; ok {
			continue
		}
		r := reqs[k]
		if r.Operator() == requirements.DoesNotExist {
			continue
		}
		if v := r.Any(); v != "" {
			out.Labels[k] = v
		}
	}
	total := c.requests.clone()
	total.add(minOverhead)
	out.Requests = s.res.list(total)
	for _, p := range c.pods {
		out.Pods = append(out.Pods, p.pod)
	}
	return out
}

// withMinIn sets reqs[key] to r, keeping the minValues the requirement it replaces had.
func withMinIn(reqs requirements.Requirements, key string, r *requirements.Requirement) {
	if old, ok := reqs[key]; ok && old.MinValues() > 0 {
		r = r.WithMinValues(old.MinValues())
	}
	reqs[key] = r
}

// reportedRound is the round that opened c in Karpenter mode, 0 in the default mode (which
// promises its outcome over the rounds, not the rounds).
func (c *claim) reportedRound(s *solver) int {
	if s.karpenter {
		return c.round
	}
	return 0
}

// reserve picks the launch offering of a NodeClaim whose options include reserved capacity:
// the cheapest offering that is not reserved, or whose reservation still has room (claims are
// finalised in creation order, each taking one instance of its reservation; the room held
// by later claims is not theirs to take). A claim that
// takes a reservation is pinned to it; one that does not may not launch reserved capacity.
// Its instance types narrow to the reservation's unless that leaves fewer than a minValues
// asks: Karpenter's NodeClaim keeps its instance types and is pinned by the reservation ID
// alone (its scheduler checked minValues before it reserved). A Karpenter-mode NodeClaim
// holding reservations (held) launches on one of them (karpenter_reservations.go).
func (s *solver) reserve(t *template, out *NodeClaim, reqs requirements.Requirements, fo *finalOptions, info *offerInfo, withMin func(string, *requirements.Requirement), held []string) {
	var best *cloudprovider.Offering
	var bestType *cloudprovider.InstanceType
	for n, i := range fo.idx {
		if o := s.withRoom(info, i, held, ""); o != nil && (best == nil || o.Price < best.Price) {
			best, bestType = o, fo.types[n]
		}
	}
	if best == nil {
		return
	}
	out.Offering, out.InstanceType = best, bestType
	if best.CapacityType() == v1.CapacityTypeReserved {
		id := best.ReservationID()
		s.reservations[id]--
		withMin(v1.CapacityTypeLabelKey, requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeReserved))
		reqs[cloudprovider.ReservationIDLabel] = requirements.MustNew(cloudprovider.ReservationIDLabel, requirements.In, id)
		var keep cloudprovider.InstanceTypes
		kept := newBitset(len(t.types))
		for n, it := range out.InstanceTypeOptions {
			for _, o := range it.Offerings {
				if o.ReservationID() == id {
					keep = append(keep, it)
					kept.set(fo.idx[n])
					break
				}
			}
		}
		names := make([]string, 0, len(keep))
		for _, it := range keep {
			names = append(names, it.Name)
		}
		narrowed := reqs.Copy()
		withMinIn(narrowed, v1.LabelInstanceType, requirements.MustNew(v1.LabelInstanceType, requirements.In, names...))
		if key, _, _ := t.minValuesShortfall(kept, narrowed); key == "" || s.opts.MinValuesPolicy == MinValuesBestEffort {
			out.InstanceTypeOptions = keep
			withMin(v1.LabelInstanceType, narrowed[v1.LabelInstanceType])
		}
		return
	}
	if ct := reqs[v1.CapacityTypeLabelKey]; ct != nil && ct.Has(v1.CapacityTypeReserved) {
		var others []string
		for _, v := range ct.Values() {
			if v != v1.CapacityTypeReserved {
				others = append(others, v)
			}
		}
		if len(others) > 0 {
			withMin(v1.CapacityTypeLabelKey, requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, others...))
		}
	}
}
