package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/htmlpage"
	"github.com/nodeplan/nodeplan/simulate"
)

// simulateOutput is the JSON contract of `nodeplan simulate -o json` (see DESIGN.md).
type simulateOutput struct {
	// Start is when the run began and where that time came from (as disrupt's now); End is
	// Start plus the timeline's duration.
	Start    judgedAt  `json:"start"`
	End      time.Time `json:"end"`
	Timeline string    `json:"timeline"`
	runOutput
	// Variant is the --variant or --variant-flags run, with the difference to this one.
	Variant *variantOutput `json:"variant,omitempty"`
}

type runOutput struct {
	Series []pointOutput `json:"series"`
	Totals totalsOutput  `json:"totals"`
}

type pointOutput struct {
	Time         time.Time     `json:"time"`
	PricePerHour float64       `json:"pricePerHour"`
	Nodes        int           `json:"nodes"`
	PendingPods  int           `json:"pendingPods"`
	Events       []eventOutput `json:"events,omitempty"`
}

// eventOutput is simulate.Event: kind and the fields its kind sets.
type eventOutput struct {
	Kind       string   `json:"kind"`
	Action     string   `json:"action,omitempty"`
	Source     string   `json:"source,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Method     string   `json:"method,omitempty"`
	NodePool   string   `json:"nodePool,omitempty"`
	Nodes      []string `json:"nodes,omitempty"`
	NodeClaims []string `json:"nodeClaims,omitempty"`
	Offerings  []string `json:"offerings,omitempty"`
	Pods       int      `json:"pods,omitempty"`
	Detail     string   `json:"detail,omitempty"`
}

type totalsOutput struct {
	// Cost is the USD spent (the integral of pricePerHour), NodeHours the integral of nodes.
	Cost          float64 `json:"cost"`
	NodeHours     float64 `json:"nodeHours"`
	PeakNodes     int     `json:"peakNodes"`
	Launched      int     `json:"launched"`
	LaunchRefused int     `json:"launchRefused"`
	// Evictions are pods drains evicted; Deleted pods deleted without eviction (a deadline,
	// an interrupted instance's end).
	Evictions int `json:"evictions"`
	Deleted   int `json:"deleted"`
	// Disruptions are the nodes disrupted, by reason.
	Disruptions map[string]int `json:"disruptions"`
	// MaxPendingSeconds is each workload's longest wait from pending to running.
	MaxPendingSeconds map[string]float64 `json:"maxPendingSeconds"`
	Unpriced          []string           `json:"unpriced,omitempty"`
}

type variantOutput struct {
	// File is --variant's, Flags --variant-flags' ("" without).
	File  string `json:"file"`
	Flags string `json:"flags,omitempty"`
	// Changes say how the variant's NodePools and engine options differ from the input's.
	Changes []string `json:"changes"`
	runOutput
	// Difference is the variant's totals less this run's.
	Difference differenceOutput `json:"difference"`
	// Summary says it in a sentence.
	Summary string `json:"summary"`
}

type differenceOutput struct {
	Cost        float64        `json:"cost"`
	NodeHours   float64        `json:"nodeHours"`
	PeakNodes   int            `json:"peakNodes"`
	Evictions   int            `json:"evictions"`
	Deleted     int            `json:"deleted"`
	Disruptions map[string]int `json:"disruptions"`
}

func newSimulateOutput(r *simulateRun, base, variant *simulate.Trace) *simulateOutput {
	out := &simulateOutput{Start: r.at, End: base.End.UTC(), Timeline: r.flags.timeline, runOutput: newRunOutput(base)}
	if variant != nil {
		v := &variantOutput{File: r.variant.file, Flags: r.variant.flags, Changes: r.variant.changes, runOutput: newRunOutput(variant)}
		a, b := out.Totals, v.Totals
		v.Difference = differenceOutput{Cost: roundCents(b.Cost - a.Cost), NodeHours: roundHours(b.NodeHours - a.NodeHours),
			PeakNodes: b.PeakNodes - a.PeakNodes, Evictions: b.Evictions - a.Evictions, Deleted: b.Deleted - a.Deleted,
			Disruptions: map[string]int{}}
		for _, reason := range unionKeys(a.Disruptions, b.Disruptions) {
			if d := b.Disruptions[reason] - a.Disruptions[reason]; d != 0 {
				v.Difference.Disruptions[reason] = d
			}
		}
		v.Summary = variantSummary(v)
		out.Variant = v
	}
	return out
}

// unionKeys are the keys of the maps, sorted, each once.
func unionKeys[V any](ms ...map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func roundCents(x float64) float64 { return math.Round(x*100) / 100 }
func roundHours(x float64) float64 { return math.Round(x*1000) / 1000 }

func newRunOutput(tr *simulate.Trace) runOutput {
	out := runOutput{Series: make([]pointOutput, 0, len(tr.Series))}
	for _, p := range tr.Series {
		po := pointOutput{Time: p.Time.UTC(), PricePerHour: roundPrice(p.PricePerHour), Nodes: p.Nodes, PendingPods: p.PendingPods}
		for _, e := range p.Events {
			po.Events = append(po.Events, eventOutput{Kind: string(e.Kind), Action: e.Action, Source: e.Source, Reason: e.Reason,
				Method: e.Method, NodePool: e.NodePool, Nodes: e.Nodes, NodeClaims: e.NodeClaims, Offerings: e.Offerings, Pods: e.Pods, Detail: e.Detail})
		}
		out.Series = append(out.Series, po)
	}
	t := tr.Totals
	out.Totals = totalsOutput{Cost: roundCents(t.Cost), NodeHours: roundHours(t.NodeHours), PeakNodes: t.PeakNodes,
		Launched: t.Launched, LaunchRefused: t.LaunchRefused, Evictions: t.Evictions, Deleted: t.Deleted,
		Disruptions: t.Disruptions, MaxPendingSeconds: t.MaxPendingSeconds, Unpriced: t.Unpriced}
	return out
}

// variantSummary is the difference in a sentence: "NodePool default: consolidateAfter 5m
// instead of 30s: $12.34 less, 56 more evictions".
func variantSummary(v *variantOutput) string {
	d := v.Difference
	var parts []string
	switch {
	case d.Cost < 0:
		parts = append(parts, fmt.Sprintf("$%.2f less", -d.Cost))
	case d.Cost > 0:
		parts = append(parts, fmt.Sprintf("$%.2f more", d.Cost))
	default:
		parts = append(parts, "the same cost")
	}
	switch {
	case d.Evictions < 0:
		parts = append(parts, fmt.Sprintf("%d fewer evictions", -d.Evictions))
	case d.Evictions > 0:
		parts = append(parts, fmt.Sprintf("%d more evictions", d.Evictions))
	default:
		parts = append(parts, "as many evictions")
	}
	if d.PeakNodes != 0 {
		parts = append(parts, fmt.Sprintf("peak %+d nodes", d.PeakNodes))
	}
	return strings.Join(v.Changes, "; ") + ": " + strings.Join(parts, ", ")
}

// nodePoolChanges lists how b's spec differs from a's, field by field ("disruption.consolidateAfter
// 5m instead of 30s"), in field order.
func nodePoolChanges(a, b *v1.NodePool) []string {
	fa, fb := flatten(a.Spec), flatten(b.Spec)
	var out []string
	for _, k := range unionKeys(fa, fb) {
		if fa[k] == fb[k] {
			continue
		}
		switch was, is := fa[k], fb[k]; {
		case was == "":
			out = append(out, fmt.Sprintf("%s %s (was unset)", k, is))
		case is == "":
			out = append(out, fmt.Sprintf("%s unset (was %s)", k, was))
		default:
			out = append(out, fmt.Sprintf("%s %s instead of %s", k, is, was))
		}
	}
	return out
}

// flatten is v as JSON, leaf by leaf: dotted paths (list items by index) to their JSON text.
func flatten(v any) map[string]string {
	out := map[string]string{}
	data, err := json.Marshal(v)
	if err != nil {
		return out
	}
	var tree any
	if json.Unmarshal(data, &tree) != nil {
		return out
	}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, c := range t {
				walk(joinPath(prefix, k), c)
			}
		case []any:
			for i, c := range t {
				walk(fmt.Sprintf("%s[%d]", prefix, i), c)
			}
		case string:
			out[prefix] = t
		default:
			b, _ := json.Marshal(t)
			out[prefix] = string(b)
		}
	}
	walk("", tree)
	return out
}

func joinPath(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// startedAt says when the run started and where that time came from ("2026-01-01T00:00:00Z
// (--now)").
func startedAt(at judgedAt) string { return strings.TrimPrefix(at.String(), "judged at ") }

// writeSimulateTable prints the totals (side by side with the variant's) and each
// workload's longest wait.
func writeSimulateTable(w io.Writer, out *simulateOutput) error {
	fmt.Fprintf(w, "Simulated %s: %v from %s to %s\n\n", out.Timeline, out.End.Sub(out.Start.Time), startedAt(out.Start), rfc3339(out.End))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	runs := []runOutput{out.runOutput}
	header := "TOTAL\tRUN"
	if out.Variant != nil {
		runs = append(runs, out.Variant.runOutput)
		header = "TOTAL\tRUN\tVARIANT\tDIFFERENCE"
	}
	fmt.Fprintln(tw, header)
	row := func(name string, value func(totalsOutput) float64, format string, diffFormat string) {
		cells := []string{name}
		for _, r := range runs {
			cells = append(cells, fmt.Sprintf(format, value(r.Totals)))
		}
		if out.Variant != nil {
			cells = append(cells, fmt.Sprintf(diffFormat, value(runs[1].Totals)-value(runs[0].Totals)))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("USD spent", func(t totalsOutput) float64 { return t.Cost }, "$%.2f", "%+.2f")
	row("node-hours", func(t totalsOutput) float64 { return t.NodeHours }, "%.1f", "%+.1f")
	row("peak nodes", func(t totalsOutput) float64 { return float64(t.PeakNodes) }, "%.0f", "%+.0f")
	row("NodeClaims launched", func(t totalsOutput) float64 { return float64(t.Launched) }, "%.0f", "%+.0f")
	row("launches refused", func(t totalsOutput) float64 { return float64(t.LaunchRefused) }, "%.0f", "%+.0f")
	row("pods evicted", func(t totalsOutput) float64 { return float64(t.Evictions) }, "%.0f", "%+.0f")
	row("pods deleted", func(t totalsOutput) float64 { return float64(t.Deleted) }, "%.0f", "%+.0f")
	var disruptions []map[string]int
	for _, r := range runs {
		disruptions = append(disruptions, r.Totals.Disruptions)
	}
	for _, reason := range unionKeys(disruptions...) {
		row("nodes disrupted: "+reason, func(t totalsOutput) float64 { return float64(t.Disruptions[reason]) }, "%.0f", "%+.0f")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if out.Variant != nil {
		fmt.Fprintf(w, "\nvariant %s: %s\n", strings.TrimSpace(out.Variant.File+" "+out.Variant.Flags), out.Variant.Summary)
	}
	fmt.Fprintln(w, "\nlongest wait from pending to running, by workload:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if out.Variant != nil {
		fmt.Fprintln(tw, "WORKLOAD\tRUN\tVARIANT")
	} else {
		fmt.Fprintln(tw, "WORKLOAD\tSECONDS")
	}
	for _, wl := range waitedWorkloads(runs) {
		cells := []string{wl}
		for _, r := range runs {
			if s, ok := r.Totals.MaxPendingSeconds[wl]; ok {
				cells = append(cells, fmt.Sprintf("%.0f", s))
			} else {
				cells = append(cells, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range runs {
		if len(r.Totals.Unpriced) > 0 {
			fmt.Fprintf(w, "\nnot priced (their instance type or offering is unknown to their NodePool): %s\n", strings.Join(r.Totals.Unpriced, ", "))
			break
		}
	}
	return nil
}

// waitedWorkloads are the workloads of the runs' MaxPendingSeconds, sorted.
func waitedWorkloads(runs []runOutput) []string {
	var waits []map[string]float64
	for _, r := range runs {
		waits = append(waits, r.Totals.MaxPendingSeconds)
	}
	return unionKeys(waits...)
}

// writeSimulateHTML is one self-contained page: the totals, and the price, nodes and waiting
// pods over time (the variant's curves beside the run's).
func writeSimulateHTML(w io.Writer, out *simulateOutput) error {
	p := htmlpage.New("nodeplan simulate " + out.Timeline)
	p.Heading(1, "Simulated "+out.Timeline)
	p.Paragraph("muted", fmt.Sprintf("%v from %s to %s.", out.End.Sub(out.Start.Time), startedAt(out.Start), rfc3339(out.End)))
	header := []string{"total", "run"}
	runs := []runOutput{out.runOutput}
	names := []string{"run"}
	if out.Variant != nil {
		header = append(header, "variant", "difference")
		runs = append(runs, out.Variant.runOutput)
		names = append(names, "variant")
		p.Paragraph("note", "Variant "+out.Variant.File+": "+out.Variant.Summary+".")
	}
	var rows [][]string
	add := func(name string, value func(totalsOutput) float64, format, diff string) {
		r := []string{name}
		for _, run := range runs {
			r = append(r, fmt.Sprintf(format, value(run.Totals)))
		}
		if len(runs) > 1 {
			r = append(r, fmt.Sprintf(diff, value(runs[1].Totals)-value(runs[0].Totals)))
		}
		rows = append(rows, r)
	}
	add("USD spent", func(t totalsOutput) float64 { return t.Cost }, "$%.2f", "%+.2f")
	add("node-hours", func(t totalsOutput) float64 { return t.NodeHours }, "%.1f", "%+.1f")
	add("peak nodes", func(t totalsOutput) float64 { return float64(t.PeakNodes) }, "%.0f", "%+.0f")
	add("pods evicted", func(t totalsOutput) float64 { return float64(t.Evictions) }, "%.0f", "%+.0f")
	add("pods deleted", func(t totalsOutput) float64 { return float64(t.Deleted) }, "%.0f", "%+.0f")
	numeric := []int{1, 2, 3}
	p.Table(header, rows, numeric[:len(header)-1]...)
	start := out.Start.Time
	for _, c := range []struct {
		title, label string
		value        func(pointOutput) float64
	}{
		{"Price per hour", "$/hour", func(pt pointOutput) float64 { return pt.PricePerHour }},
		{"Nodes", "nodes", func(pt pointOutput) float64 { return float64(pt.Nodes) }},
		{"Pods waiting for a node", "pods", func(pt pointOutput) float64 { return float64(pt.PendingPods) }},
	} {
		chart := htmlpage.LineChart{Width: 1000, XLabel: "hours from the start", YLabel: c.label}
		for i, run := range runs {
			chart.Series = append(chart.Series, stepSeries(names[i], start, out.End, run.Series, c.value))
		}
		p.Heading(2, c.title)
		p.Figure(chart.SVG(), "")
	}
	p.Heading(2, "Longest wait from pending to running")
	var waits [][]string
	for _, wl := range waitedWorkloads(runs) {
		r := []string{wl}
		for _, run := range runs {
			r = append(r, fmt.Sprintf("%.0f s", run.Totals.MaxPendingSeconds[wl]))
		}
		waits = append(waits, r)
	}
	p.Table(append([]string{"workload"}, names...), waits, numeric[:len(names)]...)
	_, err := p.WriteTo(w)
	return err
}

// stepSeries is a run's value over time as a step curve (each value holds until the next
// point), x in hours from start.
func stepSeries(name string, start, end time.Time, points []pointOutput, value func(pointOutput) float64) htmlpage.Series {
	s := htmlpage.Series{Name: name}
	last := 0.0
	for i, pt := range points {
		x := pt.Time.Sub(start).Hours()
		if i > 0 {
			s.X, s.Y = append(s.X, x), append(s.Y, last)
		}
		last = value(pt)
		s.X, s.Y = append(s.X, x), append(s.Y, last)
	}
	if len(points) > 0 {
		s.X, s.Y = append(s.X, end.Sub(start).Hours()), append(s.Y, last)
	}
	return s
}
