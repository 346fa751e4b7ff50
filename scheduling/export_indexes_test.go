package scheduling

import "github.com/nodeplan/nodeplan/cluster"

// SolveWithoutIndexes is Solve visiting every NodeClaim and testing every instance type, for
// the tests (package scheduling_test) that hold Solve's indexes to the same answers.
func SolveWithoutIndexes(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.withoutIndexes = true
	return Solve(snap, opts)
}

// SolveFirstOrder is Solve without the default's second try in another queue order
// (starved.go), for the tests that compare the two.
func SolveFirstOrder(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.firstOrderOnly = true
	return Solve(snap, opts)
}

// SolveUnguarded is SolveFirstOrder without the guard on the price of preferences
// (preferences.go): the repaired first plan and the second tries that may replace it.
func SolveUnguarded(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.firstOrderOnly, opts.unguarded = true, true
	return Solve(snap, opts)
}

// SolveKeepingPreferences is Solve without the guards on preferences (preferences.go): the
// plan that honours them and the second tries that may replace it, for the tests that hold
// those tries where the plan without preferences now places more.
func SolveKeepingPreferences(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.unguarded = true
	return Solve(snap, opts)
}

// SolveRepairOnly is SolveUnguarded without its second tries (Options.repairOnly): the
// first pass and its repair alone.
func SolveRepairOnly(snap *cluster.Snapshot, opts Options) (*Result, error) {
	opts.unguarded, opts.repairOnly = true, true
	return Solve(snap, opts)
}
