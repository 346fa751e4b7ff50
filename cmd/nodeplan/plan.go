package main

import (
	"io"

	"github.com/nodeplan/nodeplan/scheduling"
)

func runPlan(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags("plan", args, nil)
	if err != nil {
		return err
	}
	c.stderr = stderr
	set, snap, err := c.load()
	if err != nil {
		return err
	}
	writeWarnings(stderr, set)
	res, err := scheduling.Solve(snap, c.options())
	if err != nil {
		return err
	}
	out := newPlanOutput(res, set)
	out.NotPlanned = c.notPlanned
	markEstimates(out, res, c.catalog)
	switch c.output {
	case "json":
		return writePlanJSON(stdout, out)
	case "yaml":
		return writePlanYAML(stdout, res, set, c.notPlanned)
	default:
		return writePlanTable(stdout, out, set)
	}
}
