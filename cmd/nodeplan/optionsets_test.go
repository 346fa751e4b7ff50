package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestOptionSetsListEachListOnce: the answer lists each distinct option list once; every
// claim's set is its options, cheapest first, and its instance-type In requirement names the
// same set (its values, in any order) instead of listing them.
func TestOptionSetsListEachListOnce(t *testing.T) {
	got := planJSON(t, "-f", "../../examples/")
	require.NotEmpty(t, got.NodeClaims)
	seen := map[string]bool{}
	for _, s := range got.InstanceTypeOptionSets {
		key := strings.Join(s, "\n")
		assert.False(t, seen[key], "a set is listed twice")
		seen[key] = true
	}
	for _, c := range got.NodeClaims {
		require.Less(t, c.InstanceTypeOptionSet, len(got.InstanceTypeOptionSets))
		options := got.InstanceTypeOptionSets[c.InstanceTypeOptionSet]
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
			assert.Equal(t, c.InstanceTypeOptionSet, *r.InstanceTypeOptionSet)
			assert.Nil(t, r.Values)
		}
		assert.Equal(t, 1, referred, "%s: the instance-type requirement names the claim's set", c.Name)
	}
}
