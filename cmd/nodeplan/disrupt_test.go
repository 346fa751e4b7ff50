package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/cluster"
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
	input := strings.Replace(disruptInput, "consolidateAfter: 0s, budgets: [{nodes: 100%}]", `consolidateAfter: 2h, budgets: [{nodes: "0"}]`, 1)
	out := disruptJSON(t, doNotDisrupt(input))
	var got struct {
		Blocked []struct {
			Node, Reason string
			Blockers     []blockerOutput
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	zero, two := 0, 2
	// consolidateAfter 2h from each node's creation (00:00); the budget "0" allows none of 2
	consolidateAfter := blockerOutput{Code: "ConsolidateAfter", Object: "default", At: "2026-01-01T02:00:00Z", Duration: "2h0m0s"}
	budget := func(reason string) blockerOutput {
		return blockerOutput{Code: "Budget", Object: "default", Budget: reason, Allowed: &zero, Nodes: &two, Disrupting: &zero}
	}
	want := map[string][]blockerOutput{
		"node-a": {consolidateAfter, budget("Empty")},
		"node-b": {{Code: "DoNotDisruptPod", Object: "default/app", Pod: "default/app", Annotation: "true"}, consolidateAfter, budget("Underutilized")},
	}
	if len(got.Blocked) != len(want) {
		t.Fatalf("blocked: %+v", got.Blocked)
	}
	for _, b := range got.Blocked {
		var data []blockerOutput
		for i, x := range b.Blockers {
			if x.Reason == "" {
				t.Errorf("%s: blocker %d has no reason", b.Node, i)
			}
			data = append(data, blockerData(x))
		}
		if b.Reason != b.Blockers[0].Reason {
			t.Errorf("%s: reason %q is not its first blocker's %q", b.Node, b.Reason, b.Blockers[0].Reason)
		}
		if !reflect.DeepEqual(data, want[b.Node]) {
			t.Errorf("%s: blockers\n got %s\nwant %s", b.Node, jsonText(data), jsonText(want[b.Node]))
		}
	}
}

// disruptJSON runs disrupt -o json (verified) on input with disruptTypes at 01:00.
func disruptJSON(t *testing.T, input string) *bytes.Buffer {
	t.Helper()
	dir := t.TempDir()
	in, types := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml")
	os.WriteFile(in, []byte(input), 0o644)
	os.WriteFile(types, []byte(disruptTypes), 0o644)
	var out, errb bytes.Buffer
	if code := runVerified(t, []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T01:00:00Z", "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return &out
}

// doNotDisrupt annotates disruptInput's pod app karpenter.sh/do-not-disrupt=true.
func doNotDisrupt(input string) string {
	return strings.Replace(input, "metadata: {name: app, namespace: default,", `metadata: {name: app, namespace: default, annotations: {karpenter.sh/do-not-disrupt: "true"},`, 1)
}

// blockerData is b without its English: what a test of the data compares.
func blockerData(b blockerOutput) blockerOutput {
	b.Reason = ""
	return b
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDisruptDrainCodesJSON: a drain says why each pod waits and why the drain stalls as
// codes, with the objects they concern, next to the English.
func TestDisruptDrainCodesJSON(t *testing.T) {
	input := strings.Replace(disruptInput, "  name: node-b\n", "  name: node-b\n  deletionTimestamp: \"2026-01-01T00:40:00Z\"\n  finalizers: [karpenter.sh/termination]\n", 1)
	out := disruptJSON(t, doNotDisrupt(input))
	var got struct {
		Drains []drainOutput `json:"drains"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// node-a, empty, is deleted by emptiness: its drain is first, node-b's second
	if len(got.Drains) != 2 || got.Drains[1].Node != "node-b" || len(got.Drains[1].Groups) != 1 || len(got.Drains[1].Groups[0].Pods) != 1 {
		t.Fatalf("want node-b's drain with its one pod:\n%s", out.String())
	}
	if d := got.Drains[0]; d.StallCode != "" || d.Stalled != "" || d.Waiting != nil {
		t.Errorf("node-a's drain does not stall: %+v", d)
	}
	d := got.Drains[1]
	if d.StallCode != string(disruption.StallNoDeadline) || d.Stalled == "" || !reflect.DeepEqual(d.Waiting, []string{"default/app"}) {
		t.Errorf("stall: code %q, %q, waiting %v", d.StallCode, d.Stalled, d.Waiting)
	}
	p := d.Groups[0].Pods[0]
	// node-a goes too: the pod needs a new NodeClaim once it may leave
	want := podDrainOutput{Pod: "default/app", Action: string(disruption.DrainWaitDoNotDisrupt), Code: string(disruption.PodDrainDoNotDisrupt),
		Annotation: "true", PendingCode: string(disruption.PendingNewNodeClaim), NodePool: "default"}
	if p.Reason == "" || p.Pending == "" {
		t.Errorf("pod drain without reason or pending: %+v", p)
	}
	p.Reason, p.Pending = "", ""
	if !reflect.DeepEqual(p, want) {
		t.Errorf("pod drain\n got %s\nwant %s", jsonText(p), jsonText(want))
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
			{Move: cluster.Move{Pod: pod("a"), To: "node-b", Claim: -1}, Provisioned: -1},
			{Move: cluster.Move{Pod: pod("b"), Claim: -1}, Provisioned: 1},
			{Move: cluster.Move{Pod: pod("c"), Claim: -1}, Provisioned: -1, Pending: disruption.MoveWaits},
			{Move: cluster.Move{Pod: pod("d"), Claim: 0}, Provisioned: -1},
		}},
	}}
	var b bytes.Buffer
	writeMovesTable(&b, res)
	want := "\npods displaced by the commands:\n  command 2: default/a -> node-b; default/b -> provisioned-2; default/c -> pending (Waits) (+1)\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// TestDisruptPrices: disrupt reports the cluster's price now ($0.40 + $0.40), after its
// commands (node-a deleted, node-b replaced by a $0.10 small) and the least any plan of its one
// pod can cost (1 of small's 2 vCPU: $0.05), in every format.
func TestDisruptPrices(t *testing.T) {
	var got disruptOutput
	out := disruptJSON(t, disruptInput)
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got.PricePerHourNow != 0.8 || got.PricePerHourAfter != 0.1 || got.LowerBoundPerHour != 0.05 {
		t.Fatalf("now %v, after %v, bound %v; want 0.8, 0.1, 0.05", got.PricePerHourNow, got.PricePerHourAfter, got.LowerBoundPerHour)
	}
	dir := t.TempDir()
	in, types := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml")
	os.WriteFile(in, []byte(disruptInput), 0o644)
	os.WriteFile(types, []byte(disruptTypes), 0o644)
	want := "$0.8000/hour now, $0.1000/hour after these commands; lower bound from scratch $0.0500/hour"
	for _, format := range []string{"table", "yaml"} {
		var out, errb bytes.Buffer
		if code := runVerified(t, []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T01:00:00Z", "-o", format}, &out, &errb); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errb.String())
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("-o %s: want %q in:\n%s", format, want, out.String())
		}
	}
}

// TestDisruptListsEveryPendingPod: disrupt says where each pending pod of the input goes —
// an existing node, a provisioned NodeClaim, or nowhere with its pod error — in JSON
// (pendingPods), the table (the node's "+N pods" and the pods that cannot be scheduled),
// -o yaml (Nominated and FailedScheduling events), and --fail-on-unschedulable counts the
// ones it cannot place.
func TestDisruptListsEveryPendingPod(t *testing.T) {
	pending := func(name, cpu string) string {
		return `---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, namespace: default}
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: "` + cpu + `", memory: 1Gi}}}]
`
	}
	// fits goes to an existing node, new (12 cpu) needs an xl NodeClaim, huge fits no
	// instance type.
	dir := t.TempDir()
	in, types := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml")
	os.WriteFile(in, []byte(disruptInput+pending("fits", "1")+pending("new", "12")+pending("huge", "100")), 0o644)
	os.WriteFile(types, []byte(disruptTypes+`- name: xl
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "16", memory: 32Gi, pods: "80"}
  offerings: [{zone: z1, capacityType: on-demand, price: 0.8}]
