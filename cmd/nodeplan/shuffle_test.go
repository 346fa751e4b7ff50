package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// shuffleCase is an input and the command line it is run with (-f and -o added).
type shuffleCase struct {
	name    string
	command string
	files   []string
	args    []string
}

// shuffleCases are the project's own scenarios (each with its command, arguments and
// catalog), the examples and the real-cluster dump.
func shuffleCases(t *testing.T) []shuffleCase {
	t.Helper()
	const own = "../../testdata/own-scenarios"
	dirs, err := filepath.Glob(filepath.Join(own, "*", "expect.json"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	var out []shuffleCase
	for _, expect := range dirs {
		dir := filepath.Dir(expect)
		raw, err := os.ReadFile(expect)
		require.NoError(t, err)
		var spec struct {
			Command       string          `json:"command"`
			Args          []string        `json:"args"`
			InstanceTypes json.RawMessage `json:"instanceTypes"`
		}
		require.NoError(t, json.Unmarshal(raw, &spec), expect)
		c := shuffleCase{name: filepath.Base(dir), command: spec.Command, args: spec.Args}
		if string(spec.InstanceTypes) != "null" {
			name := "instance-types.yaml"
			if len(spec.InstanceTypes) > 0 {
				require.NoError(t, json.Unmarshal(spec.InstanceTypes, &name))
			}
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				path = filepath.Join(own, name)
			}
			c.args = append(c.args, "--instance-types", path)
		}
		inputs, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		require.NoError(t, err)
		for _, in := range inputs {
			if filepath.Base(in) != "instance-types.yaml" {
				c.files = append(c.files, in)
			}
		}
		out = append(out, c)
	}
	examples, err := filepath.Glob("../../examples/*.yaml")
	require.NoError(t, err)
	real, err := filepath.Glob("testdata/real-cluster/*.yaml")
	require.NoError(t, err)
	now := []string{"--now", "2026-03-02T09:15:00Z"}
	return append(out,
		shuffleCase{name: "examples", command: "plan", files: examples},
		shuffleCase{name: "examples", command: "disrupt", files: examples, args: now},
		shuffleCase{name: "real-cluster", command: "plan", files: real},
		shuffleCase{name: "real-cluster", command: "disrupt", files: real, args: now},
	)
}

// TestOutputIsByteIdenticalWhateverTheOrder: every input's objects shuffled (the items of
// Lists and JSON arrays too), spread over several files given in another order and run with
// another GOMAXPROCS, give byte for byte the same plan and disrupt output in every format.
// Each list of an output (podErrors, a drain's evictions, blocked nodes, ...) is sorted by
// something other than the input's order.
func TestOutputIsByteIdenticalWhateverTheOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	shuffles := 2
	if testing.Short() {
		shuffles = 1
	}
	for _, c := range shuffleCases(t) {
		t.Run(c.command+"/"+c.name, func(t *testing.T) {
			var objects []string
			for _, f := range c.files {
				objects = append(objects, splitObjects(t, f)...)
			}
			args := func(files []string, output string) []string {
				out := []string{c.command}
				for _, f := range files {
					out = append(out, "-f", f)
				}
				return append(append(out, c.args...), "-o", output)
			}
			for _, output := range []string{"json", "yaml", "table"} {
				want, stderr, code := runOnce(args(c.files, output))
				require.Equal(t, 0, code, stderr)
				for seed := range shuffles {
					rng := rand.New(rand.NewPCG(uint64(seed), 7))
					files := writeShuffled(t, rng, objects, 1+seed%3)
					runtime.GOMAXPROCS([]int{1, 2, 8}[seed%3])
					got, stderr, code := runOnce(args(files, output))
					require.Equal(t, 0, code, stderr)
					require.Equal(t, want, got, "-o %s, seed %d: %d objects in %d files", output, seed, len(objects), len(files))
				}
			}
		})
	}
}

// runOnce is run without verify (the unshuffled input's run is verified by the scenario
// tests).
func runOnce(args []string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// splitObjects cuts a manifest file into one document per object: a List's items (typed
// lists' items given their kind) and a JSON array's elements become documents of their own.
func splitObjects(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, d := range strings.Split("\n"+string(data), "\n---") {
		if strings.TrimSpace(d) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(d))
		require.NoError(t, err, path)
		var v any
		require.NoError(t, json.Unmarshal(js, &v), path)
		out = append(out, objectsOf(t, v)...)
	}
	return out
}

func objectsOf(t *testing.T, v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			out = append(out, objectsOf(t, it)...)
		}
		return out
	case map[string]any:
		kind, _ := x["kind"].(string)
		if items, ok := x["items"].([]any); ok && strings.HasSuffix(kind, "List") {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok && kind != "List" && m["kind"] == nil {
					m["kind"], m["apiVersion"] = strings.TrimSuffix(kind, "List"), x["apiVersion"]
				}
				out = append(out, objectsOf(t, it)...)
			}
			return out
		}
	}
	js, err := json.Marshal(v)
	require.NoError(t, err)
	return []string{string(js)}
}

// writeShuffled writes the objects, shuffled, into n files, and returns their paths shuffled.
func writeShuffled(t *testing.T, rng *rand.Rand, objects []string, n int) []string {
	t.Helper()
	shuffled := append([]string(nil), objects...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	parts := make([][]string, n)
	for _, o := range shuffled {
		i := rng.IntN(n)
		parts[i] = append(parts[i], o)
	}
	dir := t.TempDir()
	var files []string
	for i, p := range parts {
		if len(p) == 0 {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("part-%d.yaml", i))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(p, "\n---\n")), 0o644))
		files = append(files, path)
	}
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	return files
}
