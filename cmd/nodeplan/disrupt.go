package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
)

// disruptFlags are `nodeplan disrupt`'s flags.
type disruptFlags struct {
	commonFlags
	now                    string
	spotToSpot, nodeRepair bool
	repack                 bool
}

func (d *disruptFlags) register(fs *pflag.FlagSet) {
	d.commonFlags.register(fs)
	fs.StringVar(&d.now, "now", "", "`TIME` to decide at, RFC3339 (default: the newest timestamp in the input: Node heartbeats, Lease renewals, pod starts, creation times)")
	fs.BoolVar(&d.spotToSpot, "spot-to-spot", false, "allow spot-to-spot consolidation (Karpenter's SpotToSpotConsolidation feature gate)")
	fs.BoolVar(&d.nodeRepair, "node-repair", false, "repair nodes unhealthy past the AWS provider's repair policies (Karpenter's NodeRepair feature gate)")
	fs.BoolVar(&d.repack, "repack", false, "also consolidation moves Karpenter cannot make: one node by several cheaper NodeClaims (split), several nodes by a cheaper set (repack)")
}

func newDisruptCommand(stdout, stderr io.Writer) *cobra.Command {
	d := &disruptFlags{commonFlags: commonFlags{stderr: stderr}}
	cmd := &cobra.Command{
		Use:   "disrupt -f PATH... [--now RFC3339] [flags]",
		Short: "The nodes Karpenter would interrupt, repair, expire, replace or consolidate now",
		Long: `disrupt reads a cluster (NodePools, EC2NodeClasses, NodeClaims, Nodes, pods, PDBs, interruption
messages) and prints the commands Karpenter's disruption controller would start at one time:
interruption, node repair, expiration, drift and consolidation, with their replacements, the
savings, where each displaced pod goes, every node's drain plan and why each other node stays.
Without --now the time is the newest timestamp in the input (Node heartbeats, Lease renewals,
pod start times), never the wall clock: the same files always give the same answer.`,
		Example: `  nodeplan disrupt -f cluster.yaml
  nodeplan disrupt -f cluster.yaml --now 2026-01-01T06:00:00Z -o json
  # with Karpenter's NodeRepair and SpotToSpotConsolidation feature gates on
  nodeplan disrupt -f cluster.yaml --node-repair --spot-to-spot
  # consolidation beyond Karpenter's moves (1->N split, m->n repack)
  nodeplan disrupt -f cluster.yaml --repack`,
		Args: noArguments,
		RunE: func(*cobra.Command, []string) error {
			return d.profiled(func() error { return runDisrupt(d, stdout, stderr) })
		},
	}
	d.register(cmd.Flags())
	return cmd
}

// runDisrupt is `nodeplan disrupt`. Without --now the time is the newest timestamp of the
// input (never the wall clock), so the same files always give the same answer; every output
// says which time it judged at and where it came from.
func runDisrupt(d *disruptFlags, stdout, stderr io.Writer) error {
	in, err := d.read(stderr)
	if err != nil {
		return err
	}
	c, set, snap, at := in.flags, in.set, in.snap, in.at
	prog := newProgress(stderr)
	pods := len(snap.Pending())
	for _, n := range snap.Nodes() {
		pods += len(n.Pods)
	}
	prog.step(pods, "deciding on %d nodes and %d pods at %s", len(snap.Nodes()), pods, rfc3339(at.Time))
	res, err := disruption.Plan(snap, at.Time, in.opts)
	prog.done()
	if err != nil {
		return err
	}
	prices, err := disruption.PricesOf(snap, res, in.opts)
	if err != nil {
		return err
	}
	switch c.output {
	case "json":
		out := newDisruptOutput(res, c.newOptionSets())
		out.Now = at
		out.NotPlanned = c.notPlanned
		out.PricePerHourNow, out.PricePerHourAfter, out.LowerBoundPerHour = roundPrice(prices.Now), roundPrice(prices.After), roundPrice(prices.LowerBound)
		markDisruptEstimates(out, res, snap, c.catalog)
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	case "html":
		if err := writeDisruptHTML(stdout, in, res, prices); err != nil {
			return err
		}
	case "yaml":
		fmt.Fprintf(stdout, "# nodeplan disrupt %s\n", at)
		if at.Warning != "" {
			fmt.Fprintf(stdout, "# warning: %s\n", at.Warning)
		}
		fmt.Fprintf(stdout, "# %s\n", pricesLine(prices))
		if err := writeDisruptYAML(stdout, res, set, c.notPlanned); err != nil {
			return err
		}
		if err := writeDrainsYAML(stdout, res); err != nil {
			return err
		}
	default:
		fmt.Fprintf(stdout, "%s\n\n", capitalize(at.String()))
		if err := writeDisruptTable(stdout, res, snap, set, c, prices); err != nil {
			return err
		}
		if est := newDisruptOutput(res, nil); markDisruptEstimates(est, res, snap, c.catalog) {
			fmt.Fprintln(stdout, "\n"+estimateNote)
		}
		writeNotPlanned(stdout, c.notPlanned)
	}
	return c.failOn(len(disruptPodErrors(res)))
}

