package scheduling

import "sort"

// A template's instance types indexed by allocatable, per resource: a claim's commit keeps the
// types that still hold all its pods, and tested each type against the requests (400 types,
// every placement: a sixth of Solve on Karpenter's benchmark). The index answers with a few
// bitset intersections and the test of a handful of types per resource, the same set.

// typeFit is the index of one template's types (nil resources: the types' vectors differ in
// length, and commit tests them one by one).
type typeFit struct {
	res []resourceFit
}

// resourceFit orders the types by one resource's allocatable.
type resourceFit struct {
	order []int   // type positions, allocatable ascending
	alloc []int64 // the allocatable of order[i]
	step  int
	// from[q] are the types at order[q*step:]: those with at least alloc[q*step].
	from []bitset
}

// fit is t's index, built on first use (the types' vectors are final by then).
func (t *template) fit() *typeFit {
	if t.fitIndex != nil {
		return t.fitIndex
	}
	f := &typeFit{}
	t.fitIndex = f
	if len(t.types) == 0 {
		return f
	}
	width := len(t.types[0].alloc)
	for _, tt := range t.types {
		if len(tt.alloc) != width {
			return f
		}
	}
	n := len(t.types)
	step := max(8, n/64)
	f.res = make([]resourceFit, width)
	for r := range f.res {
		rf := &f.res[r]
		rf.step = step
		rf.order = make([]int, n)
		for i := range rf.order {
			rf.order[i] = i
		}
		sort.SliceStable(rf.order, func(a, b int) bool { return t.types[rf.order[a]].alloc[r] < t.types[rf.order[b]].alloc[r] })
		rf.alloc = make([]int64, n)
		for i, x := range rf.order {
			rf.alloc[i] = t.types[x].alloc[r]
		}
		rf.from = make([]bitset, (n+step-1)/step)
		acc := newBitset(n)
		for i := n - 1; i >= 0; i-- {
			acc.set(rf.order[i])
			if i%step == 0 {
				rf.from[i/step] = acc.clone()
			}
		}
	}
	return f
}

// fitting narrows set (in place) to the types whose allocatable holds req in every
// resource (vec.fits); ok is false when the index cannot tell (commit then tests each type).
func (f *typeFit) fitting(set bitset, req vec) (ok bool) {
	if f.res == nil || len(req) < len(f.res) {
		return false
	}
	for r := range f.res {
		rf := &f.res[r]
		need := req[r]
		if need <= rf.alloc[0] {
			continue // every type holds it
		}
		pos := sort.Search(len(rf.alloc), func(i int) bool { return rf.alloc[i] >= need })
		if pos == len(rf.alloc) {
			clear(set)
			return true
		}
		q := pos / rf.step
		set.andWith(rf.from[q])
		for _, x := range rf.order[q*rf.step : pos] {
			set.clear(x)
		}
	}
	return true
}

// maxAlloc sets into[r] to the largest allocatable of r among set, -1<<62 when set is empty
// (or when that is larger): what raising from -1<<62 over each type of set gives.
func (f *typeFit) maxAlloc(set bitset, into vec) {
	for r := range into {
		into[r] = -1 << 62
		if r >= len(f.res) {
			continue
		}
		rf := &f.res[r]
		// from[q] shrinks as q grows: the last q whose types meet set holds set's largest.
		last := sort.Search(len(rf.from), func(q int) bool { return !intersects(rf.from[q], set) }) - 1
		if last < 0 {
			continue
		}
		for i := min(len(rf.order), (last+1)*rf.step) - 1; i >= last*rf.step; i-- {
			if set.has(rf.order[i]) {
				into[r] = max(into[r], rf.alloc[i])
				break
			}
		}
	}
}

func intersects(a, b bitset) bool {
	for i := range min(len(a), len(b)) {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}
