package scheduling

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// Runs of the NodeClaim list: Solve's scans over the open NodeClaims (solver.add) look for the
// first one, fewest pods first, that takes a pod; with 20,000 claims at 100,000 pods most are
// full or in another zone, and visiting each cost most of the Solve. The list is cut into runs
// of consecutive claims, each knowing the most room any of its claims has, in all and per
// single value of the topology keys the pods' domain filters name, so a scan skips a run where
// no claim can take the pod: the claims a skip passes over are exactly the ones the scan's
// first checks would have refused, and the answer is the same.

// defaultRunSize is the length a run is cut back to (solver.runSize, when tests set none);
// runs grow to twice it and merge below a quarter.
const defaultRunSize = 64

// maxRunValues is how many single values of a topology key a run tells apart; past them the
// key skips nothing there.
const maxRunValues = 4

func (s *solver) runLen() int {
	if s.runSize > 0 {
		return s.runSize
	}
	return defaultRunSize
}

// runKeys are the topology keys (positions in topology.keys) the runs keep room per value
// of: those domain filters have named so far in this Solve. They only grow.
type runKeys struct{ keys []int }

// track adds the keys of filters.
func (rk *runKeys) track(filters []domainFilter) {
	for _, df := range filters {
		if !slices.Contains(rk.keys, df.key) {
			rk.keys = append(rk.keys, df.key)
		}
	}
}

// room is the largest room of some claims: on their cheapest remaining type (head) and on
// their largest (claim.room).
type room struct {
	headCPU, headMem int64
	roomCPU, roomMem int64
}

var noRoom = room{math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64}

func (r *room) raise(c *claim) {
	r.headCPU = max(r.headCPU, c.headCPU)
	r.headMem = max(r.headMem, c.headMem)
	r.roomCPU = max(r.roomCPU, c.roomCPU)
	r.roomMem = max(r.roomMem, c.roomMem)
}

// fits is false when p fails claim.mayFitHead (head) or fits2's cpu and memory test on every
// claim r counts.
func (r *room) fits(p *podData, head bool) bool {
	if head {
		return p.cpu <= r.headCPU && p.mem <= r.headMem
	}
	return p.cpu <= r.roomCPU && p.mem <= r.roomMem
}

// valueRoom is the room of a run's claims with one single value of a key ("" where open).
type valueRoom struct {
	value string
	room
}

// keyRoom is a run's room per single value of one key; many: more values than
// maxRunValues (vals is then empty).
type keyRoom struct {
	vals []valueRoom
	many bool
}

// claimRun is a run of consecutive claims of the solver's list, first to last.
type claimRun struct {
	first, last *claim
	n           int
	room        // the largest of its claims'
	// byKey[i] is the room per value of key tracked.keys[i], for the first keyed keys.
	tracked *runKeys
	byKey   []keyRoom
	keyed   int
	stale   bool // a claim's room shrank, its values changed or it left: recompute
}

// claimRoom is the most of resource r a claim's largest remaining type still holds
// (maxAlloc - requests): a pod asking more fails fits2 there. Beyond the bounds requests and
// allocatable keep (an overflowed sum, unlimited allocatable), it is unbounded.
func (c *claim) claimRoom(r int) int64 {
	a, limit := c.requests[r], c.maxAlloc[r]
	const bound = 1 << 62
	if a < 0 || a > bound || limit < -bound || limit > bound {
		return math.MaxInt64
	}
	return limit - a
}

// fresh recomputes the run's room when a claim's room shrank, its values changed, a claim
// left or a key is newly tracked.
func (k *claimRun) fresh() *claimRun {
	if !k.stale && k.keyed == len(k.tracked.keys) {
		return k
	}
	k.stale = false
	k.room = noRoom
	k.keyed = len(k.tracked.keys)
	k.byKey = slices.Grow(k.byKey[:0], k.keyed)[:k.keyed]
	for i := range k.byKey {
		k.byKey[i].vals, k.byKey[i].many = k.byKey[i].vals[:0], false
	}
	for c := k.first; ; c = c.next {
		k.raise(c)
		if c == k.last {
			return k
		}
	}
}

func (k *claimRun) raise(c *claim) {
	k.room.raise(c)
	for i, key := range k.tracked.keys[:k.keyed] {
		kr := &k.byKey[i]
		if kr.many {
			continue
		}
		v := ""
		if key < len(c.values) {
			v = c.values[key]
		}
		j := slices.IndexFunc(kr.vals, func(x valueRoom) bool { return x.value == v })
		if j < 0 {
			if len(kr.vals) == maxRunValues {
				kr.vals, kr.many = kr.vals[:0], true
				continue
			}
			kr.vals = append(kr.vals, valueRoom{value: v, room: noRoom})
			j = len(kr.vals) - 1
		}
		kr.vals[j].room.raise(c)
	}
}

