package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/manifest"
)

func TestGenerationIsDeterministicPerSeed(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			a, err := json.Marshal(generate(kind, seed))
			require.NoError(t, err)
			b, _ := json.Marshal(generate(kind, seed))
			assert.Equal(t, string(a), string(b), "%s seed %d", kind, seed)
		}
	}
	a, _ := json.Marshal(genPlan(1))
	b, _ := json.Marshal(genPlan(2))
	assert.NotEqual(t, string(a), string(b), "seeds differ")
}

// Every generated input reads cleanly and has pods to plan or nodes to disrupt.
func TestGeneratedInputsLoad(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			in := generate(kind, seed)
			dir := filepath.Join(t.TempDir(), fmt.Sprint(seed))
			require.NoError(t, in.write(dir))
			set, err := manifest.Load(filepath.Join(dir, "input.yaml"))
			require.NoError(t, err, "%s seed %d", kind, seed)
			_, _, err = catalog.ParseFile(filepath.Join(dir, "instance-types.yaml"))
			require.NoError(t, err, "%s seed %d", kind, seed)
			assert.NotEmpty(t, set.NodePools)
			if kind == "plan" {
				assert.NotEmpty(t, set.Pods, "seed %d has pods", seed)
			} else {
				assert.NotEmpty(t, set.Nodes, "seed %d has nodes", seed)
			}
		}
	}
}

// nodeplan's CLI accepts every generated input (exit 0) and accounts for every pod.
func TestNodeplanAcceptsGeneratedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	bin := filepath.Join(t.TempDir(), "nodeplan")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/nodeplan")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	for seed := uint64(1); seed <= 15; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			in := generate(kind, seed)
			dir := filepath.Join(t.TempDir(), fmt.Sprint(seed))
			require.NoError(t, in.write(dir))
			res := run(bin, in.args(dir), time.Minute)
			require.Equal(t, 0, res.Exit, "%s seed %d: %s", kind, seed, res.Stderr)
			if kind == "plan" {
				w, err := loadWorld(dir)
				require.NoError(t, err)
				o, err := parsePlan(res.Stdout)
				require.NoError(t, err)
				for _, v := range w.validatePlan(o) {
					assert.NotEqual(t, "accounting", v.Kind, "seed %d: %s", seed, v)
				}
			}
		}
	}
}

func TestDeletePathDropsKeysAndListEntries(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"a": 1, "list": []any{map[string]any{"x": 1}, map[string]any{"y": 2}}}}
	require.True(t, deletePath(doc, []any{"spec", "a"}))
	require.True(t, deletePath(doc, []any{"spec", "list", 0}))
	assert.Equal(t, map[string]any{"spec": map[string]any{"list": []any{map[string]any{"y": 2}}}}, doc)
	assert.False(t, deletePath(doc, []any{"spec", "list", 0}), "a list keeps its last entry")
	assert.False(t, deletePath(doc, []any{"spec", "missing"}))
}
