package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tutorial are the arguments of the seed tutorial's simulation: the bundled general-purpose
// NodePool on the embedded catalog, an inflate Deployment and its day (../../tutorial).
func tutorial(extra ...string) []string {
	dir := filepath.Join("..", "..", "tutorial")
	return append([]string{"simulate", "-f", filepath.Join("..", "..", "examples", "general-purpose.yaml"),
		"-f", filepath.Join(dir, "inflate.yaml"), "--timeline", filepath.Join(dir, "day.yaml"), "--now", "2026-01-01T00:00:00Z"}, extra...)
}

func simulateJSON(t *testing.T, args ...string) simulateOutput {
	t.Helper()
	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var got simulateOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	return got
}

// integral is the series' price over time, in USD, up to end.
func integral(series []pointOutput, end time.Time) float64 {
	sum := 0.0
	for i, p := range series {
		until := end
		if i+1 < len(series) {
			until = series[i+1].Time
		}
		sum += p.PricePerHour * until.Sub(p.Time).Hours()
	}
	return sum
}

// The tutorial's day: pods scale up, nodes launch and run them, the pods go and Karpenter
// removes the nodes; the JSON has the series and the totals, the cost is the series'
// integral.
func TestSimulateJSON(t *testing.T) {
	got := simulateJSON(t, tutorial()...)
	assert.Equal(t, "flag", got.Start.Source)
	assert.Equal(t, time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC), got.End)
	require.NotEmpty(t, got.Series)
	first, last := got.Series[0], got.Series[len(got.Series)-1]
	assert.Equal(t, 0, first.Nodes)
	assert.Equal(t, 5, first.PendingPods, "the 5 replicas wait at the start")
	assert.Equal(t, 0, last.Nodes, "every node removed once the pods are gone")
	assert.Equal(t, 0, last.PendingPods)
	peakPending, kinds := 0, map[string]int{}
	for _, p := range got.Series {
		peakPending = max(peakPending, p.PendingPods)
		for _, e := range p.Events {
			kinds[e.Kind]++
		}
	}
	assert.Equal(t, 15, peakPending, "the 15 pods of the scale to 20 wait for their nodes")
	for _, k := range []string{"Timeline", "Provisioned", "Registered", "Initialized", "Disruption", "Terminated"} {
		assert.Positive(t, kinds[k], "a %s event", k)
	}
	tot := got.Totals
	assert.Positive(t, tot.Launched)
	assert.Positive(t, tot.Disruptions["Empty"])
	assert.InDelta(t, integral(got.Series, got.End), tot.Cost, 0.006, "cost is the integral of $/h (rounded to cents)")
	assert.Equal(t, 61.0, tot.MaxPendingSeconds["Deployment default/inflate"], "1 s batch, 40 s registration, 20 s initialization")
	assert.Nil(t, got.Variant)
}

// --variant runs the day again with its NodePools and reports the difference, in numbers
// and in a sentence naming the field that changed.
func TestSimulateVariant(t *testing.T) {
	variant := filepath.Join("..", "..", "tutorial", "consolidate-after-5m.yaml")
	got := simulateJSON(t, tutorial("--variant", variant)...)
	require.NotNil(t, got.Variant)
	v := got.Variant
	assert.Equal(t, []string{"NodePool general-purpose: disruption.consolidateAfter 5m instead of 0s"}, v.Changes)
	assert.InDelta(t, v.Totals.Cost-got.Totals.Cost, v.Difference.Cost, 0.011)
	assert.Equal(t, v.Totals.Evictions-got.Totals.Evictions, v.Difference.Evictions)
	assert.Greater(t, v.Totals.Cost, got.Totals.Cost, "empty nodes stay 5 minutes longer")
	assert.True(t, strings.HasPrefix(v.Summary, v.Changes[0]+": $"), v.Summary)

	table, stderr, code := nodeplan(t, tutorial("--variant", variant)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, table, v.Summary)
	assert.Contains(t, table, "DIFFERENCE")
}

// repackHour are the arguments of an hour without events (../../tutorial/hour.yaml) of
// ../../tutorial/repack.yaml, which Karpenter's consolidation cannot shrink and --repack can.
func repackHour(t *testing.T, extra ...string) []string {
	dir := filepath.Join("..", "..", "tutorial")
	return append([]string{"simulate", "-f", filepath.Join(dir, "repack.yaml"), "--instance-types", filepath.Join(dir, "repack-types.yaml"),
		"--timeline", filepath.Join(dir, "hour.yaml"), "--now", "2026-01-01T06:00:00Z"}, extra...)
}