// disruptRun is a read `nodeplan disrupt` command line: what Plan takes, and the rest the
// output needs.
type disruptRun struct {
	flags *disruptFlags
	set   *manifest.Set
	snap  *cluster.Snapshot
	at    judgedAt
	opts  disruption.Options
}

// loadDisrupt reads a disrupt command line's flags and input (its warnings go to stderr) and
// the time to judge at.
func loadDisrupt(args []string, stderr io.Writer) (*disruptRun, error) {
	d := &disruptFlags{commonFlags: commonFlags{stderr: stderr}}
	if err := parseFlags("disrupt", args, d.register); err != nil {
		return nil, err
	}
	return d.read(stderr)
}

// read checks the flags, reads the input (its warnings go to stderr) and the time to judge
// at.
func (d *disruptFlags) read(stderr io.Writer) (*disruptRun, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	at, err := parseNowFlag(d.now)
	if err != nil {
		return nil, err
	}
	if d.nodeRepair {
		d.repairPolicies = catalog.RepairPolicies()
	}
	set, snap, err := d.commonFlags.read(stderr)
	if err != nil {
		return nil, err
	}
	at = at.orInput(set, stderr)
	opts := d.disruptionOptions(d.spotToSpot)
	opts.Repack = d.repack
	return &disruptRun{flags: d, set: set, snap: snap, at: at, opts: opts}, nil
}

// disruptionOptions are Plan's options the flags choose.
func (c *commonFlags) disruptionOptions(spotToSpot bool) disruption.Options {
	return disruption.Options{Scheduling: c.options(), SpotToSpotConsolidation: spotToSpot}
}

// disruptOutput is the JSON contract of `nodeplan disrupt -o json` (see DESIGN.md).
type disruptOutput struct {
	// InstanceTypeOptionSets are the distinct instance-type option lists of the provisioned
	// and replacement claims, each once (--option-sets, optionsets.go); nil without it.
	InstanceTypeOptionSets [][]string      `json:"instanceTypeOptionSets,omitempty"`
	Commands               []commandOutput `json:"commands"`
	Blocked                []blockedOutput `json:"blocked"`
	// Provisioned are the NodeClaims the provisioner launches first, for pending pods and
	// the pods of deleting and expired nodes.
	Provisioned []claimOutput `json:"provisioned"`
	// Now is the time judged at and where it came from.
	Now judgedAt `json:"now"`
	// NotPlanned are input pods that are neither pending nor bound to a node of the input.
	NotPlanned []notPlannedPod `json:"notPlanned"`
	// PendingPods say where the provisioner's pass puts each pending pod of the input
	// (disruption.Result.PendingPods): an existing node, a provisioned NodeClaim, or why
	// nowhere.
	PendingPods []moveOutput `json:"pendingPods"`
	// Interruptions and Drains: what each interruption event did, and the drain plan of
	// every node being deleted (mechanisms.go).
	Interruptions []interruptionOutput `json:"interruptions"`
	Drains        []drainOutput        `json:"drains"`
	// PriceEstimated is true when a price behind a command or claim is an estimate.
	PriceEstimated bool `json:"priceEstimated,omitempty"`
	// PricePerHourNow, PricePerHourAfter and LowerBoundPerHour are disruption.Prices: the
	// cluster now, once the commands (and the provisioned claims) are carried out, and the
	// least any plan of the same pods from scratch can cost.
	PricePerHourNow   float64 `json:"pricePerHourNow"`
	PricePerHourAfter float64 `json:"pricePerHourAfter"`
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
}

