package scheduling

import (
	"testing"

	"github.com/nodeplan/nodeplan/cluster"
)

// VerifySolve checks a Solve result with package verify. verify imports scheduling, so the
// tests of this package cannot import it; verify_test.go (package scheduling_test, compiled
// into the same test binary) sets it in an init function.
var VerifySolve func(snap *cluster.Snapshot, opts Options, res *Result) error

// solveVerified is Solve failing the test when verify.Solve finds a violation in a result;
// Solve's error is returned as it is.
func solveVerified(t testing.TB, snap *cluster.Snapshot, opts Options) (*Result, error) {
	t.Helper()
	res, err := Solve(snap, opts)
	if err != nil {
		return nil, err
	}
	if VerifySolve == nil {
		t.Fatal("VerifySolve is not set (verify_test.go missing?)")
	}
	if err := VerifySolve(snap, opts, res); err != nil {
		t.Fatal(err)
	}
	return res, nil
}
