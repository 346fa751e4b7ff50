package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/manifest"
)

// An interruption message among the input files deletes its node, and every output format
// carries the outcome and the drain plan.
func TestDisruptInterruptionAndDrainOutputs(t *testing.T) {
	dir := t.TempDir()
	in, types, events := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "types.yaml"), filepath.Join(dir, "events.json")
	docs := strings.Split(disruptInput, "---\n")
	for i, d := range docs {
		if strings.Contains(d, "kind: Node\n") && strings.Contains(d, "name: node-b\n") {
			docs[i] = d + "spec: {providerID: \"aws:///z1/i-0b\"}\n"
		}
	}
	withID := strings.Join(docs, "---\n")
	os.WriteFile(in, []byte(withID), 0o644)
	os.WriteFile(types, []byte(disruptTypes), 0o644)
	os.WriteFile(events, []byte(`[{"version":"0","id":"e1","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2",
	  "time":"2026-01-01T00:40:00Z","detail":{"instance-id":"i-0b","state":"stopping"}}]`), 0o644)
	args := []string{"disrupt", "-f", in, "-f", events, "--instance-types", types, "--now", "2026-01-01T01:00:00Z"}

	var out, errb bytes.Buffer
	if code := runVerified(t, append(args, "-o", "json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Commands []struct {
			Method, Detail string
			Candidates     []string
		}
		Interruptions []struct{ Kind, Outcome, Node string }
		Drains        []struct {
			Node, Terminates string
			Command          int
			Groups           []struct {
				Class string
				Pods  []struct{ Pod, Action, Destination string }
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(got.Commands) == 0 || got.Commands[0].Method != "interruption" || got.Commands[0].Candidates[0] != "node-b" || got.Commands[0].Detail == "" {
		t.Fatalf("want node-b interrupted first:\n%s", out.String())
	}
	if len(got.Interruptions) != 1 || got.Interruptions[0].Outcome != "Deleted" || got.Interruptions[0].Kind != "instance_stopped" {
		t.Fatalf("interruptions: %+v", got.Interruptions)
	}
	var drainB bool
	for _, d := range got.Drains {
		if d.Node == "node-b" {
			drainB = true
			if d.Command != 1 || len(d.Groups) != 1 || d.Groups[0].Pods[0].Pod != "default/app" || d.Groups[0].Pods[0].Action != "Evict" {
				t.Errorf("drain of node-b: %+v", d)
			}
		}
	}
	if !drainB {
		t.Fatalf("no drain of node-b:\n%s", out.String())
	}

	out.Reset()
	if code := runVerified(t, append(args, "-o", "table"), &out, &errb); code != 0 {
		t.Fatalf("table: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"interruption", "instance_stopped i-0b (node-b): Deleted, command 1", "drain plans", "default/app Evict"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if code := runVerified(t, append(args, "-o", "yaml"), &out, &errb); code != 0 {
		t.Fatalf("yaml: exit %d: %s", code, errb.String())
	}
	docs = strings.Split(out.String(), "\n---\n")
	var last struct {
		Interruptions []map[string]any `json:"interruptions"`
		Drains        []map[string]any `json:"drains"`
	}
	if err := yaml.Unmarshal([]byte(docs[len(docs)-1]), &last); err != nil || len(last.Interruptions) != 1 || len(last.Drains) == 0 {
		t.Fatalf("yaml's last document: %v %+v\n%s", err, last, out.String())
	}
}

// TestPlanSkipsInterruptionMessages: plan does not use interruption messages, and says so as
// it does for the other objects it skips (JSON "skipped", a note on stderr); disrupt reads
// them and skips nothing.
func TestPlanSkipsInterruptionMessages(t *testing.T) {
	events := writeInput(t, "events.yaml", `apiVersion: nodeplan/v1alpha1
kind: InterruptionMessages
messages:
- {version: "0", id: a, source: aws.ec2, detail-type: EC2 Spot Instance Interruption Warning, time: "2026-01-01T05:58:00Z",
   detail: {instance-id: i-0abc, instance-action: terminate}}
- {version: "0", id: b, source: aws.ec2, detail-type: EC2 Instance Rebalance Recommendation, time: "2026-01-01T05:59:00Z",
   detail: {instance-id: i-0abd}}
`)
	in := writeInput(t, "cluster.yaml", disruptInput)
	out, stderr, code := nodeplan(t, "plan", "-f", in, "-f", events, "--instance-types", writeInput(t, "types.yaml", disruptTypes), "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Skipped map[string]int `json:"skipped"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, map[string]int{manifest.InterruptionKind: 2}, got.Skipped)
	assert.Contains(t, stderr, "nodeplan: skipped 2 objects of kinds nodeplan does not plan with (InterruptionMessages 2)")

	out, stderr, code = nodeplan(t, "disrupt", "-f", in, "-f", events, "--instance-types", writeInput(t, "types2.yaml", disruptTypes), "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "skipped")
	assert.NotContains(t, out, `"skipped"`)
}
