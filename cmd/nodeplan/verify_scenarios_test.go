package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestScenariosVerify loads every scenario of testdata/scenarios and testdata/own-scenarios
// (and of the scenario roots listed in NODEPLAN_VERIFY_SCENARIOS, colon-separated: the
// shared suite, difftest cases) the way the check scripts run the CLI, plans or disrupts,
// and requires verify to find no violation. A directory's command comes from its
// expect.json, else from its name (plan-…, disrupt-…); its catalog is expect.json's
// instanceTypes (default instance-types.yaml, null for the embedded one) in the directory,
// else in the root. Scenarios whose input the CLI rejects are skipped (they check the
// error); -short skips the test.
func TestScenariosVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	roots := []string{filepath.Join("..", "..", "testdata", "scenarios"), filepath.Join("..", "..", "testdata", "own-scenarios")}
	if extra := os.Getenv("NODEPLAN_VERIFY_SCENARIOS"); extra != "" {
		roots = append(roots, strings.Split(extra, ":")...)
	}
	for _, root := range roots {
		dirs, _ := filepath.Glob(filepath.Join(root, "*", "input.yaml"))
		sort.Strings(dirs)
		for _, expect := range dirs {
			dir := filepath.Dir(expect)
			t.Run(filepath.Base(dir), func(t *testing.T) { verifyScenario(t, dir) })
		}
	}
}

func verifyScenario(t *testing.T, dir string) {
	raw, err := os.ReadFile(filepath.Join(dir, "expect.json"))
	if err != nil {
		cmd := strings.SplitN(filepath.Base(dir), "-", 2)[0]
		raw = []byte(`{"command":"` + cmd + `"}`)
	}
	spec := struct {
		Command       string   `json:"command"`
		Args          []string `json:"args"`
		InstanceTypes *string  `json:"instanceTypes"`
	}{InstanceTypes: new(string)}
	*spec.InstanceTypes = "instance-types.yaml"
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Command == "" {
		spec.Command = "plan"
	}
	var args []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == "expect.json" || name == "instance-types.yaml" ||
			!(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")) {
			continue
		}
		args = append(args, "-f", filepath.Join(dir, name))
	}
	if spec.InstanceTypes != nil && *spec.InstanceTypes != "" {
		for _, place := range []string{dir, filepath.Dir(dir)} {
			if catalog := filepath.Join(place, *spec.InstanceTypes); fileExists(catalog) {
				args = append(args, "--instance-types", catalog)
				break
			}
		}
	}
	args = append(args, spec.Args...)
	if err := verifyRun(t, append([]string{spec.Command}, args...)); err != nil {
		t.Skipf("the CLI rejects the input: %v", err)
	}
}

// verifyRun reads a command line of the CLI (plan or disrupt, then its flags) as run does,
// solves or plans it and reports each violation verify finds as a test error. It returns
// the error that makes the CLI fail on this command line, if any.
func verifyRun(t *testing.T, args []string) error {
	t.Helper()
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "plan":
		c, _, snap, err := loadPlan(args[1:], io.Discard)
		if errors.Is(err, pflag.ErrHelp) {
			return nil // a help request plans nothing
		}
		if err != nil {
			return err
		}
		res, err := scheduling.Solve(snap, c.options())
		if err != nil {
			return err
		}
		for _, v := range verify.Solve(snap, c.options(), res) {
			t.Errorf("verify: %v", v)
		}
	case "disrupt":
		in, err := loadDisrupt(args[1:], io.Discard)
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		if err != nil {
			return err
		}
		res, err := disruption.Plan(in.snap, in.at.Time, in.opts)
		if err != nil {
			return err
		}
		for _, v := range verify.Plan(in.snap, in.at.Time, in.opts, res) {
			t.Errorf("verify: %v", v)
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
