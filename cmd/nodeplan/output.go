package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/samber/lo"
)

// planOutput is the JSON contract of `nodeplan plan -o json` (see DESIGN.md).
type planOutput struct {
	// InstanceTypeOptionSets are the distinct instance-type option lists of the claims, each
	// once (--option-sets, optionsets.go); nil without it.
	InstanceTypeOptionSets [][]string       `json:"instanceTypeOptionSets,omitempty"`
	NodeClaims             []claimOutput    `json:"nodeClaims"`
	ExistingNodes          []existingOutput `json:"existingNodes"`
	PodErrors              []podErrorOutput `json:"podErrors"`
	// NotPlanned are input pods that are neither pending nor bound to a node of the input.
	NotPlanned   []notPlannedPod `json:"notPlanned"`
	PricePerHour float64         `json:"pricePerHour"`
	// PriceEstimated is true when some claim's price is an estimate (see DESIGN.md).
	PriceEstimated bool           `json:"priceEstimated,omitempty"`
	Skipped        map[string]int `json:"skipped,omitempty"`
	// Violations are the rules a Karpenter-mode plan breaks as launched (violations.go).
	Violations []violationOutput `json:"violations,omitempty"`
	// LowerBoundPerHour is scheduling.LowerBound of the pods the plan places: no plan of them
	// costs less. Efficiency is it divided by PricePerHour (1 when the plan buys nothing).
	LowerBoundPerHour *float64 `json:"lowerBoundPerHour,omitempty"`
	Efficiency        *float64 `json:"efficiency,omitempty"`

	// claims makes the nodeClaims entries one at a time as they are printed (newPlanOutput
	// leaves NodeClaims nil): at 20k pods, 4,000 claims' option lists and requirements held
	// at once were a third of the live heap of plan -o json.
	claims *claimEntries
}

// claimEntries are the nodeClaims entries of a plan, made on demand.
type claimEntries struct {
	res       *scheduling.Result
	names     []string
	sets      *optionSets
	estimated []bool // whose price is an estimate (markEstimates)
	json      *claimJSON
}

// nodeClaimCount is how many nodeClaims entries the plan has.
func (out *planOutput) nodeClaimCount() int { return len(out.claims.names) }

// nodeClaimJSON is nodeClaims entry i as JSON (what encoding/json writes for nodeClaim(i)).
func (out *planOutput) nodeClaimJSON(i int) (rawJSON, error) {
	e := out.claims
	if e.json == nil {
		e.json = newClaimJSON(e.sets)
	}
	return e.json.entry(e.res.NewNodeClaims[i], e.names[i], e.estimated[i])
}

// rawJSON is an item writePlanJSON prints as it is.
type rawJSON []byte

// setBound records the lower bound of the plan's pods and the plan's efficiency.
func (out *planOutput) setBound(b *scheduling.Bound) {
	lb, eff := roundPrice(b.PerHour), math.Round(b.Efficiency(out.PricePerHour)*1e4)/1e4
	out.LowerBoundPerHour, out.Efficiency = &lb, &eff
}

// boundLine is the table's footer line for a lower bound.
func boundLine(lowerBound, efficiency float64) string {
	return fmt.Sprintf("lower bound $%.4f/hour: no plan of these pods costs less (efficiency %.2f)", lowerBound, efficiency)
}

type claimOutput struct {
	// Name is the claim's name in every output (names.go).
	Name           string  `json:"name"`
	NodePool       string  `json:"nodePool"`
	InstanceType   string  `json:"instanceType"`
	Zone           string  `json:"zone"`
	CapacityType   string  `json:"capacityType"`
	PricePerHour   float64 `json:"pricePerHour"`
	PriceEstimated bool    `json:"priceEstimated,omitempty"`
	// InstanceTypeOptions are the claim's instance-type options, cheapest first; with
	// --option-sets, InstanceTypeOptionSet is instead their index in the answer's
	// instanceTypeOptionSets.
	InstanceTypeOptions   []string            `json:"instanceTypeOptions,omitempty"`
	InstanceTypeOptionSet *int                `json:"instanceTypeOptionSet,omitempty"`
	Labels                map[string]string   `json:"labels"`
	Taints                []corev1.Taint      `json:"taints"`
	Requirements          []requirementOutput `json:"requirements"`
	Requests              corev1.ResourceList `json:"requests,omitempty"`
	Pods                  []string            `json:"pods"`
	// Round is the provisioning round that opened the NodeClaim (--packing Karpenter only).
	Round int `json:"round,omitempty"`
}

