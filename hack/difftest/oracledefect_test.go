package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The oracle-pv: check drops only the PersistentVolumes' nodeAffinity, leaves the input it
// was given alone, and says when nothing changed (no class without a volume to blame).
func TestWithoutPVNodeAffinity(t *testing.T) {
	in := &input{Kind: "disrupt", Docs: zonalPV("data-db", "test-zone-a")}
	c, changed := withoutPVNodeAffinity(in)
	assert.True(t, changed)
	assert.NotContains(t, c.Docs[0]["spec"], "nodeAffinity")
	assert.Contains(t, c.Docs[0]["spec"], "claimRef")
	assert.Contains(t, in.Docs[0]["spec"], "nodeAffinity", "the input itself is not changed")
	_, changed = withoutPVNodeAffinity(c)
	assert.False(t, changed)
}
