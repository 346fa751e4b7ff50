package scheduling

import "github.com/nodeplan/nodeplan/cluster"

// SolveWithoutIndexes is Solve visiting every NodeClaim and testing every instance type, for
// the tests (package scheduling_test) that hold Solve's indexes to the same answers.
func SolveWithoutIndexes(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.withoutIndexes = true
	return Solve(snap, opts)
}
