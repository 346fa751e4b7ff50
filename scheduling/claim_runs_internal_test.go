package scheduling

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestClaimRunsSkipOnlyRefusingClaims: over claims opened, grown (moved by bumpCount),
// shrunk in room and narrowed to a zone in any order, the runs cut the fewest-pods-first
// chain into consecutive pieces, and a scan that skips runs finds the same first claim as one
// that visits every claim, for the cheapest-type test (mayFitHead) and the room test (fits2's
// cpu and memory), each with the domain filters of a pod (rejectedByFilters).
func TestClaimRunsSkipOnlyRefusingClaims(t *testing.T) {
	zones := []string{"", "a", "b", "c", "d", "e"} // more than maxRunValues
	rapid.Check(t, func(rt *rapid.T) {
		s := &solver{lastOfCount: map[int]*claim{}, runSize: rapid.SampledFrom([]int{1, 2, 4, 8, defaultRunSize}).Draw(rt, "runSize"),
			topo: &topology{keys: []string{"zone"}}}
		var claims []*claim
		amount := rapid.Int64Range(-2, 40)
		zone := rapid.SampledFrom(zones)
		setRoom := func(c *claim) {
			old := room{c.headCPU, c.headMem, c.roomCPU, c.roomMem}
			c.headCPU, c.headMem = amount.Draw(rt, "headCPU"), amount.Draw(rt, "headMem")
			c.roomCPU, c.roomMem = amount.Draw(rt, "roomCPU"), amount.Draw(rt, "roomMem")
			c.roomChanged(old)
		}
		setZone := func(c *claim) {
			reqs := requirements.Requirements{}
			if z := zone.Draw(rt, "zone"); z != "" {
				reqs["zone"] = requirements.MustNew("zone", requirements.In, z)
			}
			c.setValues(s, reqs)
		}
		steps := rapid.IntRange(1, 900).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			switch op := rapid.IntRange(0, 4).Draw(rt, "op"); {
			case len(claims) == 0 || op == 0:
				c := &claim{pods: make([]*podData, 1)}
				setZone(c) // commit sets values and room before insertClaim links it
				setRoom(c)
				s.insertClaim(c)
				claims = append(claims, c)
			case op == 1:
				c := claims[rapid.IntRange(0, len(claims)-1).Draw(rt, "grow")]
				c.pods = append(c.pods, nil)
				setRoom(c)
				s.bumpCount(c)
			case op == 2:
				setZone(claims[rapid.IntRange(0, len(claims)-1).Draw(rt, "narrow")])
			default:
				setRoom(claims[rapid.IntRange(0, len(claims)-1).Draw(rt, "shrink")])
			}
			checkRuns(rt, s, len(claims))
			p := &podData{cpu: amount.Draw(rt, "cpu"), mem: amount.Draw(rt, "mem")}
			var filters []domainFilter
			if rapid.Bool().Draw(rt, "filtered") {
				allowed := rapid.SliceOfDistinct(rapid.SampledFrom(zones[1:]), rapid.ID[string]).Draw(rt, "allowed")
				filters = []domainFilter{{key: 0, allowed: allowed}}
				s.runKeys().track(filters)
			}
			for _, head := range []bool{true, false} {
				fits := func(c *claim) bool {
					if head {
						return c.mayFitHead(p) && !rejectedByFilters(filters, c.values)
					}
					return p.cpu <= c.roomCPU && p.mem <= c.roomMem && !rejectedByFilters(filters, c.values)
				}
				var want, got *claim
				for c := s.head; c != nil && want == nil; c = c.next {
					if fits(c) {
						want = c
					}
				}
				for c := s.head; c != nil && got == nil; c = c.next {
					if last := c.skip(p, filters, head); last != nil {
						c = last
						continue
					}
					if fits(c) {
						got = c
					}
				}
				if got != want {
					rt.Fatalf("step %d (head test %v): the scan with skips finds another claim than the full scan", i, head)
				}
			}
		}
	})
}