// pricesLine is the table's footer line (and -o yaml's comment) for disruption.Prices.
func pricesLine(p disruption.Prices) string {
	return fmt.Sprintf("$%.4f/hour now, $%.4f/hour after these commands; lower bound from scratch $%.4f/hour", p.Now, p.After, p.LowerBound)
}

type commandOutput struct {
	Method         string        `json:"method"`
	Reason         string        `json:"reason"`
	Candidates     []string      `json:"candidates"`
	Replacements   []claimOutput `json:"replacements"`
	SavingsPerHour float64       `json:"savingsPerHour"`
	// Destinations are the existing nodes the command's simulation sends pods to.
	Destinations []string `json:"destinations"`
	// Moves say where each pod the command displaces goes (disruption.PodMove).
	Moves []moveOutput `json:"moves"`
	// Detail is what triggered an interruption, repair or drift command.
	Detail string `json:"detail,omitempty"`
}

// moveOutput is one displaced pod and its destination: an existing node, a replacement of
// the command or a provisioned NodeClaim (0-based indexes; nodeClaim is its name), or why
// it has none.
type moveOutput struct {
	Pod         string `json:"pod"`
	From        string `json:"from,omitempty"` // "" for a pending pod
	Node        string `json:"node,omitempty"`
	Replacement *int   `json:"replacement,omitempty"`
	Provisioned *int   `json:"provisioned,omitempty"`
	NodeClaim   string `json:"nodeClaim,omitempty"`
	// Pending is the disruption.MoveCode; Code and Reason the pod error of an Unschedulable
	// pod.
	Pending string `json:"pending,omitempty"`
	Code    string `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// movesOutput are the moves of command number command.
func movesOutput(ms []disruption.PodMove, command int) []moveOutput {
	out := make([]moveOutput, 0, len(ms))
	for _, m := range ms {
		mo := moveOutput{Pod: podName(m.Pod), From: m.From, Node: m.To, Pending: string(m.Pending)}
		if m.Claim >= 0 {
			mo.Replacement = &m.Claim
		}
		if m.Provisioned >= 0 {
			mo.Provisioned = &m.Provisioned
		}
		if m.To == "" {
			mo.NodeClaim = moveClaim(m, command)
		}
		if m.Error != nil {
			mo.Code, mo.Reason = string(m.Error.Code), m.Error.Message()
		}
		out = append(out, mo)
	}
	return out
}

type blockedOutput struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
	// Blockers are every reason the node is kept, reason's first (disruption.BlockCode).
	Blockers []blockerOutput `json:"blockers"`
	// Drift is the node's drift reason when it drifted, ExpiresAt when its expireAfter ends.
	Drift     string `json:"drift,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
}

