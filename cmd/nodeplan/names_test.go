package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// yamlClaimNames are the metadata.names of the NodeClaims of a -o yaml output, in order.
func yamlClaimNames(t *testing.T, out string) []string {
	var names []string
	for _, d := range strings.Split(out, "---\n") {
		var obj struct {
			Kind     string
			Metadata struct{ Name string }
		}
		require.NoError(t, yaml.Unmarshal([]byte(d), &obj))
		if obj.Kind == "NodeClaim" {
			names = append(names, obj.Metadata.Name)
		}
	}
	return names
}

// TestOneNamePerClaim: a planned NodeClaim has one name in the JSON, the YAML, the table and
// wherever disrupt refers to it (moves, destinations, drains, blockers).
func TestOneNamePerClaim(t *testing.T) {
	plan := planJSON(t, "-f", "../../examples")
	var names []string
	for _, c := range plan.NodeClaims {
		names = append(names, c.Name)
	}
	require.NotEmpty(t, names)
	assert.Equal(t, "general-purpose-0001", names[0])
	yamlOut, _, _ := nodeplan(t, "plan", "-f", "../../examples", "-o", "yaml")
	assert.Equal(t, names, yamlClaimNames(t, yamlOut))
	table, _, _ := nodeplan(t, "plan", "-f", "../../examples")
	for _, n := range names {
		assert.Contains(t, table, n+" ")
	}

	args := append([]string{"disrupt"}, realClusterArgs("dump.yaml", "karpenter.yaml")...)
	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var got disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var claims []string
	for _, c := range got.Provisioned {
		claims = append(claims, c.Name)
	}
	for _, c := range got.Commands {
		for _, r := range c.Replacements {
			claims = append(claims, r.Name)
		}
	}
	require.Contains(t, claims, "provisioned-1")
	require.Contains(t, claims, "command-2-replacement-1")
	yamlOut, _, _ = nodeplan(t, append(args, "-o", "yaml")...)
	assert.Equal(t, claims, yamlClaimNames(t, yamlOut))
	known := map[string]bool{}
	for _, c := range claims {
		known[c] = true
	}
	for _, c := range got.Commands {
		for _, m := range c.Moves {
			if m.NodeClaim != "" {
				assert.True(t, known[m.NodeClaim], "move to %s", m.NodeClaim)
			}
		}
	}
	for _, d := range got.Drains {
		for _, g := range d.Groups {
			for _, p := range g.Pods {
				if strings.HasPrefix(p.Destination, "provisioned-") || strings.HasPrefix(p.Destination, "command-") {
					assert.True(t, known[p.Destination], "drain destination %s", p.Destination)
				}
			}
		}
	}
	table, _, _ = nodeplan(t, args...)
	for _, c := range claims {
		assert.Contains(t, table, c+" ")
	}
}
