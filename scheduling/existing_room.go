package scheduling

import (
	"math"
	"slices"
)

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
	// skip are the tree positions of nodes that are not the Solve's (a base's index with the
	// nodes its fork dropped, existing_base.go), sorted: their room is none, and the Solve's
	// node i is at position i plus the skipped positions before it.
	skip []int
}

// without makes the nodes at tree positions skip (sorted) none of the Solve's: they have no
// room, and the Solve's nodes are numbered without them.
func (t *roomIndex) without(skip []int) {
	none := make(vec, t.dims)
	for d := range none {
		none[d] = math.MinInt64 // fits nothing
	}
	for _, k := range skip {
		t.set(k, none)
	}
	t.skip = skip
}

// position is the tree position of the Solve's node i.
func (t *roomIndex) position(i int) int {
	for _, d := range t.skip {
		if d > i {
			break
		}
		i++
	}
	return i
}

// node is the Solve's node at tree position k (never a skipped one).
func (t *roomIndex) node(k int) int {
	n, _ := slices.BinarySearch(t.skip, k)
	return k - n
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
	t.set(t.position(i), available)
}

// set records the room at tree position i.
func (t *roomIndex) set(i int, available vec) {
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
	k := t.nextAt(from, requests)
	t.lastReq = append(t.lastReq[:0], requests...)
	t.lastAt = k
	if k < 0 {
		t.lastAt = t.n
		return -1
	}
	return t.node(k)
}

// next is the first node at or after from whose room covers requests, or -1.
func (t *roomIndex) next(from int, requests vec) int {
	if from >= t.n-len(t.skip) {
		return -1
	}
	if k := t.nextAt(t.position(from), requests); k >= 0 {
		return t.node(k)
	}
	return -1
}

// nextAt is the first tree position at or after from whose room covers requests, or -1.
func (t *roomIndex) nextAt(from int, requests vec) int {
	for from < t.n {
		k := t.search(1, 0, t.leaves, from, requests)
		if _, skipped := slices.BinarySearch(t.skip, k); k < 0 || !skipped {
			return k
		}
		from = k + 1 // a skipped node's no room covered requests of none at all
	}
	return -1
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
