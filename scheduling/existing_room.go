package scheduling

import "math"

// roomIndex finds, in O(log n) for the usual pod, the first existing node (in s.existing's
// order) whose room left covers a pod's requests: a segment tree holding, per subtree and
// resource, the most room any of its nodes has left. Placement's first fit then checks only
// the nodes the index offers (existingNode.check's first test is the same comparison, so a
// node skipped could never have taken the pod) and the first node in order that passes every
// check still takes it. It never decides a fit: it only skips nodes too full to check.
type roomIndex struct {
	n, dims int
	// leaves is the tree's first leaf (a power of two >= n); room holds dims values per
	// tree node, node 1 the root, node k's children 2k and 2k+1.
	leaves int
	room   []int64
	// lastReq and lastAt are the requests of the last search from the start and the first
	// node with room for them then: rooms only shrink, so no node before lastAt has room for
	// requests at least as large (a pod like the last one starts there).
	lastReq vec
	lastAt  int
}

// newRoomIndex indexes the room left on each of nodes, in buf when it is large enough.
func newRoomIndex(nodes []*existingNode, dims int, buf []int64) *roomIndex {
	leaves := 1
	for leaves < len(nodes) {
		leaves *= 2
	}
	if cap(buf) < 2*leaves*dims {
		buf = make([]int64, 2*leaves*dims)
	}
	t := &roomIndex{n: len(nodes), dims: dims, leaves: leaves, room: buf[:2*leaves*dims]}
	for i := range leaves {
		leaf := t.at(leaves + i)
		if i < len(nodes) {
			copy(leaf, nodes[i].available)
			continue
		}
		for r := range leaf {
			leaf[r] = math.MinInt64 // no node: fits nothing
		}
	}
	for k := leaves - 1; k >= 1; k-- {
		t.pull(k)
	}
	return t
}

func (t *roomIndex) at(k int) []int64 { return t.room[k*t.dims : (k+1)*t.dims] }

// pull sets tree node k to the most room of its two children.
func (t *roomIndex) pull(k int) {
	to, l, r := t.at(k), t.at(2*k), t.at(2*k+1)
	for d := range to {
		to[d] = max(l[d], r[d])
	}
}

// update records node i's room left after a placement.
func (t *roomIndex) update(i int, available vec) {
	k := t.leaves + i
	copy(t.at(k), available)
	for k /= 2; k >= 1; k /= 2 {
		t.pull(k)
	}
}

// covers reports whether some node under tree node k may have room for requests (every
// resource's most room is enough, perhaps on different nodes).
func (t *roomIndex) covers(k int, requests vec) bool {
	room := t.at(k)
	for d, x := range requests {
		if x > room[d] {
			return false
		}
	}
	return true
}

// first is the first node whose room covers requests, or -1 (next from the start).
func (t *roomIndex) first(requests vec) int {
	from := 0
	if t.lastReq != nil && t.lastReq.fits(requests) {
		from = t.lastAt
	}
	i := t.next(from, requests)
	t.lastReq = append(t.lastReq[:0], requests...)
	t.lastAt = i
	if i < 0 {
		t.lastAt = t.n
	}
	return i
}

// next is the first node at or after from whose room covers requests, or -1.
func (t *roomIndex) next(from int, requests vec) int {
	if from >= t.n {
		return -1
	}
	return t.search(1, 0, t.leaves, from, requests)
}

// search is next within tree node k, which spans nodes [lo, hi).
func (t *roomIndex) search(k, lo, hi, from int, requests vec) int {
	if hi <= from || !t.covers(k, requests) {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if i := t.search(2*k, lo, mid, from, requests); i >= 0 {
		return i
	}
	return t.search(2*k+1, mid, hi, from, requests)
}
