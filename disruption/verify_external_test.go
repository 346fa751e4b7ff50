package disruption_test

import (
	"time"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

func init() {
	disruption.VerifyPlan = func(snap *cluster.Snapshot, now time.Time, opts disruption.Options, res *disruption.Result) []string {
		return strings(verify.Plan(snap, now, opts, res))
	}
	disruption.VerifySolve = func(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) []string {
		return strings(verify.Solve(snap, opts, res))
	}
}

func strings(vs []verify.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}
