package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
)

const disruptInput = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: 100%}]}
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: big, topology.kubernetes.io/zone: z1,
    karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux, karpenter.sh/initialized: "true"}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "80"}}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: big, topology.kubernetes.io/zone: z1,
    karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux, karpenter.sh/initialized: "true"}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "80"}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default, creationTimestamp: "2026-01-01T00:30:00Z"}
spec:
  nodeName: node-b
  containers: [{name: app, image: app, resources: {requests: {cpu: "1", memory: 1Gi}}}]
status: {phase: Running}
`

const disruptTypes = `instanceTypes:
- name: small
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 4Gi, pods: "20"}
  offerings: [{zone: z1, capacityType: on-demand, price: 0.1}]
- name: big
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "8", memory: 16Gi, pods: "80"}
  offerings: [{zone: z1, capacityType: on-demand, price: 0.4}]
`

func TestDisrupt(t *testing.T) {
	dir := t.TempDir()
	in, types := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml")
	os.WriteFile(in, []byte(disruptInput), 0o644)
	os.WriteFile(types, []byte(disruptTypes), 0o644)

	var out, errb bytes.Buffer
	if code := runVerified(t, []string{"disrupt", "-f", in, "--instance-types", types, "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Commands []struct {
			Method, Reason string
			Candidates     []string
			Replacements   []struct {
				NodePool, InstanceType string
				PricePerHour           float64
			}
			SavingsPerHour float64
		}
		Blocked []struct{ Node, Reason string }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// default --now is the latest timestamp (00:30): both nodes consolidatable (0s)
	if len(got.Commands) != 2 || got.Commands[0].Reason != "Empty" || got.Commands[0].Candidates[0] != "node-a" ||
		got.Commands[1].Method != "single-node" || got.Commands[1].Replacements[0].InstanceType != "small" || got.Commands[1].SavingsPerHour != 0.3 {
		t.Fatalf("unexpected plan:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `"blocked": []`) {
		t.Errorf("want an empty blocked list:\n%s", out.String())
	}

	for _, format := range []string{"table", "yaml"} {
		out.Reset()
		if code := runVerified(t, []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T01:00:00Z", "-o", format}, &out, &errb); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errb.String())
		}
		if !strings.Contains(out.String(), "small") {
			t.Errorf("-o %s: want the replacement in the output:\n%s", format, out.String())
		}
	}
	errb.Reset()
	if code := runVerified(t, []string{"disrupt", "-f", in, "--now", "yesterday"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--now") {
		t.Errorf("bad --now: exit %d, %q", code, errb.String())
	}
}

// TestDisruptBlockersJSON: blocked[].blockers lists every reason a node is kept, by code and
// object, the first the one its reason explains.
func TestDisruptBlockersJSON(t *testing.T) {
	dir := t.TempDir()
	in, types := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml")
	input := strings.Replace(disruptInput, "consolidateAfter: 0s, budgets: [{nodes: 100%}]", `consolidateAfter: 2h, budgets: [{nodes: "0"}]`, 1)
	input = strings.Replace(input, "metadata: {name: app, namespace: default,", `metadata: {name: app, namespace: default, annotations: {karpenter.sh/do-not-disrupt: "true"},`, 1)
	os.WriteFile(in, []byte(input), 0o644)
	os.WriteFile(types, []byte(disruptTypes), 0o644)

	var out, errb bytes.Buffer
	if code := runVerified(t, []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T01:00:00Z", "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	type blocker struct{ Code, Object, Budget string }
	var got struct {
		Blocked []struct {
			Node, Reason string
			Blockers     []blocker
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := map[string][]blocker{
		"node-a": {{Code: "ConsolidateAfter", Object: "default"}, {Code: "Budget", Object: "default", Budget: "Empty"}},
		"node-b": {{Code: "DoNotDisruptPod", Object: "default/app"}, {Code: "ConsolidateAfter", Object: "default"},
			{Code: "Budget", Object: "default", Budget: "Underutilized"}},
	}
	if len(got.Blocked) != len(want) {
		t.Fatalf("blocked: %+v", got.Blocked)
	}
	for _, b := range got.Blocked {
		if !reflect.DeepEqual(b.Blockers, want[b.Node]) {
			t.Errorf("%s: blockers %+v, want %+v (reason %q)", b.Node, b.Blockers, want[b.Node], b.Reason)
		}
	}
}

// TestMovesTable: the table says where each command's displaced pods go, the first three.
func TestMovesTable(t *testing.T) {
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	}
	res := &disruption.Result{Commands: []disruption.Command{
		{Method: disruption.MethodEmptiness, Candidates: []string{"n0"}},
		{Method: disruption.MethodInterruption, Candidates: []string{"n1"}, Moves: []disruption.PodMove{
			{Pod: pod("a"), Node: "node-b", Replacement: -1, Provisioned: -1},
			{Pod: pod("b"), Replacement: -1, Provisioned: 1},
			{Pod: pod("c"), Replacement: -1, Provisioned: -1, Pending: disruption.MoveWaits},
			{Pod: pod("d"), Replacement: 0, Provisioned: -1},
		}},
	}}
	var b bytes.Buffer
	writeMovesTable(&b, res)
	want := "\npods displaced by the commands:\n  command 2: default/a -> node-b; default/b -> provisioned 2; default/c -> pending (Waits) (+1)\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}