// --variant-flags runs the timeline again with other engine options: the variant of
// --variant-flags --repack is the run of --repack, and says what changed.
func TestSimulateVariantFlags(t *testing.T) {
	got := simulateJSON(t, repackHour(t, "--variant-flags", "--repack")...)
	require.NotNil(t, got.Variant)
	v := got.Variant
	assert.Equal(t, "", v.File)
	assert.Equal(t, "--repack", v.Flags)
	assert.Equal(t, []string{"--repack true instead of false"}, v.Changes)
	assert.Less(t, v.Totals.Cost, got.Totals.Cost, "repack replaces the three nodes by two cheaper ones")
	repacked := simulateJSON(t, repackHour(t, "--repack")...)
	assert.Equal(t, repacked.Totals, v.Totals, "the variant is the run with --repack")
	assert.Equal(t, repacked.Series, v.Series)

	same := simulateJSON(t, repackHour(t, "--repack", "--variant-flags", "--repack --packing CostAware")...)
	require.NotNil(t, same.Variant)
	assert.Equal(t, []string{"--packing CostAware unchanged", "--repack true unchanged"}, same.Variant.Changes)
	assert.Equal(t, same.Totals, same.Variant.Totals)

	table, stderr, code := nodeplan(t, repackHour(t, "--variant-flags", "--repack")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, table, "variant --repack: "+v.Summary)
}

func TestSimulateTableAndHTML(t *testing.T) {
	table, stderr, code := nodeplan(t, tutorial()...)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"USD spent", "node-hours", "peak nodes", "pods evicted", "nodes disrupted: Empty", "Deployment default/inflate"} {
		assert.Contains(t, table, want)
	}
	page, stderr, code := nodeplan(t, tutorial("--variant", filepath.Join("..", "..", "tutorial", "consolidate-after-5m.yaml"), "-o", "html")...)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	assert.Equal(t, 3, strings.Count(page, "<svg"), "price, nodes and waiting pods drawn")
	assert.Contains(t, page, "<polyline")
	for _, external := range []string{"<script", "<link", "src=", "@import", "url("} {
		assert.NotContains(t, page, external, "self-contained")
	}
}