type existingOutput struct {
	Name string   `json:"name"`
	Pods []string `json:"pods"`
}

type podErrorOutput struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
	// Code, Causes, NodeCauses and Summary are scheduling.PodError's: the reason as data
	// (see DESIGN.md).
	Code       string        `json:"code"`
	Causes     []causeOutput `json:"causes"`
	NodeCauses []causeOutput `json:"nodeCauses"`
	Summary    summaryOutput `json:"summary"`
}

// causeOutput is a scheduling.Cause; reason is its English.
type causeOutput struct {
	Code          string `json:"code"`
	NodePool      string `json:"nodePool,omitempty"`
	Node          string `json:"node,omitempty"`
	Key           string `json:"key,omitempty"`
	Requirement   string `json:"requirement,omitempty"`
	Resource      string `json:"resource,omitempty"`
	Needed        string `json:"needed,omitempty"`
	Available     string `json:"available,omitempty"`
	Taint         string `json:"taint,omitempty"`
	Port          int32  `json:"port,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
	InstanceTypes int    `json:"instanceTypes,omitempty"`
	Unavailable   int    `json:"unavailable,omitempty"`
	Detail        string `json:"detail,omitempty"`
	Reason        string `json:"reason"`
}

type summaryOutput struct {
	Nodes     int           `json:"nodes"`
	NodePools int           `json:"nodePools"`
	Counts    []countOutput `json:"counts"`
}

// countOutput is a scheduling.CauseCount: the group's cause, flattened, and its counts;
// reason is the group's English with its count.
type countOutput struct {
	causeOutput
	Count     int `json:"count"`
	Nodes     int `json:"nodes"`
	NodePools int `json:"nodePools"`
}

func newPodErrorOutput(e scheduling.PodError) podErrorOutput {
	sum := e.Summary()
	out := podErrorOutput{Pod: podName(e.Pod), Reason: e.Message(), Code: string(e.Code), Causes: causeOutputs(e.Causes), NodeCauses: causeOutputs(e.NodeCauses),
		Summary: summaryOutput{Nodes: sum.Nodes, NodePools: sum.NodePools, Counts: make([]countOutput, len(sum.Counts))}}
	for i, g := range sum.Counts {
		out.Summary.Counts[i] = countOutput{causeOutput: newCauseOutput(g.Cause), Count: g.Count, Nodes: g.Nodes, NodePools: g.NodePools}
		out.Summary.Counts[i].Reason = g.String()
	}
	return out
}

// optPodError is the output of a pod error a blocker or drain may carry.
func optPodError(e *scheduling.PodError) *podErrorOutput {
	if e == nil {
		return nil
	}
	out := newPodErrorOutput(*e)
	return &out
}

func causeOutputs(cs []scheduling.Cause) []causeOutput {
	return lo.Map(cs, func(c scheduling.Cause, _ int) causeOutput { return newCauseOutput(c) })
}

func newCauseOutput(c scheduling.Cause) causeOutput {
	out := causeOutput{Code: string(c.Code), NodePool: c.NodePool, Node: c.Node, Key: c.Key, Requirement: c.Requirement, Resource: c.Resource,
		Port: c.Port, Protocol: string(c.Protocol), InstanceTypes: c.InstanceTypes, Unavailable: c.Unavailable, Detail: c.Detail, Reason: c.String()}
	if c.Needed != nil {
		out.Needed = c.Needed.String()
	}
	if c.Available != nil {
		out.Available = c.Available.String()
	}
	if c.Taint != nil {
		out.Taint = c.Taint.ToString()
	}
	return out
}

func podName(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func podNames(pods []*corev1.Pod) []string {
	return lo.Map(pods, func(p *corev1.Pod, _ int) string { return podName(p) })
}

// roundPrice keeps prices readable and stable in JSON (no 0.30000000000000004).
func roundPrice(p float64) float64 { return math.Round(p*1e6) / 1e6 }

func newPlanOutput(res *scheduling.Result, set *manifest.Set, sets *optionSets) *planOutput {
	out := &planOutput{
		ExistingNodes: []existingOutput{},
		PodErrors:     []podErrorOutput{},
		Skipped:       set.Skipped,
		claims: &claimEntries{res: res, names: planClaimNames(res), sets: sets,
			estimated: make([]bool, len(res.NewNodeClaims))},
	}
	total := 0.0
	for _, c := range res.NewNodeClaims {
		if sets != nil {
			sets.of(optionNames(c)) // every set is listed before the claims
		}
		if c.Offering != nil {
			total += c.Offering.Price
		}
	}
	for _, b := range res.Bindings { // sorted by node: one entry per node
		if n := len(out.ExistingNodes); n == 0 || out.ExistingNodes[n-1].Name != b.To {
			out.ExistingNodes = append(out.ExistingNodes, existingOutput{Name: b.To})
		}
		last := &out.ExistingNodes[len(out.ExistingNodes)-1]
		last.Pods = append(last.Pods, podName(b.Pod))
	}
	for _, e := range res.PodErrors {
		out.PodErrors = append(out.PodErrors, newPodErrorOutput(e))
	}
	out.PricePerHour = roundPrice(total)
	out.InstanceTypeOptionSets = sets.all()
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writePlanJSON prints the plan with one NodeClaim, node or pod error per line: readable,
// diffable, and much faster than indenting every instance-type option of every claim.
func writePlanJSON(w io.Writer, out *planOutput) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	// One buffer for every item: an Encoder writes what json.Marshal returns, and a newline.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	list := func(name string, n int, item func(i int) any, last bool) error {
		fmt.Fprintf(bw, "  %q: [", name)
		for i := 0; i < n; i++ {
			buf.Reset()
			switch v := item(i).(type) {
			case error:
				return v
			case rawJSON:
				buf.Write(v)
			default:
				if err := enc.Encode(v); err != nil {
					return err
				}
			}
			bw.WriteString("\n    ")
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if i < n-1 {
				bw.WriteString(",")
			}
		}
		if n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteString("]")
		if !last {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		return nil
	}
	bw.WriteString("{\n")
	if out.InstanceTypeOptionSets != nil {
		if err := list("instanceTypeOptionSets", len(out.InstanceTypeOptionSets), func(i int) any { return out.InstanceTypeOptionSets[i] }, false); err != nil {
			return err
		}
	}
	claim := func(i int) any {
		b, err := out.nodeClaimJSON(i)
		if err != nil {
			return err
		}
		return b
	}
	if err := list("nodeClaims", out.nodeClaimCount(), claim, false); err != nil {
		return err
	}
	if err := list("existingNodes", len(out.ExistingNodes), func(i int) any { return out.ExistingNodes[i] }, false); err != nil {
		return err
	}
	if err := list("podErrors", len(out.PodErrors), func(i int) any { return out.PodErrors[i] }, false); err != nil {
		return err
	}
	if err := list("notPlanned", len(out.NotPlanned), func(i int) any { return out.NotPlanned[i] }, false); err != nil {
		return err
	}
	if len(out.Violations) > 0 {
		if err := list("violations", len(out.Violations), func(i int) any { return out.Violations[i] }, false); err != nil {
			return err
		}
	}
	price, _ := json.Marshal(out.PricePerHour)
	fmt.Fprintf(bw, "  \"pricePerHour\": %s", price)
	if out.LowerBoundPerHour != nil {
		lb, _ := json.Marshal(*out.LowerBoundPerHour)
		eff, _ := json.Marshal(*out.Efficiency)
		fmt.Fprintf(bw, ",\n  \"lowerBoundPerHour\": %s,\n  \"efficiency\": %s", lb, eff)
	}
	if out.PriceEstimated {
		bw.WriteString(",\n  \"priceEstimated\": true")
	}
	if len(out.Skipped) > 0 {
		skipped, err := json.Marshal(out.Skipped)
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, ",\n  \"skipped\": %s", skipped)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writePlanTable prints the node table (existing nodes and the new NodeClaims), the pods that
// cannot be scheduled, grouped (with explain, every cause) and the pods not planned.
func writePlanTable(w io.Writer, v planView) error {
	rows := markPlaced(planRows(v.snap, v.res, v.flags.catalog))
	if err := writeNodeTable(w, rows, summarizeRows(rows, v.out.LowerBoundPerHour), "AFTER PLAN", v.flags.output == "wide"); err != nil {
		return err
	}
	if v.out.LowerBoundPerHour != nil {
		fmt.Fprintln(w, boundLine(*v.out.LowerBoundPerHour, *v.out.Efficiency))
	}
	if v.out.PriceEstimated || summarizeRows(rows, nil).After.Estimated {
		fmt.Fprintln(w, estimateNote)
	}
	writePodGroups(w, v.res.PodErrors, v.set, v.flags.explain)
	writeNotPlanned(w, v.out.NotPlanned)
	writeViolationsTable(w, v.out.Violations)
	return nil
}

// markPlaced says in the status of each existing node's row how many pending pods the plan
// places there.
func markPlaced(rows []nodeRow) []nodeRow {
	for i := range rows {
		if !rows[i].New && len(rows[i].PodNames) > 0 {
			rows[i].Status += fmt.Sprintf(" (+%d pods)", len(rows[i].PodNames))
		}
	}
	return rows
}

// writeNodeClaimYAML prints the new NodeClaims as karpenter.sh/v1 manifests named names, each
// after a comment saying what it would launch (and note, when given, what it is for).
func writeNodeClaimYAML(w io.Writer, res *scheduling.Result, set *manifest.Set, names []string, note func(i int) string) error {
	pools := map[string]*v1.NodePool{}
	for _, np := range set.NodePools {
		pools[np.Name] = np
	}
	for i, c := range res.NewNodeClaims {
		nc := scheduling.NodeClaimFor(c, names[i], pools[c.NodePool])
		b, err := yaml.Marshal(nc)
		if err != nil {
			return err
		}
		extra := ""
		if note != nil {
			extra = note(i) + ": "
		}
		fmt.Fprintf(w, "---\n# %s%s %s %s $%.4f/h, %d pods\n%s", extra, c.InstanceType.Name, c.Offering.Zone(), c.Offering.CapacityType(), c.Offering.Price, len(c.Pods), b)
	}
	return nil
}

// writePlanYAML prints the plan's NodeClaims and then, as a List of Events, where every pod
// goes or why it cannot be scheduled.
func writePlanYAML(w io.Writer, out *planOutput, res *scheduling.Result, set *manifest.Set, notPlanned []notPlannedPod, violations []violationOutput) error {
	if out.LowerBoundPerHour != nil {
		fmt.Fprintf(w, "# %s; this plan $%.4f/hour\n", boundLine(*out.LowerBoundPerHour, *out.Efficiency), out.PricePerHour)
	}
	if err := writeNodeClaimYAML(w, res, set, planClaimNames(res), nil); err != nil {
		return err
	}
	placed := 0
	for _, c := range res.NewNodeClaims {
		placed += len(c.Pods)
	}
	placed += len(res.Bindings)
	comment := fmt.Sprintf("the events Karpenter would record: %d pods nominated, %d cannot be scheduled, %d not planned", placed, len(res.PodErrors), len(notPlanned))
	if len(violations) > 0 {
		comment += fmt.Sprintf("; and %d rules Karpenter's plan breaks as launched (verify: ConstraintViolated)", len(violations))
	}
	events := append(planEvents(res, planClaimNames(res), set), notPlannedEvents(notPlanned)...)
	return writeEventList(w, comment, append(events, violationEvents(violations, res)...))
}

// writeDisruptYAML prints the NodeClaims the provisioner launches first and the replacements
// of every command and then, as a List of Events, where the provisioned claims' pods go,
// which nodes each command disrupts and why every other node stays.
func writeDisruptYAML(w io.Writer, res *disruption.Result, set *manifest.Set, notPlanned []notPlannedPod) error {
	all := &scheduling.Result{NewNodeClaims: append([]*scheduling.NodeClaim(nil), res.Provisioned...)}
	notes := make([]string, len(res.Provisioned))
	for i := range notes {
		notes[i] = "provisioned first"
	}
	for i, cmd := range res.Commands {
		all.NewNodeClaims = append(all.NewNodeClaims, cmd.Replacements...)
		for range cmd.Replacements {
			notes = append(notes, fmt.Sprintf("command-%d replacement", i+1))
		}
	}
	names := disruptClaimNames(res)
	if err := writeNodeClaimYAML(w, all, set, names, func(i int) string { return notes[i] }); err != nil {
		return err
	}
	provisioned := &scheduling.Result{NewNodeClaims: res.Provisioned}
	for _, m := range res.PendingPods {
		switch {
		case m.To != "":
			provisioned.Bindings = append(provisioned.Bindings, m.Move)
		case m.Error != nil:
			provisioned.PodErrors = append(provisioned.PodErrors, *m.Error)
		}
	}
	slices.SortStableFunc(provisioned.Bindings, func(a, b cluster.Move) int { return strings.Compare(a.To, b.To) })
	events := append(planEvents(provisioned, names[:len(res.Provisioned)], set), disruptEvents(res, names, set)...)
	events = append(events, notPlannedEvents(notPlanned)...)
	comment := fmt.Sprintf("the events Karpenter would record: %d NodeClaims provisioned first, %d commands, %d nodes not disrupted",
		len(res.Provisioned), len(res.Commands), len(res.Blocked))
	return writeEventList(w, comment, events)
}

// claimOutputOf renders a NodeClaim as the JSON contract's nodeClaims entry (lists are [] when
// empty, never null).
// Its instance-type options are listed in sets, once per answer, when sets is not nil.
func claimOutputOf(c *scheduling.NodeClaim, name string, sets *optionSets) claimOutput {
	options := optionNames(c)
	set := -1
	if sets != nil {
		set = sets.of(options)
	}
	co := claimBaseOf(c, name)
	co.Requirements = requirementsOutput(c, sets, set)
	if sets != nil {
		co.InstanceTypeOptionSet = &set
	} else {
		co.InstanceTypeOptions = options
	}
	return co
}

// claimBaseOf is claimOutputOf without the instance-type options and requirements.
func claimBaseOf(c *scheduling.NodeClaim, name string) claimOutput {
	co := claimOutput{
		Name:     name,
		NodePool: c.NodePool,
		Labels:   c.Labels,
		Taints:   c.Taints,
		Requests: c.Requests,
		Pods:     podNames(c.Pods),
		Round:    c.Round,
	}
	if c.InstanceType != nil {
		co.InstanceType = c.InstanceType.Name
	}
	if c.Offering != nil {
		co.Zone, co.CapacityType, co.PricePerHour = c.Offering.Zone(), c.Offering.CapacityType(), roundPrice(c.Offering.Price)
	}
	if co.Taints == nil {
		co.Taints = []corev1.Taint{}
	}
	if co.Labels == nil {
		co.Labels = map[string]string{}
	}
	return co
}

// optionNames are the names of c's instance-type options.
func optionNames(c *scheduling.NodeClaim) []string {
	options := make([]string, 0, len(c.InstanceTypeOptions))
	for _, it := range c.InstanceTypeOptions {
		options = append(options, it.Name)
	}
	return options
}

// writeWarnings prints what the input was read otherwise than written as (v1beta1 objects
// converted), one line each, and how many objects of kinds nodeplan does not read were
// skipped, so that the answer on stdout stays clean.
func writeWarnings(w io.Writer, set *manifest.Set) {
	for _, warning := range set.Warnings {
		fmt.Fprintln(w, "nodeplan: warning:", warning)
	}
	if n := set.SkippedTotal(); n > 0 {
		kinds := make([]string, 0, len(set.Skipped))
		for k, c := range set.Skipped {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "nodeplan: skipped %d objects of kinds nodeplan does not plan with (%s)\n", n, strings.Join(kinds, ", "))
	}
}
