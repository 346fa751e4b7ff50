package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/manifest"
)

// yamlDocs splits -o yaml output into its NodeClaims and the Events of its Lists.
func yamlDocs(t *testing.T, out string) (claims []v1.NodeClaim, events []corev1.Event) {
	t.Helper()
	for _, d := range strings.Split(out, "---\n") {
		var head struct{ Kind string }
		require.NoError(t, yaml.Unmarshal([]byte(d), &head))
		switch head.Kind {
		case "":
			continue // comments only
		case "NodeClaim":
			var nc v1.NodeClaim
			require.NoError(t, yaml.UnmarshalStrict([]byte(d), &nc))
			claims = append(claims, nc)
		case "List":
			var list struct {
				APIVersion, Kind string
				Items            []corev1.Event
			}
			require.NoError(t, yaml.UnmarshalStrict([]byte(d), &list))
			assert.Equal(t, "v1", list.APIVersion)
			events = append(events, list.Items...)
		default:
			t.Fatalf("unexpected document of kind %s:\n%s", head.Kind, d)
		}
	}
	return claims, events
}

const planEverythingInput = disruptInput + `---
apiVersion: v1
kind: Pod
metadata: {name: fits-existing, namespace: default}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: needs-new, namespace: default}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: small}
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-big, namespace: shop}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "64"}}}]}
`

