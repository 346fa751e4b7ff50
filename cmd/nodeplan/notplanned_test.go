package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notPlannedInput holds one pod of each kind nodeplan does not plan, next to a pending pod and
// a pod bound to a node of the input.
const notPlannedInput = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {karpenter.sh/nodepool: default, kubernetes.io/hostname: node-a, node.kubernetes.io/instance-type: small, topology.kubernetes.io/zone: test-zone-a, karpenter.sh/capacity-type: on-demand, karpenter.sh/initialized: "true", karpenter.sh/registered: "true"}
  creationTimestamp: "2026-01-01T00:00:00Z"
status:
  allocatable: {cpu: "1", memory: 1Gi, pods: "10"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: default}
spec: {nodeName: node-a, containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere, namespace: default}
spec: {nodeName: node-gone, containers: [{name: c, image: x}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata:
  name: logs-x1
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: logs, uid: u-logs, controller: true}]
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: done, namespace: batch}
spec: {containers: [{name: c, image: x}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata: {name: going, namespace: default, deletionTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: x}]}
`

func writeNotPlannedInput(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.yaml")
	require.NoError(t, os.WriteFile(path, []byte(notPlannedInput), 0o644))
	return []string{"-f", path, "--instance-types", filepath.Join(scenarios, "instance-types.yaml")}
}

func TestNotPlannedPodsAreListedWithTheirReason(t *testing.T) {
	want := map[string]string{
		"default/elsewhere":   notPlannedNodeMissing,
		"kube-system/logs-x1": notPlannedDaemonSetPod,
		"batch/done":          notPlannedTerminal,
		"default/going":       notPlannedTerminating,
	}
	args := writeNotPlannedInput(t)

	plan := planJSON(t, args...)
	got := map[string]string{}
	for _, p := range plan.NotPlanned {
		got[p.Pod] = p.Reason
		assert.NotEmpty(t, p.Message)
	}
	assert.Equal(t, want, got)
	// Every input pod is accounted for exactly once: placed, unschedulable, bound where it
	// is, or not planned.
	seen := accounted(plan)
	seen["default/bound"]++ // bound pods stay where they are
	names := make([]string, 0, len(seen))
	for p, n := range seen {
		assert.Equal(t, 1, n, p)
		names = append(names, p)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"batch/done", "default/bound", "default/elsewhere", "default/going", "default/pending", "kube-system/logs-x1"}, names)

	out, stderr, code := nodeplan(t, append([]string{"disrupt"}, append(args, "-o", "json")...)...)
	require.Equal(t, 0, code, stderr)
	var disrupt disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &disrupt))
	got = map[string]string{}
	for _, p := range disrupt.NotPlanned {
		got[p.Pod] = p.Reason
	}
	assert.Equal(t, want, got, "disrupt lists the same pods")
}

func TestNotPlannedPodsInTableAndYAML(t *testing.T) {
	args := writeNotPlannedInput(t)
	table, stderr, code := nodeplan(t, append([]string{"plan"}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, table, "4 input pods not planned")
	for _, r := range []string{notPlannedNodeMissing, notPlannedDaemonSetPod, notPlannedTerminal, notPlannedTerminating} {
		assert.Contains(t, table, "1 "+r)
	}

	for _, cmd := range []string{"plan", "disrupt"} {
		out, stderr, code := nodeplan(t, append([]string{cmd}, append(args, "-o", "yaml")...)...)
		require.Equal(t, 0, code, stderr)
		_, events := yamlDocs(t, out)
		got := map[string]string{}
		for _, e := range events {
			if e.Reason == eventNotPlanned {
				got[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = strings.SplitN(e.Message, ":", 2)[0]
			}
		}
		assert.Len(t, got, 4, cmd)
		assert.Equal(t, notPlannedDaemonSetPod, got["kube-system/logs-x1"], cmd)
	}
}
