package main

import (
	"fmt"
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
			"nodeplan: /dev/zero: brings the input over 1000 bytes, the most nodeplan reads from all files and standard input together\n(raise it with --max-input-bytes)\n"},
		"prices": {[]string{"-f", in, "--prices", "/dev/zero"},
			"nodeplan: --prices /dev/zero: brings the input over 1000 bytes, the most nodeplan reads from all files and standard input together\n(raise it with --max-input-bytes)\n"},
		"catalog": {[]string{"-f", in, "--instance-types", "/dev/zero"},
			"nodeplan: --instance-types /dev/zero: brings the input over 1000 bytes, the most nodeplan reads from all files and standard input together\n(raise it with --max-input-bytes)\n"},
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
	for _, flag := range []string{"--max-input-bytes", "--max-pods", "--max-objects"} {
		_, stderr, code := nodeplan(t, "plan", "-f", "x.yaml", flag, "0")
		assert.Equal(t, 1, code)
		assert.Equal(t, "nodeplan: "+flag+" 0: want a positive number\n", stderr)
	}
}

// TestLimitsAreTotal: --max-input-bytes caps every input together (it capped each file
// alone), the catalog and price files included, and --max-objects caps every kind but Pods
// (only Pods were capped: a million Nodes or interruption messages were all kept); each
// error names the file and the flag that raises the limit.
func TestLimitsAreTotal(t *testing.T) {
	pool := filepath.Join(scenarios, "single-pod-cheapest", "input.yaml")
	types := filepath.Join(scenarios, "instance-types.yaml")
	poolSize, typesSize := fileSize(t, pool), fileSize(t, types)
	node := func(i int) string { return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%d}\n---\n", i) }
	nodes := writeInput(t, "nodes.yaml", node(1)+node(2)+node(3))
	spot := func(i int) string {
		return fmt.Sprintf(`{"version":"0","id":"m%d","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","time":"2026-01-01T00:58:00Z","detail":{"instance-id":"i-0a%d","instance-action":"terminate"}}`, i, i)
	}
	events := writeInput(t, "events.json", "["+spot(1)+","+spot(2)+","+spot(3)+"]")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"manifests and catalog together": {[]string{"-f", pool, "--instance-types", types, "--max-input-bytes", fmt.Sprint(poolSize + typesSize - 1)},
			"nodeplan: --instance-types " + types + ": brings the input over " + fmt.Sprint(poolSize+typesSize-1) + " bytes"},
		"two manifests together": {[]string{"-f", pool, "-f", nodes, "--instance-types", types, "--max-input-bytes", fmt.Sprint(poolSize + 10)},
			"nodeplan: " + nodes + ": brings the input over"},
		"Nodes": {[]string{"-f", pool, "-f", nodes, "--instance-types", types, "--max-objects", "2"},
			"nodeplan: " + nodes + `: document 3 (line 9): Node "n3": more than 2 Node objects, the most nodeplan reads of one kind` + "\n(raise it with --max-objects)\n"},
		"interruption messages": {[]string{"-f", pool, "-f", events, "--instance-types", types, "--max-objects", "2"},
			"nodeplan: " + events + ": document 1 (line 1): [2]: more than 2 interruption messages, the most nodeplan reads\n(raise it with --max-objects)\n"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := nodeplan(t, append([]string{"disrupt"}, c.args...)...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, c.want)
		})
	}
	_, stderr, code := nodeplan(t, "disrupt", "-f", pool, "-f", nodes, "-f", events, "--instance-types", types,
		"--max-objects", "3", "--max-input-bytes", fmt.Sprint(poolSize+typesSize+fileSize(t, nodes)+fileSize(t, events)))
	assert.Equal(t, 0, code, "as much as the limits: %s", stderr)
}

func fileSize(t *testing.T, path string) int64 {
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Size()
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
