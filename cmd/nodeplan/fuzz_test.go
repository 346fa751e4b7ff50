package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/catalog"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// FuzzPlan feeds arbitrary manifests through the whole plan pipeline (decode, snapshot, Solve)
// against the scenario catalog: bad input must be an error, never a panic, and every pending
// pod must come back placed or with a reason.
func FuzzPlan(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(scenarios, "*", "input.yaml"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	types, wellKnown, err := catalog.ParseFile(filepath.Join(scenarios, "instance-types.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := manifest.Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		in := snapshot(set, types, wellKnown)
		res, err := scheduling.Solve(in)
		if err != nil {
			return
		}
		seen := len(res.PodErrors)
		for _, c := range res.NewNodeClaims {
			seen += len(c.Pods)
		}
		for _, n := range res.ExistingNodes {
			seen += len(n.Pods)
		}
		if seen < len(in.Pods) {
			t.Fatalf("%d pending pods, %d accounted for", len(in.Pods), seen)
		}
	})
}
