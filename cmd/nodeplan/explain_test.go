package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// explainInput: a tainted NodePool tried first, a NodePool whose cpu limit leaves 16 of 416,
// a full existing node, and 3 replicas of a Deployment each asking 20 cpu (the embedded
// catalog has types that hold them; the limit excludes them all).
const explainInput = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: team-1}
spec:
  weight: 10
  template:
    spec:
      taints: [{key: team-1-nodes, effect: NoSchedule}]
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  limits: {cpu: "16"}
  template:
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-5
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a,
    karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux, karpenter.sh/initialized: "true", karpenter.sh/registered: "true"}
status: {allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}, capacity: {cpu: "2", memory: 8Gi, pods: "29"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web, resources: {requests: {cpu: "20", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: lone, namespace: default}
spec:
  containers: [{name: a, image: a, resources: {requests: {cpu: "20", memory: 1Gi}}}]
`

// TestExplainPutsTheCauseToFixFirst: NodePools before nodes, a taint before a limit, and the
// limit (not the size of the types it leaves) for the NodePool whose limit excludes every
// type that would hold the pods.
func TestExplainPutsTheCauseToFixFirst(t *testing.T) {
	in := writeInput(t, "in.yaml", explainInput)
	_, set, snap, err := loadPlan([]string{"-f", in}, io.Discard)
	require.NoError(t, err)
	res, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	require.Len(t, res.PodErrors, 4)
	groups := groupPodErrors(res.PodErrors, set, true)
	require.Len(t, groups, 2, "the Deployment's 3 replicas are one group, the lone pod another")
	var web *podGroup
	for _, g := range groups {
		if g.owner == "Deployment shop/web" {
			web = g
		} else {
			assert.Empty(t, g.owner)
			assert.Equal(t, []string{"default/lone"}, g.pods)
		}
	}
	require.NotNil(t, web)
	assert.Equal(t, []string{"shop/web-0", "shop/web-1", "shop/web-2"}, web.pods)

	pool, nodes := causesByFix(web.err)
	var codes []scheduling.ReasonCode
	for _, c := range append(pool, nodes...) {
		codes = append(codes, c.Code)
	}
	assert.Equal(t, []scheduling.ReasonCode{scheduling.ReasonUntoleratedTaint, scheduling.ReasonNodePoolLimit, scheduling.ReasonInsufficientResource}, codes)
	assert.Equal(t, "team-1", pool[0].NodePool)
	assert.Equal(t, "default", pool[1].NodePool)
	assert.Equal(t, "cpu", pool[1].Resource)
	assert.Equal(t, "ip-10-0-1-5", nodes[0].Node)

	// The table: one line per group without --explain, a line per cause with it.
	out, stderr, code := nodeplan(t, "plan", "-f", in)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 1, strings.Count(out, "3 pods of Deployment shop/web (shop/web-0,shop/web-1,shop/web-2)"), out)
	explained, _, _ := nodeplan(t, "plan", "-f", in, "--explain")
	lines := linesAfter(explained, "3 pods of Deployment shop/web")
	require.Len(t, lines, 3, explained)
	assert.Contains(t, lines[0], `NodePool "team-1"`)
	assert.Contains(t, lines[1], `NodePool "default": limit on cpu is 16`)
	assert.Contains(t, lines[2], `existing node "ip-10-0-1-5"`)
}

// linesAfter are the indented lines that follow the line containing head.
func linesAfter(out, head string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, head):
			in = true
		case in && strings.HasPrefix(l, "    "):
			lines = append(lines, strings.TrimSpace(l))
		case in:
			return lines
		}
	}
	return lines
}

// TestFailOnUnschedulable: exit 3 when a pod is not placed, after printing the answer; 0
// without the flag or when every pod is placed.
func TestFailOnUnschedulable(t *testing.T) {
	in := writeInput(t, "in.yaml", explainInput)
	for _, format := range []string{"table", "json", "yaml"} {
		var out, errb bytes.Buffer
		code := run([]string{"plan", "-f", in, "--fail-on-unschedulable", "-o", format}, &out, &errb)
		assert.Equal(t, exitUnschedulable, code, format)
		assert.NotEmpty(t, out.String(), "the answer is printed")
		assert.Contains(t, errb.String(), "4 pods cannot be scheduled")
	}
	_, _, code := nodeplan(t, "plan", "-f", in)
	assert.Equal(t, 0, code)
	_, _, code = nodeplan(t, "plan", "-f", "../../examples", "--fail-on-unschedulable")
	assert.Equal(t, 0, code, "every pod of the example is placed")
}
