package manifest

import (
	"bytes"
	"testing"

	"github.com/nodeplan/nodeplan/internal/gendump"
	"github.com/nodeplan/nodeplan/internal/mutate"
)

// TestFastPathOnDumps: kubectl-style dumps (YAML and JSON, one List each) are read from
// their plain JSON, and give what the general way gives, as do deterministic mutations of
// them (broken lines, hostile values, lost and repeated lines) — set or error, to the letter.
func TestFastPathOnDumps(t *testing.T) {
	cases := 1 // each reads a dump the general way, which is slow; FuzzParse explores further
	if testing.Short() {
		cases = 0
	}
	for _, asJSON := range []bool{false, true} {
		var dump bytes.Buffer
		if err := gendump.Write(&dump, gendump.Options{Pods: 100, Seed: 5, JSON: asJSON}); err != nil {
			t.Fatal(err)
		}
		for d := range splitDocuments(dump.Bytes()) {
			if _, ok := plainDocument(d.data); !ok {
				t.Fatalf("JSON %v: document %d is not read from plain JSON", asJSON, d.index)
			}
		}
		checkFastPath(t, dump.Bytes())
		for i := range cases {
			checkFastPath(t, mutate.Case(dump.Bytes(), uint64(i)))
		}
	}
}
