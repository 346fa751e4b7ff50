package main

import (
	"fmt"
	"io"

	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

func runPlan(args []string, stdout io.Writer) error {
	var c commonFlags
	fs := newFlagSet("plan")
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("plan: %v\n%s", err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("plan: unexpected argument %q (inputs go after -f)", fs.Arg(0))
	}
	if err := c.check(); err != nil {
		return err
	}
	set, err := manifest.Load(c.files...)
	if err != nil {
		return err
	}
	types, wellKnown, err := loadCatalog(c.instanceTypes)
	if err != nil {
		return err
	}
	in := snapshot(set, types, wellKnown)
	in.Options = c.options()
	res, err := scheduling.Solve(in)
	if err != nil {
		return err
	}
	out := newPlanOutput(res, set)
	switch c.output {
	case "json":
		return writePlanJSON(stdout, out)
	case "yaml":
		return writeNodeClaimYAML(stdout, res, set)
	default:
		return writePlanTable(stdout, out, set)
	}
}
