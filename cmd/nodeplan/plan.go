package main

import (
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/samber/lo"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// planFlags are `nodeplan plan`'s flags.
type planFlags struct {
	commonFlags
	// launched prints the launched cluster (-o yaml): NodeClaims as launched and their Nodes.
	launched bool
	now      string
}

// newPlanFlags are plan's flags before parsing: warnings go to stderr, and the input's
// interruption messages, which only disrupt reads, are reported as skipped.
func newPlanFlags(stderr io.Writer) *planFlags {
	return &planFlags{commonFlags: commonFlags{stderr: stderr, skipsInterruptions: true}}
}

func (p *planFlags) register(fs *pflag.FlagSet) {
	p.commonFlags.register(fs)
	fs.BoolVar(&p.launched, "launched", false, "with -o yaml: print the cluster once the plan launched, each NodeClaim as the cloud launched it and its Node, registered and initialized (feed it back to disrupt or simulate with the rest of the input)")
	fs.StringVar(&p.now, "now", "", "with --launched: `TIME` the nodes launched at, RFC3339 (default: the newest timestamp in the input)")
}

// planView is a solved plan and what its outputs read.
type planView struct {
	flags *planFlags
	set   *manifest.Set
	snap  *cluster.Snapshot
	res   *scheduling.Result
	out   *planOutput
}

func newPlanCommand(stdout, stderr io.Writer) *cobra.Command {
	p := newPlanFlags(stderr)
	cmd := &cobra.Command{
		Use:   "plan -f PATH... [flags]",
		Short: "The NodeClaims Karpenter would launch for the pending pods",
		Long: `plan reads NodePools, EC2NodeClasses, nodes, pods and workloads and prints the NodeClaims
Karpenter's provisioner would launch for the pending pods (instance type, zone, capacity type,
$/hour), the pending pods it would place on existing nodes, and why each other pod cannot be
scheduled. Pods already bound stay where they are.`,
		Example: `  # the bundled example: a general-purpose NodePool and a realistic workload
  nodeplan plan -f examples/
  # a live cluster's dump, machine-readable
  nodeplan plan -f cluster.yaml -o json
  # the NodeClaims as karpenter.sh/v1 manifests, then the Events Karpenter would record
  nodeplan plan -f cluster.yaml -o yaml
  # your own instance types, Karpenter's exact packing rule
  nodeplan plan -f pods/ -f nodepool.yaml --instance-types types.yaml --packing Karpenter`,
		Args: noArguments,
		RunE: func(*cobra.Command, []string) error {
			return p.profiled(func() error { return runPlan(p, stdout, stderr) })
		},
	}
	p.register(cmd.Flags())
	return cmd
}

func runPlan(p *planFlags, stdout, stderr io.Writer) error {
	if err := p.checkLaunched(); err != nil {
		return err
	}
	set, snap, err := p.read(stderr)
	if err != nil {
		return err
	}
	opts := p.options()
	prog := newProgress(stderr)
	prog.step(len(snap.Pending()), "planning %d pending pods against %d nodes", len(snap.Pending()), len(snap.Nodes()))
	cache := scheduling.NewCache() // the bound reads what Solve derived from the pods
	res, err := cache.Solve(snap, opts)
	prog.done()
	if err != nil {
		return err
	}
	out := newPlanOutput(res, set, p.newOptionSets())
	out.NotPlanned = p.notPlanned
	out.Violations = planViolations(snap, opts, res)
	markEstimates(out, res, p.catalog)
	bound, err := cache.LowerBound(snap.WithoutPods(unplacedPods(res)...), opts)
	if err != nil {
		return err
	}
	out.setBound(bound)
	switch p.output {
	case "json":
		err = writePlanJSON(stdout, out)
	case "yaml":
		if p.launched {
			err = writeLaunchedYAML(stdout, res, set, p.launchTime(set))
			break
		}
		err = writePlanYAML(stdout, out, res, set, p.notPlanned, out.Violations)
	case "html":
		err = writePlanHTML(stdout, planView{flags: p, set: set, snap: snap, res: res, out: out})
	default:
		err = writePlanTable(stdout, planView{flags: p, set: set, snap: snap, res: res, out: out})
	}
	if err != nil {
		return err
	}
	return p.failOn(len(res.PodErrors))
}

// unplacedPods are the pods a plan leaves unplaced (its lower bound is of the others).
func unplacedPods(res *scheduling.Result) []*corev1.Pod {
	return lo.Map(res.PodErrors, func(e scheduling.PodError, _ int) *corev1.Pod { return e.Pod })
}

// loadPlan reads a plan command line's flags and input (its warnings go to stderr): what
// Solve takes.
func loadPlan(args []string, stderr io.Writer) (*planFlags, *manifest.Set, *cluster.Snapshot, error) {
	p := newPlanFlags(stderr)
	if err := parseFlags("plan", args, p.register); err != nil {
		return nil, nil, nil, err
	}
	set, snap, err := p.read(stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, set, snap, nil
}

// read checks the flags, reads the input they name and prints its warnings on stderr.
func (c *commonFlags) read(stderr io.Writer) (*manifest.Set, *cluster.Snapshot, error) {
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	set, snap, err := c.load()
	if err != nil {
		return nil, nil, err
	}
	if c.skipsInterruptions && len(set.Interruptions) > 0 {
		set.Skipped[manifest.InterruptionKind] += len(set.Interruptions)
	}
	writeWarnings(stderr, set)
	return set, snap, nil
}
