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

// verifyErr is what verify.Solve finds wrong with res, as an error (nil: valid). In
// Karpenter mode a hostname spread that holds only if its pods bind before the pods it
// merely selects is Karpenter's own plan (its provisioner places such pods anywhere) and is
// reported, not repaired (cmd/nodeplan TestKarpenterModeReportsViolations).
func verifyErr(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) error {
	var lines []string
	for _, v := range verify.Solve(snap, opts, res) {
		if opts.Packing == scheduling.PackingKarpenter && v.Code == verify.TopologySpreadAsLaunched {
			continue
		}
		lines = append(lines, v.String())
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("verify.Solve: %d violations:\n%s", len(lines), strings.Join(lines, "\n"))
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
