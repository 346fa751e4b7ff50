package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

func TestNowFromInput(t *testing.T) {
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a, creationTimestamp: \"2026-01-01T00:00:00Z\"}\n"
	const heartbeat = "status: {conditions: [{type: Ready, status: \"True\", lastHeartbeatTime: \"2026-03-01T10:00:00Z\", lastTransitionTime: \"2026-01-01T00:01:00Z\"}]}\n"
	const lease = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: node-a, namespace: kube-node-lease, creationTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {holderIdentity: node-a, renewTime: \"2026-03-01T10:04:30.123456Z\"}\n"
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, creationTimestamp: \"2026-02-01T00:00:00Z\"}\nspec: {nodeName: node-a, containers: [{name: c, image: x}]}\nstatus: {phase: Running, startTime: \"2026-02-01T00:00:05Z\"}\n"
	cases := []struct {
		name, input                 string
		time, source, object, field string
		tracks                      bool
	}{
		{"Node heartbeat", node + heartbeat, "2026-03-01T10:00:00Z", nowFromNodeHeartbeat, `Node "node-a"`, "status.conditions[Ready].lastHeartbeatTime", true},
		{"Lease renewal", node + heartbeat + "---\n" + lease, "2026-03-01T10:04:30.123456Z", nowFromLeaseRenewal, `Lease "kube-node-lease/node-a"`, "spec.renewTime", true},
		{"pod start", node + "---\n" + pod, "2026-02-01T00:00:05Z", nowFromPodStart, `Pod "default/web"`, "status.startTime", true},
		{"creation times only", node, "2026-01-01T00:00:00Z", nowFromCreation, `Node "node-a"`, "metadata.creationTimestamp", false},
		{"a tie goes to the timestamp that tracks the dump",
			node + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, creationTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {nodeName: node-a, containers: [{name: c, image: x}]}\nstatus: {startTime: \"2026-01-01T00:00:00Z\"}\n",
			"2026-01-01T00:00:00Z", nowFromPodStart, `Pod "default/a"`, "status.startTime", true},
		{"nothing", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n", "1970-01-01T00:00:00Z", nowFromNothing, "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set, err := manifest.Parse([]byte(tc.input), "in.yaml")
			require.NoError(t, err)
			got := nowFromInput(set)
			want, err := time.Parse(time.RFC3339Nano, tc.time)
			require.NoError(t, err)
			assert.True(t, want.Equal(got.Time), "time %s, want %s", got.Time, want)
			assert.Equal(t, tc.source, got.Source)
			assert.Equal(t, tc.object, got.Object)
			assert.Equal(t, tc.field, got.Field)
			assert.Equal(t, tc.tracks, got.TracksDumpTime)
			assert.Equal(t, !tc.tracks, got.Warning != "", "an untracked time comes with a warning")
		})
	}
}

func TestDisruptSaysWhenItJudged(t *testing.T) {
	in, types := writeInput(t, "in.yaml", disruptInput), writeInput(t, "types.yaml", disruptTypes)
	args := []string{"disrupt", "-f", in, "--instance-types", types}
	type nowJSON struct {
		Now struct {
			Time           time.Time
			Source         string
			Object, Field  string
			TracksDumpTime bool
			Warning        string
		}
	}
	cases := []struct {
		name, now string
		source    string
		time      string
		warns     bool
	}{
		{"flag", "2026-01-01T01:00:00Z", nowFromFlag, "2026-01-01T01:00:00Z", false},
		{"default, from creation times only", "", nowFromCreation, "2026-01-01T00:30:00Z", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := args
			if tc.now != "" {
				a = append(a, "--now", tc.now)
			}
			out, stderr, code := nodeplan(t, append(a, "-o", "json")...)
			require.Equal(t, 0, code, stderr)
			var got nowJSON
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, tc.source, got.Now.Source)
			assert.Equal(t, tc.time, got.Now.Time.Format(time.RFC3339))
			assert.Equal(t, !tc.warns, got.Now.TracksDumpTime)
			assert.Equal(t, tc.warns, strings.Contains(stderr, "pass --now"), stderr)

			table, _, code := nodeplan(t, append(a, "-o", "table")...)
			require.Equal(t, 0, code)
			first, _, _ := strings.Cut(table, "\n")
			assert.Contains(t, first, tc.time, "the table's first line says when")

			y, _, code := nodeplan(t, append(a, "-o", "yaml")...)
			require.Equal(t, 0, code)
			first, _, _ = strings.Cut(y, "\n")
			assert.True(t, strings.HasPrefix(first, "# ") && strings.Contains(first, tc.time), "the YAML starts with a comment saying when: %q", first)
		})
	}
}
