package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

const scenarios = "../../testdata/scenarios"

// nodeplan runs the CLI in-process (runVerified) and returns stdout, stderr and the exit
// status.
func nodeplan(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runVerified(t, args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// runVerified is run, then, when the command succeeded, verifyRun over the same command
// line: every Solve and Plan the CLI tests make is checked by verify.
func runVerified(t *testing.T, args []string, stdout, stderr io.Writer) int {
	t.Helper()
	code := run(args, stdout, stderr)
	if code == 0 {
		if err := verifyRun(t, args); err != nil {
			t.Errorf("the CLI succeeded on %q, reading it again failed: %v", args, err)
		}
	}
	return code
}

func planJSON(t *testing.T, args ...string) planOutput {
	t.Helper()
	out, stderr, code := nodeplan(t, append(append([]string{"plan"}, args...), "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	return got
}

func scenario(name string) []string {
	return []string{"-f", filepath.Join(scenarios, name, "input.yaml"), "--instance-types", filepath.Join(scenarios, "instance-types.yaml")}
}

func TestPlanCheapestType(t *testing.T) {
	got := planJSON(t, scenario("single-pod-cheapest")...)
	require.Len(t, got.NodeClaims, 1)
	c := got.NodeClaims[0]
	assert.Equal(t, "s-2x4", c.InstanceType)
	assert.Equal(t, "on-demand", c.CapacityType)
	assert.Equal(t, 0.08, c.PricePerHour)
	assert.Equal(t, []string{"default/web"}, c.Pods)
	assert.Equal(t, "s-2x4", c.InstanceTypeOptions[0], "options are cheapest first")
	assert.Equal(t, 0.08, got.PricePerHour)
	assert.Empty(t, got.PodErrors)
}

// accounted counts how often each pod appears in a plan: on a new claim, on an existing node,
// in podErrors or in notPlanned.
func accounted(out planOutput) map[string]int {
	seen := map[string]int{}
	for _, c := range out.NodeClaims {
		for _, p := range c.Pods {
			seen[p]++
		}
	}
	for _, n := range out.ExistingNodes {
		for _, p := range n.Pods {
			seen[p]++
		}
	}
	for _, e := range out.PodErrors {
		seen[e.Pod]++
	}
	for _, p := range out.NotPlanned {
		seen[p.Pod]++
	}
	return seen
}

func TestPlanEveryPodAccountedFor(t *testing.T) {
	for _, name := range []string{"single-pod-cheapest", "spot-when-allowed", "team-taints", "zone-spread", "gpu-not-allowed", "existing-node-first"} {
		t.Run(name, func(t *testing.T) {
			got := planJSON(t, scenario(name)...)
			seen := accounted(got)
			for _, e := range got.PodErrors {
				assert.NotEmpty(t, e.Reason)
			}
			want := map[string]int{}
			for _, p := range pendingPods(t, scenario(name)[1]) {
				want[p] = 1
			}
			require.NotEmpty(t, want)
			assert.Equal(t, want, seen, "every pending pod of the input, each exactly once")
		})
	}
}

func TestPlanIsByteIdentical(t *testing.T) {
	args := []string{"plan", "-f", "../../examples", "-o", "json"}
	first, _, code := nodeplan(t, args...)
	require.Equal(t, 0, code)
	second, _, _ := nodeplan(t, args...)
	assert.Equal(t, first, second)
}

func TestPlanEmbeddedCatalogOnExamples(t *testing.T) {
	got := planJSON(t, "-f", "../../examples")
	require.NotEmpty(t, got.NodeClaims)
	assert.Empty(t, got.PodErrors)
	total := 0.0
	for _, c := range got.NodeClaims {
		assert.Equal(t, "general-purpose", c.NodePool)
		assert.Contains(t, []string{"us-east-1a", "us-east-1b", "us-east-1c"}, c.Zone)
		assert.Equal(t, "on-demand", c.CapacityType)
		assert.Regexp(t, `^[cmr][0-9]`, c.InstanceType, "the NodePool allows categories c, m and r")
		total += c.PricePerHour
	}
	assert.InDelta(t, total, got.PricePerHour, 1e-6)
	assert.Equal(t, 12, got.Skipped["Service"])
}

func TestPlanTable(t *testing.T) {
	out, stderr, code := nodeplan(t, append([]string{"plan"}, scenario("team-taints")...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "team-1")
	assert.Contains(t, out, "team-2")
	assert.Contains(t, out, "t-1x1")
	assert.Regexp(t, `(?m)^NOW\s+0 nodes`, out)
	assert.Regexp(t, `(?m)^AFTER PLAN\s+2 nodes`, out)
	assert.True(t, strings.HasSuffix(out, "\n"))
}

func TestPlanYAMLIsNodeClaims(t *testing.T) {
	out, stderr, code := nodeplan(t, append(append([]string{"plan"}, scenario("zone-spread")...), "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	docs := strings.Split(out, "---\n")
	var claims []v1.NodeClaim
	for _, d := range docs {
		var kind struct{ Kind string }
		require.NoError(t, yaml.Unmarshal([]byte(d), &kind))
		if kind.Kind != "NodeClaim" {
			continue // the Events after the NodeClaims, tested in events_test.go
		}
		var nc v1.NodeClaim
		require.NoError(t, yaml.UnmarshalStrict([]byte(d), &nc))
		claims = append(claims, nc)
	}
	require.Len(t, claims, 3)
	for _, nc := range claims {
		assert.Equal(t, "karpenter.sh/v1", nc.APIVersion)
		assert.Equal(t, "NodeClaim", nc.Kind)
		assert.Equal(t, "default", nc.Labels[v1.NodePoolLabelKey])
		assert.NotNil(t, nc.Spec.NodeClassRef)
		assert.NotEmpty(t, nc.Spec.Resources.Requests)
		var zone, types bool
		for _, r := range nc.Spec.Requirements {
			if r.Key == v1.LabelTopologyZone && len(r.Values) == 1 {
				zone = true
			}
			if r.Key == v1.LabelInstanceType && len(r.Values) > 0 {
				types = true
			}
			assert.NotEqual(t, v1.LabelHostname, r.Key, "placeholder hostnames are not part of the NodeClaim")
		}
		assert.True(t, zone, "zone spread pins each NodeClaim to one zone")
		assert.True(t, types, "the instance-type options are listed")
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown operator", scenario("bad-operator"), []string{"bad-operator/input.yaml", `NodePool "default"`, "spec.template.spec.requirements[0].operator", "Foo"}},
		{"v1alpha5", []string{"-f", write("old.yaml", "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: old}\nspec: {}\n")}, []string{"old.yaml", "karpenter.sh/v1alpha5", "NodePool", "karpenter.sh/v1"}},
		{"v1beta1 without nodeClassRef", []string{"-f", write("beta.yaml", "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n")}, []string{"beta.yaml", `NodePool "old"`, "spec.template.spec.nodeClassRef.name"}},
		{"unknown field", []string{"-f", write("typo.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x, resourcez: {}}]\n")}, []string{"typo.yaml", "resourcez"}},
		{"bad quantity", []string{"-f", write("qty.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x, resources: {requests: {cpu: lots}}}]\n")}, []string{"qty.yaml", "Pod", "cpu"}},
		{"missing file", []string{"-f", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
		{"no input", nil, []string{"-f"}},
		{"bad output", append(scenario("single-pod-cheapest"), "-o", "xml"), []string{"xml"}},
		{"bad catalog", []string{"-f", filepath.Join(scenarios, "single-pod-cheapest", "input.yaml"), "--instance-types", write("cat.yaml", "instanceTypes:\n- name: x\n  capacity: {cpu: two}\n")}, []string{"cat.yaml", "cpu"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := nodeplan(t, append([]string{"plan"}, tc.args...)...)
			assert.Equal(t, 1, code)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	_, stderr, code := nodeplan(t)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "Usage:")
	_, stderr, code = nodeplan(t, "frobnicate")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "frobnicate")
}

func TestPlanRealWorkloads(t *testing.T) {
	for _, w := range []struct {
		file string
		pods int
	}{{"online-boutique.yaml", 12}, {"sock-shop.yaml", 14}} {
		t.Run(w.file, func(t *testing.T) {
			got := planJSON(t, "-f", "../../examples/general-purpose.yaml", "-f", filepath.Join("../../manifest/testdata", w.file))
			placed := 0
			for _, c := range got.NodeClaims {
				placed += len(c.Pods)
				assert.Greater(t, c.PricePerHour, 0.0)
			}
			assert.Equal(t, w.pods, placed)
			assert.Empty(t, got.PodErrors)
			assert.NotEmpty(t, got.Skipped["Service"])
		})
	}
}

func TestPlanOptions(t *testing.T) {
	args := []string{"-f", "../../examples"}
	cost := planJSON(t, args...)
	karp := planJSON(t, append(args, "--packing", "Karpenter")...)
	assert.LessOrEqual(t, cost.PricePerHour, karp.PricePerHour, "cost-aware packing never costs more on the example")
	_, stderr, code := nodeplan(t, append([]string{"plan"}, append(args, "--packing", "Greedy")...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--packing")
	_, stderr, code = nodeplan(t, append([]string{"plan"}, append(args, "--min-values-policy", "Loose")...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "BestEffort")
}

func TestPlanPodErrorCode(t *testing.T) {
	got := planJSON(t, scenario("gpu-not-allowed")...)
	require.Len(t, got.PodErrors, 1)
	e := got.PodErrors[0]
	assert.Equal(t, "InsufficientResource", e.Code)
	require.Len(t, e.Causes, 1)
	c := e.Causes[0]
	assert.NotEmpty(t, c.Reason)
	c.Reason = ""
	assert.Equal(t, causeOutput{Code: "InsufficientResource", NodePool: "default", Resource: "nvidia.com/gpu", Needed: "1", Available: "0"}, c)
	assert.Empty(t, e.NodeCauses)
	assert.Equal(t, summaryOutput{NodePools: 1, Counts: []countOutput{{causeOutput: causeOutput{Code: "InsufficientResource", Resource: "nvidia.com/gpu",
		Needed: "1", Available: "0", Reason: "1 insufficient nvidia.com/gpu (needs 1, largest type offers 0)"}, Count: 1, NodePools: 1}}}, e.Summary)
}

// TestPlanLowerBound: plan reports the lower bound of the pods it places and its efficiency
// in every format. One pod of 1 cpu whose cheapest whole node is s-2x4 ($0.08) is bounded by
// a quarter of a-4x8 ($0.13 for 4 cpu; it asks no architecture): $0.0325, efficiency 0.41.
func TestPlanLowerBound(t *testing.T) {
	got := planJSON(t, scenario("single-pod-cheapest")...)
	require.NotNil(t, got.LowerBoundPerHour)
	require.NotNil(t, got.Efficiency)
	assert.Equal(t, 0.0325, *got.LowerBoundPerHour)
	assert.Equal(t, 0.4063, *got.Efficiency)

	table, stderr, code := nodeplan(t, append([]string{"plan"}, scenario("single-pod-cheapest")...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, table, "lower bound $0.0325/hour")
	out, stderr, code := nodeplan(t, append(append([]string{"plan"}, scenario("single-pod-cheapest")...), "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "# lower bound $0.0325/hour"), "the bound is a comment: %q", out[:min(len(out), 80)])
	for _, doc := range strings.Split(out, "---\n") {
		var v any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &v), "every document is YAML")
	}

	for _, args := range [][]string{scenario("team-taints"), scenario("zone-spread"), scenario("gpu-not-allowed"), scenario("existing-node-first"), {"-f", "../../examples"}} {
		got := planJSON(t, args...)
		require.NotNil(t, got.LowerBoundPerHour, "%v", args)
		assert.LessOrEqual(t, *got.LowerBoundPerHour, got.PricePerHour, "%v: the plan costs at least the bound", args)
		if got.PricePerHour > 0 {
			assert.InDelta(t, *got.LowerBoundPerHour/got.PricePerHour, *got.Efficiency, 1e-4, "%v", args)
		}
	}
}
