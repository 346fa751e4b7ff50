package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

// Hostile inputs end with exit 1 and a message naming the input and the limit or field.

func TestEndlessInputsAreCapped(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	in := filepath.Join(scenarios, "single-pod-cheapest", "input.yaml")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"manifest": {[]string{"-f", "/dev/zero"},
			"nodeplan: /dev/zero: holds more than 1000 bytes, the most nodeplan reads from one input\n(raise the limits with --max-input-bytes and --max-pods)\n"},
		"prices": {[]string{"-f", in, "--prices", "/dev/zero"},
			"nodeplan: --prices /dev/zero: holds more than 1000 bytes, the most nodeplan reads from one input (raise it with --max-input-bytes)\n"},
		"catalog": {[]string{"-f", in, "--instance-types", "/dev/zero"},
			"nodeplan: --instance-types /dev/zero: holds more than 1000 bytes, the most nodeplan reads from one input (raise it with --max-input-bytes)\n"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := nodeplan(t, append([]string{"plan", "--max-input-bytes", "1000"}, c.args...)...)
			assert.Equal(t, 1, code)
			assert.Equal(t, c.want, stderr)
		})
	}
}

func TestCatalogFolderNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := nodeplan(t, "plan", "-f", filepath.Join(scenarios, "single-pod-cheapest", "input.yaml"), "--instance-types", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, "nodeplan: --instance-types "+dir+": is a folder, not a file\n", stderr)
}

func TestLimitFlagsMustBePositive(t *testing.T) {
	for _, flag := range []string{"--max-input-bytes", "--max-pods"} {
		_, stderr, code := nodeplan(t, "plan", "-f", "x.yaml", flag, "0")
		assert.Equal(t, 1, code)
		assert.Equal(t, "nodeplan: "+flag+" 0: want a positive number\n", stderr)
	}
}

// TestUncountableQuantitiesExitOne: 1e30 cpu was read as 0 and the pod planned with exit 0.
func TestUncountableQuantitiesExitOne(t *testing.T) {
	pool := filepath.Join(scenarios, "single-pod-cheapest", "input.yaml")
	pod := writeInput(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1e30}}}]}
`)
	for _, cmd := range []string{"plan", "disrupt"} {
		_, stderr, code := nodeplan(t, cmd, "-f", pool, "-f", pod, "--instance-types", filepath.Join(scenarios, "instance-types.yaml"))
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, pod+`: document 1 (line 1): Pod "default/huge": spec.containers[0].resources.requests.cpu: 1e+30: more than nodeplan can count`)
	}
}

// pendingPods are the namespace/name of the pods of the files that are not bound to a node,
// read without the CLI's snapshot, so tests can hold the output against the input.
func pendingPods(t *testing.T, files ...string) []string {
	t.Helper()
	set, err := manifest.Load(files...)
	require.NoError(t, err)
	var out []string
	for _, p := range set.Pods {
		if p.Spec.NodeName == "" {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// TestPlanIsByteIdenticalWhateverTheOrder: the examples' documents shuffled, spread over
// several files given in another order, and run with another GOMAXPROCS, plan byte for byte
// the same.
func TestPlanIsByteIdenticalWhateverTheOrder(t *testing.T) {
	paths, err := filepath.Glob("../../examples/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var docs []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, d := range strings.Split("\n"+string(data), "\n---") {
			if strings.TrimSpace(d) != "" {
				docs = append(docs, strings.TrimPrefix(d, "\n"))
			}
		}
	}
	want, stderr, code := nodeplan(t, "plan", "-f", "../../examples", "-o", "json")
	require.Equal(t, 0, code, stderr)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for seed := range 6 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		shuffled := append([]string(nil), docs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		dir := t.TempDir()
		files := make([][]string, 1+seed%4)
		for _, d := range shuffled {
			i := rng.IntN(len(files))
			files[i] = append(files[i], d)
		}
		var args []string
		for i, f := range files {
			p := filepath.Join(dir, fmt.Sprintf("part-%d.yaml", i))
			require.NoError(t, os.WriteFile(p, []byte(strings.Join(f, "\n---\n")), 0o644))
			args = append(args, "-f", p)
		}
		rng.Shuffle(len(args)/2, func(i, j int) { args[2*i+1], args[2*j+1] = args[2*j+1], args[2*i+1] })
		runtime.GOMAXPROCS([]int{1, 2, 8}[seed%3])
		got, stderr, code := nodeplan(t, append(append([]string{"plan"}, args...), "-o", "json")...)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want, got, "seed %d: %d documents in %d files", seed, len(docs), len(files))
	}
}
