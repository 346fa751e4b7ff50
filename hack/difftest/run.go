package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// write puts input.yaml and instance-types.yaml (and features.txt) into dir.
func (in *input) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// input.yaml, and oracle-input.yaml when the oracle is given more (oracleDocs).
	docs := oracleDocs(in)
	files := []struct {
		name string
		docs []map[string]any
	}{{"input.yaml", in.Docs}, {oracleInput, docs[len(in.Docs):]}}
	var b bytes.Buffer
	for _, f := range files {
		if f.name == oracleInput && len(f.docs) == 0 {
			break
		}
		for _, d := range f.docs { // oracle-input.yaml: input.yaml's documents and these
			j, err := json.Marshal(d)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(j)
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	cat, err := yaml.Marshal(in.Catalog)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "instance-types.yaml"), cat, 0o644); err != nil {
		return err
	}
	if oc := oracleCatalog(in); oc != nil {
		cat, err := yaml.Marshal(oc)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, oracleInstanceTypes), cat, 0o644); err != nil {
			return err
		}
	}
	meta := fmt.Sprintf("kind: %s\nseed: %d\nnow: %s\nfeatures: %s\n", in.Kind, in.Seed, in.Now, strings.Join(in.Features, " "))
	return os.WriteFile(filepath.Join(dir, "features.txt"), []byte(meta), 0o644)
}

// args are the CLI arguments both tools take for this input in dir.
func (in *input) args(dir string) []string {
	a := []string{in.Kind, "-f", filepath.Join(dir, "input.yaml"), "--instance-types", filepath.Join(dir, "instance-types.yaml"), "-o", "json"}
	if in.Now != "" {
		a = append(a, "--now", in.Now)
	}
	if slices.Contains(in.Features, spotToSpotGate) {
		a = append(a, "--spot-to-spot")
	}
	return a
}

// oracleInput is the file the oracle reads instead of input.yaml when write adds documents for
// it (oracleDocs).
const oracleInput = "oracle-input.yaml"

// oracleInstanceTypes is the catalog the oracle reads instead of instance-types.yaml when write
// puts one in dir (oracleCatalog).
const oracleInstanceTypes = "oracle-instance-types.yaml"

// oracleArgs are args with the oracle's own input file and catalog when write put them in dir.
func (in *input) oracleArgs(dir string) []string {
	a := in.args(dir)
	for flag, file := range map[string]string{"-f": oracleInput, "--instance-types": oracleInstanceTypes} {
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			a[slices.Index(a, flag)+1] = filepath.Join(dir, file)
		}
	}
	return a
}

type result struct {
	Stdout, Stderr []byte
	Exit           int
	Took           time.Duration
}

func run(bin string, args []string, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	res := result{Stdout: out.Bytes(), Stderr: errb.Bytes(), Took: time.Since(start)}
	if err != nil {
		res.Exit = -1
		if ee, ok := err.(*exec.ExitError); ok {
			res.Exit = ee.ExitCode()
		}
		if ctx.Err() != nil {
			res.Stderr = append(res.Stderr, []byte("\ndifftest: timed out\n")...)
		}
	}
	return res
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