// refuses reports whether every claim of the run fails the room test (head: claim.mayFitHead,
// else fits2's) for p or is ruled out by filters (rejectedByFilters).
func (k *claimRun) refuses(p *podData, filters []domainFilter, head bool) bool {
	if !k.room.fits(p, head) {
		return true
	}
	for _, df := range filters {
		i := slices.Index(k.tracked.keys[:k.keyed], df.key)
		if i < 0 || k.byKey[i].many {
			continue
		}
		if !slices.ContainsFunc(k.byKey[i].vals, func(v valueRoom) bool {
			return v.room.fits(p, head) && (v.value == "" || slices.Contains(df.allowed, v.value))
		}) {
			return true
		}
	}
	return false
}

// skip is the last claim of c's run when c starts a run all of whose claims the scan would
// pass over (refuses), else nil.
func (c *claim) skip(p *podData, filters []domainFilter, head bool) *claim {
	if k := c.run; k != nil && k.first == c && k.fresh().refuses(p, filters, head) {
		return k.last
	}
	return nil
}

// roomChanged updates c's run after setHead changed c's room from old.
func (c *claim) roomChanged(old room) {
	k := c.run
	if k == nil || k.stale {
		return
	}
	if c.shrankFrom(old, &k.room) {
		k.stale = true
		return
	}
	for i, key := range k.tracked.keys[:k.keyed] {
		kr := &k.byKey[i]
		v := ""
		if key < len(c.values) {
			v = c.values[key]
		}
		if j := slices.IndexFunc(kr.vals, func(x valueRoom) bool { return x.value == v }); j >= 0 && c.shrankFrom(old, &kr.vals[j].room) {
			k.stale = true
			return
		}
	}
	k.raise(c)
}

// shrankFrom reports whether c's room went down from old in a resource where old was best's.
func (c *claim) shrankFrom(old room, best *room) bool {
	shrank := func(old, now, best int64) bool { return now < old && old == best }
	return shrank(old.headCPU, c.headCPU, best.headCPU) || shrank(old.headMem, c.headMem, best.headMem) ||
		shrank(old.roomCPU, c.roomCPU, best.roomCPU) || shrank(old.roomMem, c.roomMem, best.roomMem)
}

// setValues sets c's single values per topology key from reqs; its run recomputes when they
// changed.
func (c *claim) setValues(s *solver, reqs requirements.Requirements) {
	next := s.topo.singleValues(reqs, s.valuesBuf)
	if k := c.run; k != nil && !slices.Equal(c.values, next) {
		k.stale = true
	}
	c.values = append(c.values[:0], next...)
	s.valuesBuf = next[:0]
}

// runKeys is the solver's tracked keys, made on first use.
func (s *solver) runKeys() *runKeys {
	if s.trackedKeys == nil {
		s.trackedKeys = &runKeys{}
	}
	return s.trackedKeys
}

// joinRun puts c, just linked into the list, into its predecessor's run (the head's run when
// c is the head, a new run when the list was empty).
func (s *solver) joinRun(c *claim) {
	var k *claimRun
	switch {
	case c.prev != nil:
		k = c.prev.run
		if k.last == c.prev {
			k.last = c
		}
	case c.next != nil:
		k = c.next.run
		k.first = c
	default:
		k = &claimRun{first: c, last: c, tracked: s.runKeys(), stale: true}
	}
	c.run = k
	k.n++
	if !k.stale {
		k.raise(c)
	}
	if size := s.runLen(); k.n > 2*size {
		k.split(size)
	}
}

// leaveRun takes c, just unlinked from between prev and next, out of its run; a run left
// shorter than a quarter of the run size merges into a neighbour.
func (s *solver) leaveRun(c, prev, next *claim) {
	k := c.run
	if k == nil {
		return
	}
	c.run = nil
	k.n--
	k.stale = true
	if k.n == 0 {
		return
	}
	if k.first == c {
		k.first = next
	}
	if k.last == c {
		k.last = prev
	}
	size := s.runLen()
	if k.n >= size/4 {
		return
	}
	var into *claimRun
	switch {
	case k.last.next != nil:
		into = k.last.next.run
		into.first = k.first
	case k.first.prev != nil:
		into = k.first.prev.run
		into.last = k.last
	default:
		return
	}
	k.moveTo(into)
	if into.n > 2*size {
		into.split(size)
	}
}

// moveTo hands k's claims to the neighbouring run into.
func (k *claimRun) moveTo(into *claimRun) {
	for c := k.first; ; c = c.next {
		c.run = into
		if c == k.last {
			break
		}
	}
	into.n += k.n
	into.stale = true
}

// split cuts k after size claims; the rest form a new run.
func (k *claimRun) split(size int) {
	c := k.first
	for range size - 1 {
		c = c.next
	}
	rest := &claimRun{first: c.next, last: k.last, n: k.n - size, tracked: k.tracked, stale: true}
	for x := rest.first; ; x = x.next {
		x.run = rest
		if x == rest.last {
			break
		}
	}
	k.last, k.n, k.stale = c, size, true
}

// dropRuns forgets the runs when the list is emptied (Karpenter mode's rounds).
func (s *solver) dropRuns() {
	for c := s.head; c != nil; c = c.next {
		c.run = nil
	}
}