// blockerOutput is a disruption.Blocker: its code, object and, where its code has them, the
// facts behind it (see DESIGN.md); reason is its English.
type blockerOutput struct {
	Code   string `json:"code"`
	Object string `json:"object,omitempty"`
	Budget string `json:"budget,omitempty"`
	Drift  string `json:"drift,omitempty"`
	Pod    string `json:"pod,omitempty"`
	// Annotation is a do-not-disrupt value, At when it ends (or when consolidateAfter
	// elapses, or a node is repaired), Duration consolidateAfter or a repair toleration.
	Annotation string          `json:"annotation,omitempty"`
	PDBs       []string        `json:"pdbs,omitempty"`
	PodError   *podErrorOutput `json:"podError,omitempty"`
	Node       string          `json:"node,omitempty"`
	// Command is the command that nominated the node (Nominated; absent: the provisioner).
	Command  int    `json:"command,omitempty"`
	At       string `json:"at,omitempty"`
	Duration string `json:"duration,omitempty"`
	// Allowed, Nodes and Disrupting are a Budget's numbers; for RepairLimited the cap,
	// the nodes and Unhealthy of them.
	Allowed    *int   `json:"allowed,omitempty"`
	Nodes      *int   `json:"nodes,omitempty"`
	Disrupting *int   `json:"disrupting,omitempty"`
	Unhealthy  int    `json:"unhealthy,omitempty"`
	Detail     string `json:"detail,omitempty"`
	NodePool   string `json:"nodePool,omitempty"`
	Label      string `json:"label,omitempty"`
	NewNodes   int    `json:"newNodes,omitempty"`
	// Replacement is NoCheaperReplacement's disruption.ReplacementCode; Price the candidates'
	// $/hour, CheapestType and CheapestPrice the cheapest fit (NotCheaper).
	Replacement   string           `json:"replacement,omitempty"`
	Price         *float64         `json:"price,omitempty"`
	CheapestType  string           `json:"cheapestType,omitempty"`
	CheapestPrice *float64         `json:"cheapestPrice,omitempty"`
	InstanceTypes int              `json:"instanceTypes,omitempty"`
	Score         *float64         `json:"score,omitempty"`
	Condition     *conditionOutput `json:"condition,omitempty"`
	Reason        string           `json:"reason"`
}

// conditionOutput is an unhealthy node condition.
type conditionOutput struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Since  string `json:"since"`
}

func newBlockerOutput(b disruption.Blocker) blockerOutput {
	out := blockerOutput{Code: string(b.Code), Object: b.Object, Budget: b.Budget, Drift: b.Drift.String(), Pod: b.Pod, Annotation: b.Annotation,
		PDBs: b.PDBs, Node: b.Node, Command: b.Command, At: optTime(b.At), Unhealthy: b.Unhealthy, Detail: b.Detail, NodePool: b.NodePool, Label: b.Label,
		NewNodes: b.NewNodes, Replacement: string(b.Replacement), CheapestType: b.CheapestType, InstanceTypes: b.InstanceTypes, Reason: b.String(),
		PodError: optPodError(b.PodError)}
	if b.Duration != 0 {
		out.Duration = b.Duration.String()
	}
	switch b.Code {
	case disruption.BlockBudget:
		out.Allowed, out.Nodes, out.Disrupting = &b.Allowed, &b.Nodes, &b.Disrupting
	case disruption.BlockRepairLimited:
		out.Allowed, out.Nodes = &b.Allowed, &b.Nodes
	case disruption.BlockBalanced:
		score := roundPrice(b.Score)
		out.Score = &score
	case disruption.BlockNoCheaperReplacement:
		if b.Replacement == disruption.ReplacementNotCheaper {
			price := roundPrice(b.Price)
			out.Price = &price
			if b.CheapestType != "" {
				cheapest := roundPrice(b.CheapestPrice)
				out.CheapestPrice = &cheapest
			}
		}
	}
	if c := b.Condition; c != nil {
		out.Condition = &conditionOutput{Type: string(c.Type), Status: string(c.Status), Since: rfc3339(c.LastTransitionTime.Time)}
	}
	return out
}

func newDisruptOutput(res *disruption.Result, sets *optionSets) *disruptOutput {
	out := &disruptOutput{Commands: []commandOutput{}, Blocked: []blockedOutput{}, Provisioned: []claimOutput{},
		PendingPods: movesOutput(res.PendingPods, 0), Interruptions: interruptionsOutput(res), Drains: drainsOutput(res)}
	for i, c := range res.Provisioned {
		out.Provisioned = append(out.Provisioned, claimOutputOf(c, disruption.ProvisionedName(i+1), sets))
	}
	for ci, c := range res.Commands {
		co := commandOutput{Method: string(c.Method), Reason: string(c.Reason), Candidates: c.Candidates,
			Replacements: []claimOutput{}, SavingsPerHour: roundPrice(c.SavingsPerHour), Destinations: c.Destinations, Moves: movesOutput(c.Moves, ci+1), Detail: c.Detail()}
		if co.Destinations == nil {
			co.Destinations = []string{}
		}
		if co.Candidates == nil {
			co.Candidates = []string{}
		}
		for j, r := range c.Replacements {
			co.Replacements = append(co.Replacements, claimOutputOf(r, disruption.ReplacementName(ci+1, j+1), sets))
		}
		out.Commands = append(out.Commands, co)
	}
	out.InstanceTypeOptionSets = sets.all()
	for _, b := range res.Blocked {
		bo := blockedOutput{Node: b.Node, Reason: b.Message(), Blockers: []blockerOutput{}, Drift: b.Drift.String(), ExpiresAt: optTime(b.ExpiresAt)}
		for _, x := range b.Blockers {
			bo.Blockers = append(bo.Blockers, newBlockerOutput(x))
		}
		out.Blocked = append(out.Blocked, bo)
	}
	return out
}

