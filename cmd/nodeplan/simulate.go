package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/bounded"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/simulate"
)

// simulateFlags are `nodeplan simulate`'s flags.
type simulateFlags struct {
	commonFlags
	now          string
	spotToSpot   bool
	repack       bool
	timeline     string
	variant      string
	variantFlags string
	capacity     []string
	noVerify     bool
	settings     simulate.Settings
}

func (f *simulateFlags) register(fs *pflag.FlagSet) {
	f.commonFlags.register(fs)
	d := simulate.DefaultSettings()
	f.settings = d
	fs.StringVar(&f.timeline, "timeline", "", "the Timeline `FILE` (apiVersion nodeplan.io/v1alpha1): the duration and what happens when")
	fs.StringVar(&f.variant, "variant", "", "a `FILE` of NodePools that replace those of the same name (or are added): the same timeline runs again with them, shown beside the first run with the difference")
	fs.StringVar(&f.now, "now", "", "`TIME` the simulation starts at, RFC3339 (default: the newest timestamp in the input, as disrupt)")
	fs.StringVar(&f.variantFlags, "variant-flags", "", "engine `FLAGS` the variant run takes instead of this run's (--packing, --repack, --spot-to-spot, --min-values-policy, --preference-policy), such as \"--repack\": the same timeline runs again with them, with --variant's NodePools when given")
	fs.BoolVar(&f.spotToSpot, "spot-to-spot", false, "allow spot-to-spot consolidation (Karpenter's SpotToSpotConsolidation feature gate)")
	fs.BoolVar(&f.repack, "repack", false, "also consolidation moves Karpenter cannot make, as disrupt --repack: one node by several cheaper NodeClaims (split), several nodes by a cheaper set (repack)")
	fs.StringArrayVar(&f.capacity, "capacity", nil, "`TYPE/ZONE/CAPACITY-TYPE=N`: at most N instances of that offering run at once; launches beyond fail with insufficient capacity (repeatable; default unlimited)")
	fs.BoolVar(&f.noVerify, "no-verify", false, "do not hold every Solve and Plan to the independent checker (faster)")
	fs.DurationVar(&f.settings.BatchIdle, "batch-idle", d.BatchIdle, "a provisioning batch closes after this long without a new pending pod (Karpenter's --batch-idle-duration)")
	fs.DurationVar(&f.settings.BatchMax, "batch-max", d.BatchMax, "a provisioning batch closes at the latest this long after it opened (Karpenter's --batch-max-duration)")
	fs.DurationVar(&f.settings.RegistrationLatency, "registration-latency", d.RegistrationLatency, "from a launch to its Node registering")
	fs.DurationVar(&f.settings.InitializationLatency, "initialization-latency", d.InitializationLatency, "from registration to the node being ready for pods")
	fs.DurationVar(&f.settings.DisruptionPeriod, "disruption-period", d.DisruptionPeriod, "how often the disruption controller looks (Karpenter's 10 s)")
	fs.DurationVar(&f.settings.ValidationDelay, "validation-delay", d.ValidationDelay, "how long a graceful command waits for its validation (Karpenter's 15 s)")
	fs.DurationVar(&f.settings.InterruptionWarning, "interruption-warning", d.InterruptionWarning, "from a spot interruption warning to the instance's end")
	fs.DurationVar(&f.settings.UnavailableFor, "unavailable-for", d.UnavailableFor, "how long an offering stays unavailable after a refused launch or an interruption (Karpenter's 3 min)")
	fs.DurationVar(&f.settings.TerminationLatency, "termination-latency", d.TerminationLatency, "from a node's drain finishing to its instance being gone (no longer billed)")
}

func newSimulateCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &simulateFlags{commonFlags: commonFlags{stderr: stderr}}
	cmd := &cobra.Command{
		Use:   "simulate -f PATH... --timeline FILE [--variant FILE] [--variant-flags FLAGS] [flags]",
		Short: "Karpenter's loops over a timeline: what a NodePool setting costs over a day, and how many pods it evicts",
		Long: `simulate runs Karpenter's provisioning and disruption loops, with Karpenter's timings, over
simulated time: the cluster of the input, then what the timeline says happens (scale a
Deployment, add or delete pods, spot interruptions, a NodePool changed mid-day). Every decision
is what plan and disrupt would answer at that moment, on the embedded catalog's (or
--instance-types') offerings in an in-memory cloud; --capacity limits an offering. It prints the
USD spent, node-hours, peak nodes, pods evicted, disruptions by reason and the longest time each
workload's pods waited; -o json adds the series over time, -o html draws it. --variant runs the
same timeline again with other NodePools and shows the difference; --variant-flags runs it
again with other packing options (--packing, --repack, --spot-to-spot, ...), with or without
--variant.

A timeline:
  apiVersion: nodeplan.io/v1alpha1
  kind: Timeline
  duration: 24h
  events:
  - {at: 8h, scale: {namespace: shop, name: web, replicas: 40}}
  - {at: 12h, interrupt: {instanceType: m5.large, fraction: 0.5}}
  - {at: 20h, deletePods: {namespace: shop, selector: {matchLabels: {app: batch}}}}
  - {at: 21h, addPods: {namespace: shop, owner: {kind: Deployment, name: web}, count: 5}}
  - {at: 22h, apply: {file: nodepools-v2.yaml}}`,
		Example: `  nodeplan simulate -f cluster.yaml --timeline day.yaml
  nodeplan simulate -f cluster.yaml --timeline day.yaml --variant consolidate-after-5m.yaml
  nodeplan simulate -f cluster.yaml --timeline day.yaml --variant-flags "--repack"
  nodeplan simulate -f cluster.yaml --timeline day.yaml -o html > day.html`,
		Args: noArguments,
		RunE: func(*cobra.Command, []string) error { return runSimulate(f, stdout, stderr) },
	}
	f.register(cmd.Flags())
	return cmd
}

// simulateRun is a read `nodeplan simulate` command line: the input of each run.
type simulateRun struct {
	flags   *simulateFlags
	at      judgedAt
	base    simulate.Input
	variant *variantRun
}

// variantRun is the variant run's input (--variant's NodePools, --variant-flags' options)
// and what it changed.
type variantRun struct {
	file, flags string
	input       simulate.Input
	changes     []string
}

// name is how the output names the variant: its file, its flags, or both.
func (v *variantRun) name() string {
	return strings.TrimSpace(v.file + " " + v.flags)
}

func runSimulate(f *simulateFlags, stdout, stderr io.Writer) error {
	r, err := f.read(stderr)
	if err != nil {
		return err
	}
	prog := newProgress(stderr)
	prog.step(len(r.base.Snapshot.Nodes()), "simulating %v of %d nodes", r.base.Timeline.Duration, len(r.base.Snapshot.Nodes()))
	base, err := simulate.Run(r.base)
	if err != nil {
		prog.done()
		return err
	}
	var variant *simulate.Trace
	if r.variant != nil {
		if variant, err = simulate.Run(r.variant.input); err != nil {
			prog.done()
			return fmt.Errorf("variant %s: %w", r.variant.name(), err)
		}
	}
	prog.done()
	out := newSimulateOutput(r, base, variant)
	switch f.output {
	case "json":
		return writeJSON(stdout, out)
	case "html":
		return writeSimulateHTML(stdout, out)
	}
	return writeSimulateTable(stdout, out)
}