// Bad command lines and bad files are errors naming the flag, or the file and the field.
func TestSimulateErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	badTimeline := write("bad.yaml", "apiVersion: nodeplan.io/v1alpha1\nkind: Timeline\nduration: 1h\nevents:\n- {at: 1m, scale: {name: inflate, replicas: lots}}\n")
	unknown := write("unknown.yaml", "apiVersion: nodeplan.io/v1alpha1\nkind: Timeline\nduration: 1h\nevents:\n- {at: 1m, scale: {name: web, replicas: 2}}\n")
	deployment := write("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no timeline", []string{"simulate", "-f", filepath.Join("..", "..", "examples", "general-purpose.yaml")}, []string{"--timeline"}},
		{"yaml output", tutorial("-o", "yaml"), []string{"-o", "table, json or html"}},
		{"bad capacity", tutorial("--capacity", "m5.large=3"), []string{"--capacity", "TYPE/ZONE/CAPACITY-TYPE=N"}},
		{"zero latency", tutorial("--registration-latency", "0s"), []string{"--registration-latency"}},
		{"timeline field", func() []string {
			a := tutorial()
			a[6] = badTimeline
			return a
		}(), []string{badTimeline, "events[0].scale.replicas"}},
		{"unknown workload", func() []string {
			a := tutorial()
			a[6] = unknown
			return a
		}(), []string{"events[0]", "web"}},
		{"variant of another kind", tutorial("--variant", deployment), []string{"--variant", "only NodePools"}},
		{"missing variant", tutorial("--variant", filepath.Join(dir, "none.yaml")), []string{"--variant", "none.yaml"}},
		{"unknown variant flag", tutorial("--variant-flags", "--node-repair"), []string{"--variant-flags", "--node-repair", "--packing"}},
		{"bad variant packing", tutorial("--variant-flags", "--packing Tight"), []string{"--variant-flags", "--packing", "Tight"}},
		{"variant flags argument", tutorial("--variant-flags", "repack"), []string{"--variant-flags", "unexpected argument"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := nodeplan(t, tc.args...)
			assert.Equal(t, 1, code)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

// The seed tutorial from the CLI: plan the pods, take the launched cluster (plan -o yaml
// --launched), and disrupt it with the pods (every node is still needed) and without them
// (Karpenter removes the empty nodes).
func TestTutorialWithLaunched(t *testing.T) {
	pool := filepath.Join("..", "..", "examples", "general-purpose.yaml")
	pods := filepath.Join(t.TempDir(), "inflate.yaml")
	data, err := os.ReadFile(filepath.Join("..", "..", "tutorial", "inflate.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pods, []byte(strings.Replace(string(data), "replicas: 5", "replicas: 12", 1)), 0o644))
	planned := planJSON(t, "-f", pool, "-f", pods)
	require.NotEmpty(t, planned.NodeClaims)

	out, stderr, code := nodeplan(t, "plan", "-f", pool, "-f", pods, "-o", "yaml", "--launched", "--now", "2026-01-01T00:00:00Z")
	require.Equal(t, 0, code, stderr)
	launched := filepath.Join(t.TempDir(), "launched.yaml")
	require.NoError(t, os.WriteFile(launched, []byte(out), 0o644))
	assert.Equal(t, len(planned.NodeClaims), strings.Count(out, "\nkind: NodeClaim\n"))
	assert.Equal(t, len(planned.NodeClaims), strings.Count(out, "\nkind: Node\n"))

	// The pods come up on the launched nodes: nothing new to launch, the nodes are kept.
	again := planJSON(t, "-f", pool, "-f", pods, "-f", launched)
	assert.Empty(t, again.NodeClaims)
	assert.Empty(t, again.PodErrors)
	withPods := disruptRunJSON(t, "-f", pool, "-f", pods, "-f", launched, "--now", "2026-01-01T00:10:00Z")
	assert.Empty(t, withPods.Commands)
	for i, c := range planned.NodeClaims {
		assert.Equal(t, c.Name, withPods.Blocked[i].Node, "the launched node keeps the plan's name")
	}

	// The pods are deleted: Karpenter removes every node, empty.
	without := disruptRunJSON(t, "-f", pool, "-f", launched, "--now", "2026-01-01T00:10:00Z")
	removed := 0
	for _, c := range without.Commands {
		assert.Equal(t, "Empty", c.Reason)
		removed += len(c.Candidates)
	}
	assert.Equal(t, len(planned.NodeClaims), removed)

	_, stderr, code = nodeplan(t, "plan", "-f", pool, "-f", pods, "--launched")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "-o yaml")
}

func disruptRunJSON(t *testing.T, args ...string) disruptOutput {
	t.Helper()
	out, stderr, code := nodeplan(t, append(append([]string{"disrupt"}, args...), "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var got disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	return got
}

// tutorialSamples are the README's samples of the seed tutorial and of simulate (see
// readmeSamples): the commands as run from the checkout's root, and their real output.
func tutorialSamples(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..") + string(filepath.Separator)
	run := func(args ...string) string {
		args = append([]string(nil), args...)
		for i, a := range args {
			if strings.HasPrefix(a, "examples/") || strings.HasPrefix(a, "tutorial/") {
				args[i] = root + a
			}
		}
		out, stderr, code := nodeplan(t, args...)
		require.Equal(t, 0, code, stderr)
		return strings.ReplaceAll(out, root, "")
	}
	launched := filepath.Join(t.TempDir(), "launched.yaml")
	require.NoError(t, os.WriteFile(launched, []byte(run("plan", "-f", "examples/general-purpose.yaml", "-f", "tutorial/inflate.yaml",
		"-o", "yaml", "--launched", "--now", "2026-01-01T00:00:00Z")), 0o644))
	shown := func(out string) string { return strings.ReplaceAll(out, launched, "launched.yaml") }
	tutorial := "$ nodeplan plan -f examples/general-purpose.yaml -f tutorial/inflate.yaml\n" +
		run("plan", "-f", "examples/general-purpose.yaml", "-f", "tutorial/inflate.yaml") +
		"\n$ nodeplan plan -f examples/general-purpose.yaml -f tutorial/inflate.yaml -o yaml --launched --now 2026-01-01T00:00:00Z > launched.yaml\n" +
		"$ nodeplan disrupt -f examples/general-purpose.yaml -f tutorial/inflate.yaml -f launched.yaml --now 2026-01-01T00:05:00Z\n" +
		shown(run("disrupt", "-f", "examples/general-purpose.yaml", "-f", "tutorial/inflate.yaml", "-f", launched, "--now", "2026-01-01T00:05:00Z")) +
		"\n$ nodeplan disrupt -f examples/general-purpose.yaml -f launched.yaml --now 2026-01-01T00:05:00Z   # the pods deleted\n" +
		shown(run("disrupt", "-f", "examples/general-purpose.yaml", "-f", launched, "--now", "2026-01-01T00:05:00Z"))
	day := []string{"simulate", "-f", "examples/general-purpose.yaml", "-f", "tutorial/inflate.yaml", "--timeline", "tutorial/day.yaml", "--now", "2026-01-01T00:00:00Z"}
	hour := []string{"simulate", "-f", "tutorial/repack.yaml", "--instance-types", "tutorial/repack-types.yaml", "--timeline", "tutorial/hour.yaml", "--now", "2026-01-01T06:00:00Z"}
	return map[string]string{
		"tutorial": tutorial,
		"simulate": "$ nodeplan " + strings.Join(day, " ") + "\n" + run(day...),
		"variant": "$ nodeplan " + strings.Join(day, " ") + " --variant tutorial/consolidate-after-5m.yaml\n" +
			run(append(append([]string(nil), day...), "--variant", "tutorial/consolidate-after-5m.yaml")...),
		"repackvariant": "$ nodeplan " + strings.Join(hour, " ") + " --variant-flags --repack\n" +
			run(append(append([]string(nil), hour...), "--variant-flags", "--repack")...),
	}
}
