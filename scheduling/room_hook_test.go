package scheduling

import (
	"math"

	"github.com/nodeplan/nodeplan/cluster"
)

// SolveIndexingRoom is Solve with the free-room index of existing nodes built before the first
// placement (index) or never, for the property test in package scheduling_test (compiled into
// the same test binary) that holds both to the same answer.
func SolveIndexingRoom(snap *cluster.Snapshot, opts Options, index bool) (*Result, error) {
	return solve(snap, opts, nil, func(s *solver) {
		if index {
			s.scanned = math.MaxInt // more than any node count: the index at once
		} else {
			s.scanned = math.MinInt // never more: node by node
		}
	})
}
