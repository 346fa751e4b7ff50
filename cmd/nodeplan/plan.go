package main

import (
	"io"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

func runPlan(args []string, stdout, stderr io.Writer) error {
	c, set, snap, err := loadPlan(args, stderr)
	if err != nil {
		return err
	}
	opts := c.options()
	res, err := scheduling.Solve(snap, opts)
	if err != nil {
		return err
	}
	out := newPlanOutput(res, set)
	out.NotPlanned = c.notPlanned
	out.Violations = planViolations(snap, opts, res)
	markEstimates(out, res, c.catalog)
	switch c.output {
	case "json":
		return writePlanJSON(stdout, out)
	case "yaml":
		return writePlanYAML(stdout, res, set, c.notPlanned, out.Violations)
	default:
		return writePlanTable(stdout, out, set)
	}
}

// loadPlan reads plan's flags and input (its warnings go to stderr): what Solve takes.
func loadPlan(args []string, stderr io.Writer) (*commonFlags, *manifest.Set, *cluster.Snapshot, error) {
	c, err := parseFlags("plan", args, stderr, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	set, snap, err := c.load()
	if err != nil {
		return nil, nil, nil, err
	}
	writeWarnings(stderr, set)
	return c, set, snap, nil
}
