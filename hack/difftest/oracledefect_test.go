package main

import (
	"path/filepath"
	"slices"
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

// karpenter-disrupt is given each type's cheapest available offering first (its fake cloud
// provider launches the first one listed); offerings of one price keep their order, the input's
// catalog is not changed, and plan inputs keep theirs.
func TestOracleCatalogListsCheapestAvailableOfferingFirst(t *testing.T) {
	offer := func(zone, capacityType string, price float64, available bool) map[string]any {
		o := map[string]any{"zone": zone, "capacityType": capacityType, "price": price}
		if !available {
			o["available"] = false
		}
		return o
	}
	catalog := map[string]any{"instanceTypes": []any{map[string]any{"name": "c6g-4x8", "offerings": []any{
		offer("test-zone-a", "on-demand", 0.1119, true),
		offer("test-zone-b", "spot", 0.0200, false),
		offer("test-zone-c", "spot", 0.0359, true),
		offer("test-zone-a", "spot", 0.0359, true),
	}}}}
	in := &input{Kind: "disrupt", Catalog: catalog}
	got := oracleCatalog(in)
	require.NotNil(t, got)
	zones := func(c map[string]any) []string {
		var z []string
		for _, o := range c["instanceTypes"].([]any)[0].(map[string]any)["offerings"].([]any) {
			z = append(z, o.(map[string]any)["zone"].(string)+"/"+o.(map[string]any)["capacityType"].(string))
		}
		return z
	}
	assert.Equal(t, []string{"test-zone-c/spot", "test-zone-a/spot", "test-zone-a/on-demand", "test-zone-b/spot"}, zones(got))
	assert.Equal(t, []string{"test-zone-a/on-demand", "test-zone-b/spot", "test-zone-c/spot", "test-zone-a/spot"}, zones(catalog), "the input's catalog is not changed")

	in.Kind = "plan"
	assert.Nil(t, oracleCatalog(in))
}

// The oracle is pointed at its own input and catalog only when write put them in dir.
func TestOracleArgsReadOracleFiles(t *testing.T) {
	dir := t.TempDir()
	in := &input{Kind: "disrupt", Catalog: map[string]any{"instanceTypes": []any{}}}
	require.NoError(t, in.write(dir))
	args := in.oracleArgs(dir)
	assert.Equal(t, filepath.Join(dir, oracleInstanceTypes), args[slices.Index(args, "--instance-types")+1])
	assert.Equal(t, filepath.Join(dir, "input.yaml"), args[slices.Index(args, "-f")+1], "no documents added, so the input as it is")

	plan := &input{Kind: "plan", Catalog: map[string]any{"instanceTypes": []any{}}}
	dir = t.TempDir()
	require.NoError(t, plan.write(dir))
	args = plan.oracleArgs(dir)
	assert.Equal(t, filepath.Join(dir, "instance-types.yaml"), args[slices.Index(args, "--instance-types")+1])
}
