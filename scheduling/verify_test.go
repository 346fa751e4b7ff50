package scheduling_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

func init() { scheduling.VerifySolve = verifyErr }

// tb is what the solve helpers need of *testing.T, *testing.B and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// verifyErr is what verify.Solve finds wrong with res, as an error (nil: valid).
func verifyErr(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) error {
	vs := verify.Solve(snap, opts, res)
	if len(vs) == 0 {
		return nil
	}
	lines := make([]string, 0, len(vs))
	for _, v := range vs {
		lines = append(lines, v.String())
	}
	return fmt.Errorf("verify.Solve: %d violations:\n%s", len(vs), strings.Join(lines, "\n"))
}

// violationCodes are the distinct codes of verify.Solve's violations of res, sorted.
func violationCodes(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) []verify.ViolationCode {
	var out []verify.ViolationCode
	for _, v := range verify.Solve(snap, opts, res) {
		if !slices.Contains(out, v.Code) {
			out = append(out, v.Code)
		}
	}
	slices.Sort(out)
	return out
}

// solveVerified is cache.Solve (a nil cache: scheduling.Solve) failing the test when
// verify.Solve finds anything wrong with a result; Solve's error is returned as it is.
func solveVerified(t tb, cache *scheduling.Cache, snap *cluster.Snapshot, opts scheduling.Options) (*scheduling.Result, error) {
	t.Helper()
	res, err := cache.Solve(snap, opts)
	if err != nil {
		return nil, err
	}
	if err := verifyErr(snap, opts, res); err != nil {
		t.Fatalf("%v", err)
	}
	return res, nil
}

// mustSolve is scheduling.Solve that fails the test on an error or an invalid result.
func mustSolve(t tb, snap *cluster.Snapshot, opts scheduling.Options) *scheduling.Result {
	t.Helper()
	res, err := solveVerified(t, nil, snap, opts)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return res
}

// mustVerify panics when verify.Solve finds a violation (for Examples).
func mustVerify(snap *cluster.Snapshot, res *scheduling.Result) {
	if err := verifyErr(snap, scheduling.Options{}, res); err != nil {
		panic(err)
	}
}
