package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/verify"
)

// TestKarpenterModeReportsViolations: on an input where Karpenter's own plan breaks a zone
// spread once launched (karpenter-plan launches spread-0 and spread-2 in one zone: pods the
// spread selects on NodeClaims still open over zones count nowhere), --packing Karpenter gives
// that plan and names the broken rule in every output format; the default keeps the spread
// and reports nothing.
func TestKarpenterModeReportsViolations(t *testing.T) {
	args := func(mode, output string) []string {
		return []string{"plan", "-f", "testdata/karpenter-breaks-spread/input.yaml",
			"--instance-types", "testdata/karpenter-breaks-spread/instance-types.yaml", "--packing", mode, "-o", output}
	}
	plan := func(mode, output string) string {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(args(mode, output), &out, &errOut), errOut.String())
		return out.String()
	}

	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(plan("Karpenter", "json")), &got))
	require.Len(t, got.Violations, 1)
	v := got.Violations[0]
	assert.Equal(t, verify.TopologySpread, v.Code)
	assert.Equal(t, "default/spread-2", v.Pod)
	assert.Equal(t, "topology.kubernetes.io/zone", v.Key)
	assert.Equal(t, int64(2), v.Got)
	require.NotNil(t, v.Claim)
	assert.Contains(t, got.NodeClaims[*v.Claim].Pods, "default/spread-2")

	table := plan("Karpenter", "table")
	assert.Contains(t, table, "breaks 1 required rules as launched")
	assert.Contains(t, table, string(verify.TopologySpread)+":")

	var warnings []corev1.Event
	for _, doc := range strings.Split(plan("Karpenter", "yaml"), "\n---\n") {
		var list struct {
			Kind  string         `json:"kind"`
			Items []corev1.Event `json:"items"`
		}
		if yaml.Unmarshal([]byte(doc), &list) == nil && list.Kind == "List" {
			for _, e := range list.Items {
				if e.Reason == eventConstraintViolated {
					warnings = append(warnings, e)
				}
			}
		}
	}
	require.Len(t, warnings, 1)
	assert.Equal(t, corev1.EventTypeWarning, warnings[0].Type)
	assert.Equal(t, "spread-2", warnings[0].InvolvedObject.Name)

	page := plan("Karpenter", "html")
	assert.Contains(t, page, "breaks 1 required rules as launched")
	assert.Contains(t, page, string(verify.TopologySpread)+":")
	assert.Contains(t, page, "default/spread-2")

	var def planOutput
	require.NoError(t, json.Unmarshal([]byte(plan("CostAware", "json")), &def))
	assert.Empty(t, def.Violations)
	assert.Empty(t, def.PodErrors)
	assert.NotContains(t, plan("CostAware", "table"), "required rules as launched")
	assert.NotContains(t, plan("CostAware", "html"), "required rules as launched")
}
