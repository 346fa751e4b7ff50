package scheduling_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPropRoomIndexChangesNothing: placing pods through the free-room index of existing nodes
// gives the answer checking every node in order gives, in both packings (a valid one in
// CostAware; Karpenter's may break the rules it breaks as launched).
func TestPropRoomIndexChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := scenarioGen().Draw(t, "scenario").build()
		opts := scheduling.Options{}
		if rapid.Bool().Draw(t, "karpenter") {
			opts.Packing = scheduling.PackingKarpenter
		}
		snap := snapOf(t, in)
		scanned, err := scheduling.SolveIndexingRoom(snap, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		indexed, err := scheduling.SolveIndexingRoom(snap, opts, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyErr(snap, opts, indexed); err != nil && opts.Packing != scheduling.PackingKarpenter {
			t.Fatal(err)
		}
		if a, b := render(scanned), render(indexed); a != b {
			t.Fatalf("the room index changes the answer:\n--- node by node\n%s--- indexed\n%s", a, b)
		}
	})
}