// checkRuns fails unless the runs cut s's chain of n claims into consecutive pieces whose
// counts, ends and (when not stale) maxima are right.
func checkRuns(rt interface{ Fatalf(string, ...any) }, s *solver, n int) {
	seen := 0
	for c := s.head; c != nil; {
		k := c.run
		if k == nil || k.first != c {
			rt.Fatalf("claim %d of the chain does not start its run", seen)
		}
		members := 0
		var headCPU, headMem, roomCPU, roomMem int64 = -1 << 63, -1 << 63, -1 << 63, -1 << 63
		for ; ; c = c.next {
			if c == nil || c.run != k {
				rt.Fatalf("run ends before its last claim")
			}
			members++
			headCPU, headMem = max(headCPU, c.headCPU), max(headMem, c.headMem)
			roomCPU, roomMem = max(roomCPU, c.roomCPU), max(roomMem, c.roomMem)
			if c == k.last {
				break
			}
		}
		c = c.next
		if members != k.n {
			rt.Fatalf("run counts %d claims, holds %d", k.n, members)
		}
		if members > 2*s.runLen() {
			rt.Fatalf("run of %d claims was not split", members)
		}
		if !k.stale && k.keyed == len(k.tracked.keys) {
			checkKeyRoom(rt, k)
		}
		if !k.stale && (k.headCPU != headCPU || k.headMem != headMem || k.roomCPU != roomCPU || k.roomMem != roomMem) {
			rt.Fatalf("run's maxima %d %d %d %d, its claims' %d %d %d %d", k.headCPU, k.headMem, k.roomCPU, k.roomMem, headCPU, headMem, roomCPU, roomMem)
		}
		seen += members
	}
	if seen != n {
		rt.Fatalf("runs hold %d claims, the chain %d", seen, n)
	}
}

// TestClaimRunsMergeIntoTheRunBefore: a last run left shorter than a quarter of the run size
// merges into the run before it (the chain only loses claims at its end when tests unlink
// them; the solver's moves keep the end long).
func TestClaimRunsMergeIntoTheRunBefore(t *testing.T) {
	s := &solver{lastOfCount: map[int]*claim{}, runSize: 8}
	var claims []*claim
	for range 17 {
		c := &claim{pods: make([]*podData, 1), headCPU: 1, headMem: 1, roomCPU: 1, roomMem: 1}
		s.insertClaim(c)
		claims = append(claims, c)
	}
	checkRuns(t, s, 17)
	if claims[0].run == claims[16].run {
		t.Fatal("17 claims in one run of size 8")
	}
	for i := 16; i >= 9; i-- {
		s.unlink(claims[i])
		checkRuns(t, s, i)
	}
	if claims[0].run != claims[8].run || claims[0].run.n != 9 {
		t.Fatal("the last run, down to one claim, did not merge into the run before")
	}
}

// checkKeyRoom fails unless each tracked key of a fresh run k holds, per single value of its
// claims, their largest room, or says it has too many values.
func checkKeyRoom(rt interface{ Fatalf(string, ...any) }, k *claimRun) {
	for i, key := range k.tracked.keys {
		want := map[string]room{}
		for c := k.first; ; c = c.next {
			v := ""
			if key < len(c.values) {
				v = c.values[key]
			}
			r, ok := want[v]
			if !ok {
				r = noRoom
			}
			r.raise(c)
			want[v] = r
			if c == k.last {
				break
			}
		}
		kr := k.byKey[i]
		if kr.many != (len(want) > maxRunValues) {
			rt.Fatalf("key %d: %d values, many %v", key, len(want), kr.many)
		}
		if kr.many {
			continue
		}
		if len(kr.vals) != len(want) {
			rt.Fatalf("key %d: the run keeps %d values, its claims have %d", key, len(kr.vals), len(want))
		}
		for _, v := range kr.vals {
			if want[v.value] != v.room {
				rt.Fatalf("key %d value %q: room %v, its claims' %v", key, v.value, v.room, want[v.value])
			}
		}
	}
}
