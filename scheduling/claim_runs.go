package scheduling

import "math"

// Runs of the NodeClaim list: Solve's scans over the open NodeClaims (solver.add) look for the
// first one, fewest pods first, that takes a pod; with 20,000 claims at 100,000 pods most are
// full, and visiting each cost most of the Solve. The list is cut into runs of consecutive
// claims, each knowing the most room any of its claims has, so a scan skips a run where no
// claim can take the pod: the claims a skip passes over are exactly the ones the scan's first
// check would have refused, and the answer is the same.

// defaultRunSize is the length a run is cut back to (solver.runSize, when tests set none);
// runs grow to twice it and merge below a quarter.
const defaultRunSize = 64

func (s *solver) runLen() int {
	if s.runSize > 0 {
		return s.runSize
	}
	return defaultRunSize
}

// claimRun is a run of consecutive claims of the solver's list, first to last.
type claimRun struct {
	first, last *claim
	n           int
	// The largest of its claims' headCPU and headMem (room on the cheapest remaining type),
	// and of their roomCPU and roomMem (room on the largest: claim.room).
	headCPU, headMem int64
	roomCPU, roomMem int64
	stale            bool // a claim's room shrank or left: recompute before reading
}

// room is the most of resource r a claim's largest remaining type still holds
// (maxAlloc - requests): a pod asking more fails fits2 there. Beyond the bounds requests and
// allocatable keep (an overflowed sum, unlimited allocatable), it is unbounded.
func (c *claim) room(r int) int64 {
	a, limit := c.requests[r], c.maxAlloc[r]
	const bound = 1 << 62
	if a < 0 || a > bound || limit < -bound || limit > bound {
		return math.MaxInt64
	}
	return limit - a
}

// fresh recomputes the run's maxima when a claim's room shrank or a claim left.
func (k *claimRun) fresh() *claimRun {
	if !k.stale {
		return k
	}
	k.stale = false
	k.headCPU, k.headMem, k.roomCPU, k.roomMem = math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64
	for c := k.first; ; c = c.next {
		k.raise(c)
		if c == k.last {
			return k
		}
	}
}

func (k *claimRun) raise(c *claim) {
	k.headCPU = max(k.headCPU, c.headCPU)
	k.headMem = max(k.headMem, c.headMem)
	k.roomCPU = max(k.roomCPU, c.roomCPU)
	k.roomMem = max(k.roomMem, c.roomMem)
}

// mayFitHead is false when no claim of the run passes claim.mayFitHead for p.
func (k *claimRun) mayFitHead(p *podData) bool { return p.cpu <= k.headCPU && p.mem <= k.headMem }

// mayFit is false when p's requests fail fits2 on every claim of the run (claim.check's first
// test).
func (k *claimRun) mayFit(p *podData) bool { return p.cpu <= k.roomCPU && p.mem <= k.roomMem }

// skipHead is the last claim of c's run when c starts a run none of whose claims passes
// claim.mayFitHead for p, else nil.
func (c *claim) skipHead(p *podData) *claim {
	if k := c.run; k != nil && k.first == c && !k.fresh().mayFitHead(p) {
		return k.last
	}
	return nil
}

// skipFull is the last claim of c's run when c starts a run where p fits no claim's
// remaining room, else nil.
func (c *claim) skipFull(p *podData) *claim {
	if k := c.run; k != nil && k.first == c && !k.fresh().mayFit(p) {
		return k.last
	}
	return nil
}

// roomChanged updates c's run after setHead changed c's headCPU, headMem, roomCPU and
// roomMem from old (in that order).
func (c *claim) roomChanged(old [4]int64) {
	k := c.run
	if k == nil || k.stale {
		return
	}
	shrank := func(old, now, best int64) bool { return now < old && old == best }
	if shrank(old[0], c.headCPU, k.headCPU) || shrank(old[1], c.headMem, k.headMem) ||
		shrank(old[2], c.roomCPU, k.roomCPU) || shrank(old[3], c.roomMem, k.roomMem) {
		k.stale = true
		return
	}
	k.raise(c)
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
		k = &claimRun{first: c, last: c, stale: true}
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
	rest := &claimRun{first: c.next, last: k.last, n: k.n - size, stale: true}
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
