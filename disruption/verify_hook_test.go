package disruption

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// VerifyPlan and VerifySolve check a Plan or Solve result with package verify. verify
// imports disruption, so the tests of this package cannot import it;
// verify_external_test.go (package disruption_test, compiled into the same test binary)
// sets them in an init function.
var (
	VerifyPlan  func(snap *cluster.Snapshot, now time.Time, opts Options, res *Result) []string
	VerifySolve func(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) []string
)

// tb is what the helpers need of *testing.T, *testing.B and *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
	Errorf(string, ...any)
}

// verified fails the test when verify.Plan finds a violation in res, Plan's result for snap
// at now with opts.
func verified(t tb, snap *cluster.Snapshot, now time.Time, opts Options, res *Result) {
	t.Helper()
	if VerifyPlan == nil {
		t.Fatal("VerifyPlan is not set (verify_external_test.go missing?)")
	}
	if vs := VerifyPlan(snap, now, opts, res); len(vs) > 0 {
		var dest []string
		for _, c := range res.Commands {
			var pods []string
			for _, r := range c.Replacements {
				for _, p := range r.Pods {
					pods = append(pods, p.Name)
				}
			}
			dest = append(dest, fmt.Sprintf("%v -> %v + replacements holding %v", c.Candidates, c.Destinations, pods))
		}
		t.Fatalf("verify.Plan: %d violations: %v\ncommands: %v\n%v", len(vs), vs, cmdSummary(res), dest)
	}
}

// solveVerified is scheduling.Solve(snap, opts), failing the test when Solve fails or
// verify.Solve finds a violation in its result.
func solveVerified(t tb, snap *cluster.Snapshot, opts scheduling.Options) *scheduling.Result {
	t.Helper()
	if VerifySolve == nil {
		t.Fatal("VerifySolve is not set (verify_external_test.go missing?)")
	}
	res, err := scheduling.Solve(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	if vs := VerifySolve(snap, opts, res); len(vs) > 0 {
		t.Fatalf("verify.Solve: %d violations: %v", len(vs), vs)
	}
	return res
}
