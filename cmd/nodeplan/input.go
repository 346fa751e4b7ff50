package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// commonFlags are the flags plan and disrupt share.
type commonFlags struct {
	files         []string
	instanceTypes string
	prices        string
	// Karpenter AWS controller settings for the embedded catalog.
	vmMemoryOverhead float64
	reservedENIs     int64
	output           string
	// stderr receives warnings; catalog is what load read the instance types from.
	stderr  io.Writer
	catalog *instanceCatalog
	// snapshot is the cluster load read; notPlanned are the input pods it left out, with why.
	snapshot *cluster.Snapshot
	// repairPolicies are the cloud's node repair policies the snapshot carries (disrupt
	// --node-repair).
	repairPolicies []cloudprovider.RepairPolicy
	notPlanned     []notPlannedPod
	// skipsInterruptions: the command plans without interruption messages (plan), so the
	// input's are counted with the skipped objects.
	skipsInterruptions bool
	// explain lists every cause of an unplaced pod and every blocker of a kept node;
	// failOnUnschedulable makes a pod not placed exit 3.
	explain, failOnUnschedulable bool
	// optionSets prints each distinct instance-type option list once (optionsets.go).
	optionSets bool
	// semantics
	packing          string
	minValuesPolicy  string
	preferencePolicy string
	limitFlags
	profileFlags
}

func (c *commonFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&c.files, "filename", "f", nil, "manifest `PATH`: a file, a folder, or - for stdin (repeatable)")
	fs.StringVar(&c.instanceTypes, "instance-types", "", "instance-type catalog `FILE` (default: the embedded EC2 catalog)")
	fs.StringVar(&c.prices, "prices", "", "spot prices for the embedded catalog: a `FILE` of the JSON 'aws ec2 describe-spot-price-history' prints (default: spot estimated at the on-demand price)")
	fs.Float64Var(&c.vmMemoryOverhead, "vm-memory-overhead-percent", ec2capacity.DefaultOptions.VMMemoryOverheadPercent, "share of each type's memory the hypervisor keeps, as Karpenter's --vm-memory-overhead-percent (embedded catalog)")
	fs.Int64Var(&c.reservedENIs, "reserved-enis", 0, "ENIs kept from pods (VPC CNI custom networking), as Karpenter's --reserved-enis (embedded catalog)")
	fs.StringVarP(&c.output, "output", "o", "table", "output `FORMAT`: table, wide (the table with the pods each node gets), json, yaml or html (one self-contained page with a picture of the nodes)")
	fs.BoolVar(&c.explain, "explain", false, "in the table, why each group of pods cannot be scheduled per NodePool and per node (the cause to fix first on top), and every reason a node is kept")
	fs.BoolVar(&c.optionSets, "option-sets", false, "in -o json, list each distinct instance-type option list once, in instanceTypeOptionSets, and name it by index in each claim (instanceTypeOptionSet) instead of listing instanceTypeOptions and the instance-type requirement's values per claim: 47 MB -> 3.6 MB at 20k pods")
	fs.BoolVar(&c.failOnUnschedulable, "fail-on-unschedulable", false, "exit with status 3 when a pod cannot be placed (for CI pipelines); the answer is printed all the same")
	fs.StringVar(&c.packing, "packing", string(scheduling.PackingCostAware), "CostAware (nodeplan's plan: never dearer than Karpenter's, every rule kept as launched) or Karpenter (Karpenter's own answer over its provisioning rounds, with the rules it breaks as launched)")
	fs.StringVar(&c.minValuesPolicy, "min-values-policy", string(scheduling.MinValuesStrict), "Strict or BestEffort, as Karpenter's --min-values-policy")
	fs.StringVar(&c.preferencePolicy, "preference-policy", string(scheduling.PreferencesRespect), "Respect or Ignore, as Karpenter's --preference-policy")
	c.limitFlags.register(fs)
	c.profileFlags.register(fs)
}

// options are the scheduling options the flags choose, and, once the catalog is read, the
// NodeClass kinds its cloud launches.
func (c *commonFlags) options() scheduling.Options {
	return scheduling.Options{
		Packing:          scheduling.Packing(c.packing),
		MinValuesPolicy:  scheduling.MinValuesPolicy(c.minValuesPolicy),
		PreferencePolicy: scheduling.PreferencePolicy(c.preferencePolicy),
		NodeClasses:      c.catalog.nodeClasses(),
	}
}