func TestPlanYAMLKeepsEveryPod(t *testing.T) {
	in, types := writeInput(t, "in.yaml", planEverythingInput), writeInput(t, "types.yaml", disruptTypes)
	args := []string{"-f", in, "--instance-types", types}
	want := planJSON(t, args...)
	require.NotEmpty(t, want.NodeClaims)
	require.NotEmpty(t, want.ExistingNodes)
	require.NotEmpty(t, want.PodErrors)

	out, stderr, code := nodeplan(t, append(append([]string{"plan"}, args...), "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	claims, events := yamlDocs(t, out)
	require.Len(t, claims, len(want.NodeClaims))

	// Where every pod goes, by the JSON plan and by the events.
	wantTarget, gotTarget := map[string]string{}, map[string]string{}
	for i, c := range want.NodeClaims {
		for _, p := range c.Pods {
			wantTarget[p] = "NodeClaim/" + claims[i].Name
		}
	}
	for _, n := range want.ExistingNodes {
		for _, p := range n.Pods {
			wantTarget[p] = "Node/" + n.Name
		}
	}
	for _, e := range want.PodErrors {
		wantTarget[e.Pod] = "unschedulable: " + e.Reason
	}
	for _, e := range events {
		require.Equal(t, "Pod", e.InvolvedObject.Kind)
		pod := e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
		_, dup := gotTarget[pod]
		require.False(t, dup, "one event per pod: %s", pod)
		switch e.Reason {
		case eventNominated:
			require.NotNil(t, e.Related)
			gotTarget[pod] = e.Related.Kind + "/" + e.Related.Name
			assert.Equal(t, corev1.EventTypeNormal, e.Type)
		case eventFailedScheduling:
			gotTarget[pod] = "unschedulable: " + strings.TrimPrefix(e.Message, "Failed to schedule pod, ")
			assert.Equal(t, corev1.EventTypeWarning, e.Type)
		default:
			t.Errorf("unexpected event reason %s", e.Reason)
		}
	}
	assert.Equal(t, wantTarget, gotTarget)
}

func TestDisruptYAMLKeepsEveryDecision(t *testing.T) {
	const protected = `---
apiVersion: v1
kind: Node
metadata:
  name: node-c
  creationTimestamp: "2026-01-01T00:00:00Z"
  annotations: {karpenter.sh/do-not-disrupt: "true"}
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: big, topology.kubernetes.io/zone: z1,
    karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux, karpenter.sh/initialized: "true"}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "80"}}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: small}
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	in, types := writeInput(t, "in.yaml", disruptInput+protected), writeInput(t, "types.yaml", disruptTypes)
	args := []string{"disrupt", "-f", in, "--instance-types", types, "--now", "2026-01-01T01:00:00Z"}
	js, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var want disruptOutput
	require.NoError(t, json.Unmarshal([]byte(js), &want))
	require.NotEmpty(t, want.Commands)
	require.NotEmpty(t, want.Blocked)
	require.NotEmpty(t, want.Provisioned)

	out, stderr, code := nodeplan(t, append(args, "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	claims, events := yamlDocs(t, out)

	type decision struct {
		Action       string
		Candidates   []string
		Launches     []string
		Destinations []string
	}
	var wantCommands []decision
	wantBlocked := map[string]string{}
	wantNominated := map[string]string{}
	for i, c := range want.Provisioned {
		for _, p := range c.Pods {
			wantNominated[p] = claims[i].Name
		}
	}
	replacements, destinations, moved := len(want.Provisioned), 0, 0
	savings := map[string]float64{}
	for i, c := range want.Commands {
		savings[fmt.Sprintf("command-%d", i+1)] = c.SavingsPerHour
		d := decision{Action: c.Method + "/Delete", Candidates: c.Candidates}
		if len(c.Replacements) > 0 {
			d.Action = c.Method + "/Replace"
		}
		for _, m := range c.Moves {
			moved++
			switch {
			case m.Node != "":
				wantNominated[m.Pod] = m.Node
			case m.Replacement != nil:
				wantNominated[m.Pod] = claims[replacements+*m.Replacement].Name
			case m.Provisioned != nil:
				assert.Equal(t, claims[*m.Provisioned].Name, wantNominated[m.Pod], "a pod moved to a provisioned claim is nominated there")
			}
		}
		for range c.Replacements {
			d.Launches = append(d.Launches, claims[replacements].Name)
			replacements++
		}
		for _, dst := range c.Destinations {
			d.Destinations = append(d.Destinations, dst)
			destinations++
		}
		wantCommands = append(wantCommands, d)
	}
	require.Len(t, claims, replacements, "a NodeClaim per provisioned claim and replacement")
	require.NotZero(t, destinations, "the input sends a candidate's pods to an existing node")
	require.NotZero(t, moved, "the commands move pods")
	for _, b := range want.Blocked {
		wantBlocked[b.Node] = b.Reason
	}

	byCommand := map[string]*decision{}
	var order []string
	gotBlocked, gotNominated := map[string]string{}, map[string]string{}
	for _, e := range events {
		_, command, _ := strings.Cut(e.Name, ".")
		switch e.Reason {
		case eventDisruptionTerminating, eventDisruptionLaunching, eventDisruptionDestination:
			d, ok := byCommand[command]
			if !ok {
				d = &decision{Action: e.Action}
				byCommand[command] = d
				order = append(order, command)
			}
			assert.Equal(t, d.Action, e.Action, "one action per command")
			switch e.Reason {
			case eventDisruptionTerminating:
				assert.Equal(t, "Node", e.InvolvedObject.Kind)
				assert.Contains(t, e.Message, fmt.Sprintf("$%.4f/h", savings[command]), "the command's savings")
				d.Candidates = append(d.Candidates, e.InvolvedObject.Name)
			case eventDisruptionLaunching:
				assert.Equal(t, "NodeClaim", e.InvolvedObject.Kind)
				d.Launches = append(d.Launches, e.InvolvedObject.Name)
			default:
				d.Destinations = append(d.Destinations, e.InvolvedObject.Name)
			}
		case eventDisruptionBlocked:
			gotBlocked[e.InvolvedObject.Name] = e.Message
		case eventNominated:
			gotNominated[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = e.Related.Name
		default:
			t.Errorf("unexpected event reason %s", e.Reason)
		}
	}
	var gotCommands []decision
	for _, c := range order {
		sort.Strings(byCommand[c].Candidates)
		gotCommands = append(gotCommands, *byCommand[c])
	}
	assert.Equal(t, wantCommands, gotCommands)
	assert.Equal(t, wantBlocked, gotBlocked)
	assert.Equal(t, wantNominated, gotNominated)
}

func TestEventsNameNodesAndInFlightNodeClaims(t *testing.T) {
	set, err := manifest.Parse([]byte("apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"), "in.yaml")
	require.NoError(t, err)
	assert.Equal(t, "Node", existingRef(set, "node-a").Kind)
	claim := existingRef(set, "default-x7k2p")
	assert.Equal(t, []string{v1.APIVersion, "NodeClaim"}, []string{claim.APIVersion, claim.Kind}, "no Node of that name: a NodeClaim still in flight")
}
