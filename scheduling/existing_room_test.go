package scheduling

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestRoomIndexFindsTheFirstNodeWithRoom checks the free-room index against a scan: after any
// sequence of placements (rooms only shrink, as in a Solve), first and next give the first
// node at or after a position whose room covers the requests in every resource, also with
// negative rooms (overcommitted nodes) and requests like an earlier one (the cursor).
func TestRoomIndexFindsTheFirstNodeWithRoom(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dims := rapid.IntRange(1, 4).Draw(rt, "dims")
		amount := rapid.OneOf(rapid.Int64Range(-3, 12), rapid.SampledFrom([]int64{math.MinInt64, math.MaxInt64}))
		n := rapid.IntRange(0, 40).Draw(rt, "nodes")
		nodes := make([]*existingNode, n)
		for i := range nodes {
			nodes[i] = &existingNode{available: vec(rapid.SliceOfN(amount, dims, dims).Draw(rt, "room"))}
		}
		idx := newRoomIndex(nodes, dims, make([]int64, rapid.IntRange(0, 300).Draw(rt, "buffer")))
		if extra := rapid.IntRange(0, 10).Draw(rt, "skipped"); extra > 0 {
			// A base's index (existing_base.go): the nodes among others, skipped.
			var base []*existingNode
			var skip []int
			next := 0
			for range n + extra {
				if next == n || len(skip) < extra && rapid.Bool().Draw(rt, "skip here") {
					skip = append(skip, len(base))
					base = append(base, &existingNode{available: vec(rapid.SliceOfN(amount, dims, dims).Draw(rt, "skipped room"))})
					continue
				}
				base = append(base, nodes[next])
				next++
			}
			idx = newRoomIndex(base, dims, nil)
			idx.without(skip)
		}
		scan := func(from int, req vec) int {
			for i := from; i < n; i++ {
				if req.fits(nodes[i].available) {
					return i
				}
			}
			return -1
		}
		request := rapid.SliceOfN(rapid.Int64Range(-1, 12), dims, dims)
		for step := range rapid.IntRange(1, 80).Draw(rt, "steps") {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0: // a pod placed: its node's room shrinks
				if n == 0 {
					continue
				}
				i := rapid.IntRange(0, n-1).Draw(rt, "node")
				nodes[i].available.sub(vec(rapid.SliceOfN(rapid.Int64Range(0, 5), dims, dims).Draw(rt, "placed")))
				idx.update(i, nodes[i].available)
			case 1: // first fit from the start, then the following candidates
				req := vec(request.Draw(rt, "request"))
				want := scan(0, req)
				got := idx.first(req)
				for got >= 0 && got == want && rapid.Bool().Draw(rt, "check fails") {
					want, got = scan(got+1, req), idx.next(got+1, req)
				}
				if got != want {
					rt.Fatalf("step %d: request %v found node %d, a scan finds %d", step, req, got, want)
				}
			case 2: // next from anywhere
				from := rapid.IntRange(0, n+1).Draw(rt, "from")
				req := vec(request.Draw(rt, "request"))
				if got, want := idx.next(from, req), scan(from, req); got != want {
					rt.Fatalf("step %d: request %v from %d found node %d, a scan finds %d", step, req, from, got, want)
				}
			}
		}
	})
}