`), 0o644)
	args := []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T06:00:00Z"}

	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		PendingPods []moveOutput `json:"pendingPods"`
		Provisioned []claimOutput
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	type dest struct{ pod, node, claim, pending, code string }
	var dests []dest
	fitsOn := ""
	for _, m := range got.PendingPods {
		if m.Pod == "default/fits" {
			fitsOn, m.Node = m.Node, "node-a or node-b"
		}
		dests = append(dests, dest{m.Pod, m.Node, m.NodeClaim, m.Pending, m.Code})
	}
	want := []dest{
		{"default/fits", "node-a or node-b", "", "", ""},
		{"default/huge", "", "", "Unschedulable", "InsufficientResource"},
		{"default/new", "", "provisioned-1", "", ""},
	}
	if !reflect.DeepEqual(dests, want) || (fitsOn != "node-a" && fitsOn != "node-b") {
		t.Fatalf("pendingPods %+v (fits on %q), want %+v", dests, fitsOn, want)
	}
	if len(got.Provisioned) != 1 || !reflect.DeepEqual(got.Provisioned[0].Pods, []string{"default/new"}) {
		t.Fatalf("provisioned %+v, want one claim for default/new", got.Provisioned)
	}

	table, _, code := nodeplan(t, args...)
	if code != 0 || !strings.Contains(table, "default/huge") || !regexpMatch(fitsOn+`\s+kept \(\+1 pods\)`, table) {
		t.Fatalf("the table misses the unschedulable pod or the pod placed on %s:\n%s", fitsOn, table)
	}
	yamlOut, _, _ := nodeplan(t, append(args, "-o", "yaml")...)
	for _, want := range []string{"name: fits.nominated", "Pod should schedule on: node/" + fitsOn, "name: huge.failed-scheduling"} {
		if !strings.Contains(yamlOut, want) {
			t.Errorf("-o yaml lacks %q", want)
		}
	}

	var o, e bytes.Buffer
	if code := run(append(args, "--fail-on-unschedulable"), &o, &e); code != exitUnschedulable || !strings.Contains(e.String(), "1 pods cannot be scheduled") {
		t.Fatalf("--fail-on-unschedulable: exit %d, stderr %q; want %d for default/huge", code, e.String(), exitUnschedulable)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
