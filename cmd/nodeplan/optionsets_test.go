package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestOptionSetsListEachListOnce: with --option-sets the answer lists each distinct option
// list once; every claim's set is its options, cheapest first, and its instance-type In
// requirement names the same set (its values, in any order) instead of listing them.
func TestOptionSetsListEachListOnce(t *testing.T) {
	got := planJSON(t, "-f", "../../examples/", "--option-sets")
	require.NotEmpty(t, got.NodeClaims)
	seen := map[string]bool{}
	for _, s := range got.InstanceTypeOptionSets {
		key := strings.Join(s, "\n")
		assert.False(t, seen[key], "a set is listed twice")
		seen[key] = true
	}
	for _, c := range got.NodeClaims {
		require.NotNil(t, c.InstanceTypeOptionSet, c.Name)
		assert.Nil(t, c.InstanceTypeOptions, "%s: the options are named by their set", c.Name)
		require.Less(t, *c.InstanceTypeOptionSet, len(got.InstanceTypeOptionSets))
		options := got.InstanceTypeOptionSets[*c.InstanceTypeOptionSet]
		assert.Contains(t, options, c.InstanceType, c.Name)
		referred := 0
		for _, r := range c.Requirements {
			if r.InstanceTypeOptionSet == nil {
				assert.NotEmpty(t, r.Values, "%s: requirement %s lists its values", c.Name, r.Key)
				continue
			}
			referred++
			assert.Equal(t, corev1.LabelInstanceTypeStable, r.Key)
			assert.Equal(t, corev1.NodeSelectorOpIn, r.Operator)
			assert.Equal(t, *c.InstanceTypeOptionSet, *r.InstanceTypeOptionSet)
			assert.Nil(t, r.Values)
		}
		assert.Equal(t, 1, referred, "%s: the instance-type requirement names the claim's set", c.Name)
	}
}

// TestOptionSetsExpandToTheDefaultAnswer: the default answer keeps the CLI contract (every
// claim lists instanceTypeOptions and its requirements' values; no instanceTypeOptionSets),
// and the --option-sets answer, its sets put back, is the default answer.
func TestOptionSetsExpandToTheDefaultAnswer(t *testing.T) {
	for _, cmd := range []string{"plan", "disrupt"} {
		t.Run(cmd, func(t *testing.T) {
			plain, stderr, code := nodeplan(t, cmd, "-f", "../../examples/", "-o", "json")
			require.Equal(t, 0, code, stderr)
			shared, stderr, code := nodeplan(t, cmd, "-f", "../../examples/", "-o", "json", "--option-sets")
			require.Equal(t, 0, code, stderr)
			var want, got map[string]any
			require.NoError(t, json.Unmarshal([]byte(plain), &want))
			require.NoError(t, json.Unmarshal([]byte(shared), &got))
			assert.NotContains(t, want, "instanceTypeOptionSets")
			claims := expandOptionSets(t, got)
			if cmd == "plan" {
				require.NotEmpty(t, claims, "the example plans NodeClaims")
			}
			for _, c := range claimsOf(want) {
				assert.NotEmpty(t, c["instanceTypeOptions"], "a claim lists its options")
				assert.NotContains(t, c, "instanceTypeOptionSet")
			}
			assert.Equal(t, want, got)
		})
	}
}

// claimsOf is every claim of a plan or disrupt answer.
func claimsOf(doc map[string]any) []map[string]any {
	var out []map[string]any
	add := func(list any) {
		for _, c := range asSlice(list) {
			out = append(out, c.(map[string]any))
		}
	}
	add(doc["nodeClaims"])
	add(doc["provisioned"])
	for _, cmd := range asSlice(doc["commands"]) {
		add(cmd.(map[string]any)["replacements"])
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// expandOptionSets rewrites an --option-sets answer into the default form, as a reader of
// the JSON would, and returns its claims.
func expandOptionSets(t *testing.T, doc map[string]any) []map[string]any {
	t.Helper()
	sets := asSlice(doc["instanceTypeOptionSets"])
	delete(doc, "instanceTypeOptionSets")
	claims := claimsOf(doc)
	for _, c := range claims {
		i := int(c["instanceTypeOptionSet"].(float64))
		require.Less(t, i, len(sets))
		c["instanceTypeOptions"] = sets[i]
		delete(c, "instanceTypeOptionSet")
		for _, r := range asSlice(c["requirements"]) {
			r := r.(map[string]any)
			if j, ok := r["instanceTypeOptionSet"]; ok {
				values := slices.Clone(asSlice(sets[int(j.(float64))]))
				slices.SortFunc(values, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				r["values"] = values
				delete(r, "instanceTypeOptionSet")
			}
		}
	}
	return claims
}