func (c *commonFlags) check() error {
	if len(c.files) == 0 {
		return errors.New("no input: give at least one -f PATH")
	}
	if c.vmMemoryOverhead < 0 || c.vmMemoryOverhead >= 1 || c.vmMemoryOverhead != c.vmMemoryOverhead {
		return fmt.Errorf("--vm-memory-overhead-percent %v: want a fraction in [0, 1), such as 0.075", c.vmMemoryOverhead)
	}
	if c.reservedENIs < 0 {
		return fmt.Errorf("--reserved-enis %d: want 0 or more", c.reservedENIs)
	}
	if err := c.limitFlags.check(); err != nil {
		return err
	}
	for _, f := range []struct {
		name, value string
		allowed     []string
	}{
		{"--packing", c.packing, []string{string(scheduling.PackingCostAware), string(scheduling.PackingKarpenter)}},
		{"--min-values-policy", c.minValuesPolicy, []string{string(scheduling.MinValuesStrict), string(scheduling.MinValuesBestEffort)}},
		{"--preference-policy", c.preferencePolicy, []string{string(scheduling.PreferencesRespect), string(scheduling.PreferencesIgnore)}},
	} {
		ok := false
		for _, a := range f.allowed {
			ok = ok || f.value == a
		}
		if !ok {
			return fmt.Errorf("%s %q: want %s", f.name, f.value, strings.Join(f.allowed, " or "))
		}
	}
	switch c.output {
	case "table", "wide", "json", "yaml", "html":
		return nil
	}
	return fmt.Errorf("-o %q: want table, wide, json, yaml or html", c.output)
}

// parseFlags parses a command's arguments as its cobra command does (register adds its
// flags), without running it: for the tests that read a command line again.
func parseFlags(command string, args []string, register func(*pflag.FlagSet)) error {
	cmd := &cobra.Command{Use: command}
	register(cmd.Flags())
	(&cobra.Command{Use: "nodeplan"}).AddCommand(cmd)
	fs := cmd.Flags()
	fs.SetOutput(io.Discard)
	if err := fs.Parse(normalizeFlags(cmd.Root(), append([]string{command}, args...))[1:]); err != nil {
		return fmt.Errorf("%s: %w", command, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (inputs go after -f)", command, fs.Arg(0))
	}
	return nil
}

// load reads the manifests and the catalog the flags name and builds the cluster snapshot
// from them, with the cloud's repair policies (set on c before, for disrupt).
func (c *commonFlags) load() (*manifest.Set, *cluster.Snapshot, error) {
	set, err := c.loadManifests(c.files)
	if err != nil {
		return nil, nil, err
	}
	ic, err := c.openCatalog(c.warn)
	if err != nil {
		return nil, nil, err
	}
	c.catalog = ic
	snap, err := c.snapshotOf(set)
	if err != nil {
		return nil, nil, err
	}
	c.snapshot, c.notPlanned = snap, notPlannedPods(snap)
	return set, snap, nil
}

// snapshotOf builds the cluster of set: each NodePool with the catalog's instance types (of
// its EC2NodeClass), the cloud's repair policies.
func (c *commonFlags) snapshotOf(set *manifest.Set) (*cluster.Snapshot, error) {
	objs := set.Objects
	objs.InstanceTypes = make(map[string]cloudprovider.InstanceTypes, len(set.NodePools))
	objs.WellKnownLabels = c.catalog.wellKnown
	for _, np := range set.NodePools {
		objs.InstanceTypes[np.Name] = nil // assign fills it in, unless the NodePool is not ready
	}
	objs.RepairPolicies = c.repairPolicies
	if err := c.catalog.assign(&objs, set, c.warn); err != nil {
		return nil, err
	}
	return cluster.New(objs)
}

// exitUnschedulable is the exit status of --fail-on-unschedulable when a pod is not placed.
const exitUnschedulable = 3

// failOn is the error that ends the command with exitUnschedulable, when asked for and
// unplaced pods are not placed, else nil.
func (c *commonFlags) failOn(unplaced int) error {
	if !c.failOnUnschedulable || unplaced == 0 {
		return nil
	}
	return &exitError{code: exitUnschedulable, msg: fmt.Sprintf("%d pods cannot be scheduled (--fail-on-unschedulable)", unplaced)}
}

// warn prints a warning on stderr.
func (c *commonFlags) warn(msg string) {
	if c.stderr != nil {
		fmt.Fprintln(c.stderr, "nodeplan: warning:", msg)
	}
}
