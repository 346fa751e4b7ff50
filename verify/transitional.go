package verify

import (
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// SolveInput is Solve over in.Snapshot() with in.Options.
//
// Transitional (issue #8 stage 2 removes it).
func SolveInput(in *scheduling.Input, res *scheduling.Result) []Violation {
	if in == nil {
		return nil
	}
	return Solve(in.Snapshot(), in.Options, res)
}

// PlanInput is Plan over in.Snapshot() at in.Now with in.Options.
//
// Transitional (issue #8 stage 2 removes it).
func PlanInput(in *disruption.Input, res *disruption.Result) []Violation {
	if in == nil {
		return nil
	}
	return Plan(in.Snapshot(), in.Now, in.Options, res)
}
