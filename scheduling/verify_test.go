package scheduling_test

import (
	"fmt"
	"strings"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// verifyErr is what verify.Solve finds wrong with res, as an error (nil: valid).
func verifyErr(in *scheduling.Input, res *scheduling.Result) error {
	vs := verify.SolveInput(in, res)
	if len(vs) == 0 {
		return nil
	}
	lines := make([]string, 0, len(vs))
	for _, v := range vs {
		lines = append(lines, v.String())
	}
	return fmt.Errorf("verify.Solve: %d violations:\n%s", len(vs), strings.Join(lines, "\n"))
}

// mustVerify panics when verify.Solve finds a violation (for Examples).
func mustVerify(snap *cluster.Snapshot, res *scheduling.Result) {
	if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
		panic(fmt.Sprint(vs))
	}
}
