package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
)

// FuzzPlan feeds arbitrary manifests through the whole plan pipeline (decode, snapshot, Solve)
// against the scenario catalog and holds checkPlan: bad input must be an error of manifest,
// never a panic or a Solve error, and every pending pod comes back exactly once.
// TestPlanMutations runs the same check over thousands of deterministic mutations in CI;
// coverage-guided fuzzing of a binary holding k8s.io/api is slow (a few execs/s), so run it
// for minutes: go test ./cmd/nodeplan -run X -fuzz FuzzPlan -fuzztime 10m.
func FuzzPlan(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(scenarios, "*", "input.yaml"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	types, wellKnown := scenarioCatalog(f)
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkPlan(t, data, types, wellKnown) })
}