// read checks the flags and reads the input, the timeline and the variant.
func (f *simulateFlags) read(stderr io.Writer) (*simulateRun, error) {
	if f.timeline == "" {
		return nil, errors.New("no timeline: give --timeline FILE")
	}
	switch f.output {
	case "table", "json", "html":
	default:
		return nil, fmt.Errorf("-o %q: simulate prints table, json or html", f.output)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	at, err := parseNowFlag(f.now)
	if err != nil {
		return nil, err
	}
	settings, err := f.simulationSettings()
	if err != nil {
		return nil, err
	}
	set, snap, err := f.commonFlags.read(stderr)
	if err != nil {
		return nil, err
	}
	at = at.orInput(set, stderr)
	data, err := f.readFile("--timeline", f.timeline)
	if err != nil {
		return nil, err
	}
	tl, err := simulate.ParseTimeline(data, f.timeline, func(name string) ([]byte, error) { return f.readFile(f.timeline, name) })
	if err != nil {
		return nil, err
	}
	r := &simulateRun{flags: f, at: at, base: simulate.Input{Snapshot: snap, Workloads: set.Workloads, Start: at.Time,
		Timeline: tl, Settings: settings, InstanceTypes: f.instanceTypesOf(set)}}
	if f.variant != "" || f.variantFlags != "" {
		if r.variant, err = f.readVariant(set, r.base); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readFile reads a file the command line or the timeline names, within --max-input-bytes.
func (f *simulateFlags) readFile(what, path string) ([]byte, error) {
	data, err := bounded.ReadFile(path, f.maxInputBytes, manifest.DefaultFIFOWait)
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%s: %s: %w (raise it with --max-input-bytes)", what, path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, path, unwrapPath(err))
	}
	return data, nil
}

// simulationSettings are the loops' timings and the engines' options the flags choose.
func (f *simulateFlags) simulationSettings() (simulate.Settings, error) {
	s := f.settings
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{
		{"--batch-idle", s.BatchIdle}, {"--batch-max", s.BatchMax}, {"--registration-latency", s.RegistrationLatency},
		{"--initialization-latency", s.InitializationLatency}, {"--disruption-period", s.DisruptionPeriod},
		{"--validation-delay", s.ValidationDelay}, {"--interruption-warning", s.InterruptionWarning},
		{"--unavailable-for", s.UnavailableFor}, {"--termination-latency", s.TerminationLatency},
	} {
		if d.value <= 0 {
			return s, fmt.Errorf("%s %v: want a positive duration", d.flag, d.value)
		}
	}
	for _, c := range f.capacity {
		key, n, ok := strings.Cut(c, "=")
		count, err := strconv.Atoi(n)
		if !ok || err != nil || count < 0 || strings.Count(key, "/") != 2 {
			return s, fmt.Errorf("--capacity %q: want TYPE/ZONE/CAPACITY-TYPE=N, such as m5.large/us-east-1a/spot=10", c)
		}
		if s.OfferingCapacity == nil {
			s.OfferingCapacity = map[string]int{}
		}
		s.OfferingCapacity[key] = count
	}
	s.Scheduling = f.options()
	s.Disruption = f.disruptionOptions(f.spotToSpot)
	s.Disruption.Repack = f.repack
	s.Verify = !f.noVerify
	return s, nil
}

// instanceTypesOf gives a NodePool a timeline applies its instance types, as the input's got
// theirs (its EC2NodeClass of set).
func (c *commonFlags) instanceTypesOf(set *manifest.Set) func(*v1.NodePool) (cloudprovider.InstanceTypes, error) {
	return func(np *v1.NodePool) (cloudprovider.InstanceTypes, error) {
		objs := cluster.Objects{NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{np.Name: nil}}
		if err := c.catalog.assign(&objs, set, c.warn); err != nil {
			return nil, err
		}
		return objs.InstanceTypes[np.Name], nil
	}
}

// readVariant reads --variant (NodePools only, each replacing the input's of its name or
// added) and --variant-flags: the variant run is the base run with them.
func (f *simulateFlags) readVariant(set *manifest.Set, base simulate.Input) (*variantRun, error) {
	v := &variantRun{file: f.variant, flags: f.variantFlags, input: base}
	if f.variant != "" {
		if err := f.readVariantNodePools(set, v); err != nil {
			return nil, err
		}
	}
	if f.variantFlags != "" {
		settings, changes, err := f.variantSettings(base.Settings)
		if err != nil {
			return nil, err
		}
		v.input.Settings = settings
		v.changes = append(v.changes, changes...)
	}
	return v, nil
}

// readVariantNodePools reads --variant's NodePools into v: its input's snapshot and instance
// types, and a change per NodePool.
func (f *simulateFlags) readVariantNodePools(set *manifest.Set, v *variantRun) error {
	data, err := f.readFile("--variant", f.variant)
	if err != nil {
		return err
	}
	vs, err := manifest.Parse(data, f.variant)
	if err != nil {
		return err
	}
	others := len(vs.Pods) + len(vs.Workloads) + len(vs.Nodes) + len(vs.NodeClaims) + len(vs.DaemonSets) + len(vs.PodDisruptionBudgets) +
		len(vs.PersistentVolumeClaims) + len(vs.PersistentVolumes) + len(vs.StorageClasses) + len(vs.CSINodes) + len(vs.Namespaces) +
		len(vs.Leases) + len(vs.NodeClasses) + len(vs.Interruptions) + vs.SkippedTotal()
	switch {
	case others > 0:
		return fmt.Errorf("--variant %s: only NodePools may differ in a variant (--variant-flags changes the packing options)", f.variant)
	case len(vs.NodePools) == 0:
		return fmt.Errorf("--variant %s: no NodePool in it", f.variant)
	}
	changed := *set
	changed.NodePools = append([]*v1.NodePool(nil), set.NodePools...)
	for _, np := range vs.NodePools {
		i := slices.IndexFunc(changed.NodePools, func(p *v1.NodePool) bool { return p.Name == np.Name })
		if i < 0 {
			changed.NodePools = append(changed.NodePools, np)
			v.changes = append(v.changes, fmt.Sprintf("NodePool %s added", np.Name))
			continue
		}
		diff := nodePoolChanges(changed.NodePools[i], np)
		if len(diff) == 0 {
			diff = []string{"unchanged"}
		}
		v.changes = append(v.changes, fmt.Sprintf("NodePool %s: %s", np.Name, strings.Join(diff, ", ")))
		changed.NodePools[i] = np
	}
	snap, err := f.snapshotOf(&changed)
	if err != nil {
		return fmt.Errorf("--variant %s: %w", f.variant, err)
	}
	v.input.Snapshot, v.input.InstanceTypes = snap, f.instanceTypesOf(&changed)
	return nil
}

// variantSettings are base with the engine options --variant-flags gives in place of this
// run's, and a change per flag it gives ("--repack true instead of false").
func (f *simulateFlags) variantSettings(base simulate.Settings) (simulate.Settings, []string, error) {
	vf := *f // the variant's flags start as this run's
	fs := pflag.NewFlagSet("--variant-flags", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&vf.packing, "packing", f.packing, "")
	fs.StringVar(&vf.minValuesPolicy, "min-values-policy", f.minValuesPolicy, "")
	fs.StringVar(&vf.preferencePolicy, "preference-policy", f.preferencePolicy, "")
	fs.BoolVar(&vf.repack, "repack", f.repack, "")
	fs.BoolVar(&vf.spotToSpot, "spot-to-spot", f.spotToSpot, "")
	const takes = "it takes --packing, --repack, --spot-to-spot, --min-values-policy and --preference-policy"
	if err := fs.Parse(strings.Fields(f.variantFlags)); err != nil {
		return base, nil, fmt.Errorf("--variant-flags %q: %w (%s)", f.variantFlags, err, takes)
	}
	if fs.NArg() > 0 {
		return base, nil, fmt.Errorf("--variant-flags %q: unexpected argument %q (%s)", f.variantFlags, fs.Arg(0), takes)
	}
	if err := vf.commonFlags.check(); err != nil {
		return base, nil, fmt.Errorf("--variant-flags: %w", err)
	}
	s := base
	s.Scheduling = vf.options()
	s.Disruption = vf.disruptionOptions(vf.spotToSpot)
	s.Disruption.Repack = vf.repack
	var changes []string
	fs.Visit(func(fl *pflag.Flag) {
		if was, is := fl.DefValue, fl.Value.String(); was != is {
			changes = append(changes, fmt.Sprintf("--%s %s instead of %s", fl.Name, is, was))
		} else {
			changes = append(changes, fmt.Sprintf("--%s %s unchanged", fl.Name, is))
		}
	})
	return s, changes, nil
}