// writeDisruptTable prints the commands, the cluster's $/hour now, after them and its lower
// bound, where their pods go, the node table (every node with what happens to it and the
// NodeClaims launched), the nodes kept and why, the pods that cannot be placed, interruptions
// and drains.
func writeDisruptTable(w io.Writer, res *disruption.Result, snap *cluster.Snapshot, set *manifest.Set, c *disruptFlags, prices disruption.Prices) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tMETHOD\tREASON\tCANDIDATES\tREPLACEMENTS\t$/HOUR SAVED")
	total := 0.0
	for i, c := range res.Commands {
		var repl []string
		for j, r := range c.Replacements {
			name := disruption.ReplacementName(i+1, j+1)
			if r.InstanceType != nil {
				name += " (" + r.InstanceType.Name + ")"
			}
			repl = append(repl, name)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.4f\n", i+1, c.Method, c.Reason, shortList(c.Candidates), orDash(strings.Join(repl, ",")), c.SavingsPerHour)
		total += c.SavingsPerHour
	}
	fmt.Fprintf(tw, "TOTAL\t%d commands\t\t\t\t%.4f\n", len(res.Commands), total)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, pricesLine(prices))
	writeMovesTable(w, res)
	fmt.Fprintln(w)
	rows := markPlaced(disruptRows(snap, res, c.catalog))
	lowerBound := roundPrice(prices.LowerBound)
	if err := writeNodeTable(w, rows, summarizeRows(rows, &lowerBound), "AFTER", c.output == "wide"); err != nil {
		return err
	}
	writeBlockedNodes(w, res, c.explain)
	writePodGroups(w, disruptPodErrors(res), set, c.explain)
	writeMechanismsTable(w, res)
	return nil
}

// writeMovesTable says, per command, where its displaced pods go (the first three, and how
// many more).
func writeMovesTable(w io.Writer, res *disruption.Result) {
	head := false
	for i, c := range res.Commands {
		if len(c.Moves) == 0 {
			continue
		}
		if !head {
			fmt.Fprintln(w, "\npods displaced by the commands:")
			head = true
		}
		var moves []string
		for _, m := range c.Moves {
			moves = append(moves, podName(m.Pod)+" -> "+moveTarget(m, i+1))
		}
		line := strings.Join(moves[:min(3, len(moves))], "; ")
		if len(moves) > 3 {
			line += fmt.Sprintf(" (+%d)", len(moves)-3)
		}
		fmt.Fprintf(w, "  command %d: %s\n", i+1, line)
	}
}

// moveTarget is a move of command number command's destination in the table's words.
func moveTarget(m disruption.PodMove, command int) string {
	switch {
	case m.To != "":
		return m.To
	case m.Claim >= 0 || m.Provisioned >= 0:
		return moveClaim(m, command)
	}
	return "pending (" + string(m.Pending) + ")"
}

// moveClaim is the name of the NodeClaim a move of command number command goes to, "" when
// it goes to none.
func moveClaim(m disruption.PodMove, command int) string {
	switch {
	case m.Claim >= 0:
		return disruption.ReplacementName(command, m.Claim+1)
	case m.Provisioned >= 0:
		return disruption.ProvisionedName(m.Provisioned + 1)
	}
	return ""
}

// shortList keeps table rows readable: the first three names and how many more.
func shortList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ",")
	}
	return fmt.Sprintf("%s (+%d)", strings.Join(names[:3], ","), len(names)-3)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
