package scheduling

import (
	"testing"

	"pgregory.net/rapid"
)

// TestClaimRunsSkipOnlyRefusingClaims: over claims opened, grown (moved by bumpCount) and
// shrunk in room in any order, the runs cut the fewest-pods-first chain into consecutive
// pieces, and a scan that skips runs finds the same first claim as one that visits every
// claim, for the cheapest-type test (mayFitHead) and the room test (fits2's cpu and memory).
func TestClaimRunsSkipOnlyRefusingClaims(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := &solver{lastOfCount: map[int]*claim{}, runSize: rapid.SampledFrom([]int{1, 2, 4, 8, defaultRunSize}).Draw(rt, "runSize")}
		var claims []*claim
		room := rapid.Int64Range(-2, 40)
		setRoom := func(c *claim) {
			old := [4]int64{c.headCPU, c.headMem, c.roomCPU, c.roomMem}
			c.headCPU, c.headMem = room.Draw(rt, "headCPU"), room.Draw(rt, "headMem")
			c.roomCPU, c.roomMem = room.Draw(rt, "roomCPU"), room.Draw(rt, "roomMem")
			c.roomChanged(old)
		}
		steps := rapid.IntRange(1, 900).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			switch op := rapid.IntRange(0, 3).Draw(rt, "op"); {
			case len(claims) == 0 || op == 0:
				c := &claim{pods: make([]*podData, 1)}
				setRoom(c) // commit sets the room before insertClaim links it
				s.insertClaim(c)
				claims = append(claims, c)
			case op == 1:
				c := claims[rapid.IntRange(0, len(claims)-1).Draw(rt, "grow")]
				c.pods = append(c.pods, nil)
				setRoom(c)
				s.bumpCount(c)
			default:
				setRoom(claims[rapid.IntRange(0, len(claims)-1).Draw(rt, "shrink")])
			}
			checkRuns(rt, s, len(claims))
			p := &podData{cpu: room.Draw(rt, "cpu"), mem: room.Draw(rt, "mem")}
			tests := []struct {
				name string
				skip func(*claim) *claim
				fits func(*claim) bool
			}{
				{"head", func(c *claim) *claim { return c.skipHead(p) },
					func(c *claim) bool { return c.mayFitHead(p) }},
				{"room", func(c *claim) *claim { return c.skipFull(p) },
					func(c *claim) bool { return p.cpu <= c.roomCPU && p.mem <= c.roomMem }},
			}
			for _, tc := range tests {
				var want, got *claim
				for c := s.head; c != nil && want == nil; c = c.next {
					if tc.fits(c) {
						want = c
					}
				}
				for c := s.head; c != nil && got == nil; c = c.next {
					if last := tc.skip(c); last != nil {
						c = last
						continue
					}
					if tc.fits(c) {
						got = c
					}
				}
				if got != want {
					rt.Fatalf("step %d, %s test: the scan with skips finds another claim than the full scan", i, tc.name)
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
