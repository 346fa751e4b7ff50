package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// karpenter-disrupt is given a bound claim's PersistentVolume a second time, in the claim's
// namespace (once per namespace), and the input itself is left alone; plan inputs are not changed.
func TestOracleDocsCopyPVIntoClaimNamespace(t *testing.T) {
	in := &input{Kind: "disrupt", Docs: append(zonalPV("data-db", "test-zone-a"), zonalPV("data-db", "test-zone-a")[1])}
	docs := oracleDocs(in)
	require.Len(t, docs, 4)
	assert.Len(t, in.Docs, 3, "the input itself is not changed")
	assert.Equal(t, "PersistentVolume", docs[3]["kind"])
	assert.Equal(t, map[string]any{"name": "pv-data-db", "namespace": "default"}, docs[3]["metadata"])
	assert.Equal(t, in.Docs[0]["spec"], docs[3]["spec"])
	assert.NotContains(t, in.Docs[0]["metadata"], "namespace")

	in.Kind = "plan"
	assert.Len(t, oracleDocs(in), 3)
}
