package simulate_test

import (
	"os"
	"testing"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/verify"
)

// TestPlanAt1850Verifies: BenchmarkDay verify=true stopped at +18h50m with PlanNoDestination on
// a valid Plan: its second single-node consolidation planned the first one's pods again, one
// onto the first one's replacement in place of another, and verify held the replacement to
// the pods the first command listed. The cluster of that step, shrunk (testdata/day-1850.yaml),
// planned as the simulation planned it, holds to verify.
func TestPlanAt1850Verifies(t *testing.T) {
	types := "../../shared/scenarios/instance-types.yaml"
	if _, err := os.Stat(types); err != nil {
		t.Skipf("needs %s", types)
	}
	data, err := os.ReadFile("testdata/day-1850.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.Parse(data, "day-1850.yaml")
	if err != nil {
		t.Fatal(err)
	}
	its, keys, err := catalog.ParseFile(types)
	if err != nil {
		t.Fatal(err)
	}
	for k, ok := range v1.WellKnownLabels {
		if ok {
			keys[k] = true
		}
	}
	snap := snapshotOf(t, set, its, keys)
	now := time.Date(2026, 1, 1, 18, 50, 0, 0, time.UTC)
	res, err := disruption.Plan(snap, now, disruption.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) < 2 {
		t.Fatalf("the case is two consolidations, one planning the other's pods again: %d commands", len(res.Commands))
	}
	if vs := verify.Plan(snap, now, disruption.Options{}, res); len(vs) > 0 {
		t.Fatalf("Plan's answer at +18h50m: %v", vs)
	}
}
