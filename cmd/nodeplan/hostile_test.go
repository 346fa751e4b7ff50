package main

import (
	"os"
	"path/filepath"
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
