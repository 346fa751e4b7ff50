package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/internal/gendump"
)

// The CLI's scale targets (#18), one benchmark each, end to end in-process (reading,
// planning, printing), at 20,000 pods (2,000 with -short):
//
//	go test ./cmd/nodeplan -run '^$' -bench CLI -benchtime 1x -count 6
//
// They report cpu-ns/op (the process's CPU, not wall time), output-bytes/op and the
// process's peak RSS so far (maxrss-MB: run one benchmark per process for its own).

// benchPods is the benchmarks' pod count.
func benchPods() int {
	if testing.Short() {
		return 2000
	}
	return 20000
}

var benchInputs = struct {
	sync.Mutex
	dir string
}{}

// benchInput is a file the benchmarks read, written once per process by write.
func benchInput(b *testing.B, name string, write func(path string) error) string {
	benchInputs.Lock()
	defer benchInputs.Unlock()
	if benchInputs.dir == "" {
		dir, err := os.MkdirTemp("", "nodeplan-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchInputs.dir = dir
	}
	path := filepath.Join(benchInputs.dir, name)
	if _, err := os.Stat(path); err != nil {
		if err := write(path); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// dumpInput is gendump's realistic `kubectl get -A -o yaml` dump of benchPods() pods.
func dumpInput(b *testing.B) string {
	return benchInput(b, "dump.yaml", func(path string) error {
		var buf bytes.Buffer
		if err := gendump.Write(&buf, gendump.Options{Pods: benchPods(), Seed: 1}); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	})
}

// benchCLI runs the command line b.N times and reports its CPU, output size and peak RSS.
func benchCLI(b *testing.B, args ...string) {
	b.Helper()
	var out, errOut bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Now()
	for range b.N {
		out.Reset()
		errOut.Reset()
		if code := run(args, &out, &errOut); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
	b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
	b.ReportMetric(float64(out.Len()), "output-bytes/op")
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
	}
}

// BenchmarkCLIPlanKarpenterWorkload: plan -o json on Karpenter's benchmark workload
// (../shared/bench/karpenter-workload; skipped without it). Targets at 20k pods: 0.9 s of
// CPU, 200 MiB, JSON at most 12 MB (with --option-sets; the contract's default lists every
// claim's options).
func BenchmarkCLIPlanKarpenterWorkload(b *testing.B) {
	script, err := filepath.Abs("../../../shared/bench/karpenter-workload")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		b.Skip("no ../shared/bench/karpenter-workload")
	}
	dir := benchInput(b, "karpenter-workload", func(path string) error {
		return exec.Command("python3", script, strconv.Itoa(benchPods()), path).Run()
	})
	args := []string{"plan", "-f", filepath.Join(dir, "input.yaml"), "--instance-types", filepath.Join(dir, "instance-types.yaml"), "-o", "json"}
	b.Run("options=per-claim", func(b *testing.B) { benchCLI(b, args...) })
	b.Run("options=sets", func(b *testing.B) { benchCLI(b, append(args, "--option-sets")...) })
}

// BenchmarkCLIPlanDump: plan -o json on a realistic dump (gendump). Target at 20k pods:
// 3 s of CPU and 500 MiB.
func BenchmarkCLIPlanDump(b *testing.B) {
	benchCLI(b, "plan", "-f", dumpInput(b), "-o", "json")
}

// BenchmarkCLIDisruptDump: disrupt -o json on the same dump. Target at 20k pods: 3 s of CPU
// and 500 MiB.
func BenchmarkCLIDisruptDump(b *testing.B) {
	benchCLI(b, "disrupt", "-f", dumpInput(b), "-o", "json")
}
