package scheduling

import (
	"slices"
	"sort"
)

// Karpenter's scheduler keeps its round's NodeClaims in a slice: a new one is appended, one
// that takes a pod stays where it is, and before each pod tries them (after the existing
// nodes) the slice is sorted by pod count with sort.Slice, which is not stable past 12
// NodeClaims (pdqsort). Karpenter mode keeps that slice (solver.korder) and sorts it as
// Karpenter does, with the same sort, so its NodeClaims are tried, and created, in
// Karpenter's order among those with as many pods (difftest plan:920174: the in-flight
// NodeClaim app-4-0 joins). Past korderMax NodeClaims it stops (the sort would cost more than
// the Solve) and keeps the stable order the list has (insertClaim, bumpCount).
const korderMax = 64

// korderAdd appends a new NodeClaim to Karpenter's slice.
func (s *solver) korderAdd(c *claim) {
	if !s.karpenter || s.korderOff {
		return
	}
	if len(s.korder) == korderMax {
		s.korder, s.korderOff = nil, true
		return
	}
	s.korder = append(s.korder, c)
}

// korderDrop takes c out of Karpenter's slice.
func (s *solver) korderDrop(c *claim) {
	s.korder = slices.DeleteFunc(s.korder, func(x *claim) bool { return x == c })
}

// korderReset starts a new round's slice.
func (s *solver) korderReset() { s.korder, s.korderOff = nil, false }

// korderSort sorts Karpenter's slice as its scheduler does before a pod tries the NodeClaims,
// and links the list in that order when it differs.
func (s *solver) korderSort() {
	if !s.karpenter || s.korderOff || len(s.korder) < 2 {
		return
	}
	k := s.korder
	sort.Slice(k, func(a, b int) bool { return len(k[a].pods) < len(k[b].pods) })
	i := 0
	for c := s.head; c != nil; c = c.next {
		if i == len(k) || k[i] != c {
			s.relink(k)
			return
		}
		i++
	}
	if i != len(k) {
		s.relink(k)
	}
}

// relink makes the list the claims of order, in that order, with their runs made afresh.
func (s *solver) relink(order []*claim) {
	s.dropRuns()
	s.head, s.tail = nil, nil
	clear(s.lastOfCount)
	var prev *claim
	for _, c := range order {
		c.prev, c.next, c.run = prev, nil, nil
		if prev == nil {
			s.head = c
		} else {
			prev.next = c
		}
		s.tail = c
		s.joinRun(c)
		c.count = len(c.pods)
		s.lastOfCount[c.count] = c
		prev = c
	}
}
