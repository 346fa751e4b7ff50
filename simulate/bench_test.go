package simulate_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/simulate"
)

// dayWorkloads are added to the benchmark cluster: a web tier that follows the day and a
// batch tier that runs at night.
const dayWorkloads = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 100
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      nodeSelector: {karpenter.sh/nodepool: batch}
      containers: [{name: batch, image: batch, resources: {requests: {cpu: "1", memory: 2Gi}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {maxUnavailable: 10%, selector: {matchLabels: {app: web}}}
`

// diurnalTimeline scales web every 10 minutes along a day's sine (100 at night, 400 at
// 14:00), runs 60 batch pods from 01:00 to 05:00, and interrupts a tenth of the spot nodes
// at 10:00 and 16:00.
func diurnalTimeline() string {
	var b strings.Builder
	b.WriteString("apiVersion: nodeplan.io/v1alpha1\nkind: Timeline\nduration: 24h\nevents:\n")
	for m := 10; m < 24*60; m += 10 {
		replicas := 250 - 150*math.Cos(2*math.Pi*float64(m-120)/(24*60))
		fmt.Fprintf(&b, "- at: %dm\n  scale: {name: web, replicas: %d}\n", m, int(replicas))
	}
	b.WriteString("- at: 1h\n  scale: {name: batch, replicas: 60}\n- at: 5h\n  scale: {name: batch, replicas: 0}\n")
	b.WriteString("- at: 10h\n  interrupt: {fraction: 0.1}\n- at: 16h\n  interrupt: {fraction: 0.1}\n")
	return b.String()
}

// dayInput is ../shared/bench/cluster-workload NODES with dayWorkloads, on the scenario
// instance types, and the diurnal timeline; the benchmark is skipped without them.
func dayInput(tb testing.TB, nodes int) simulate.Input {
	tb.Helper()
	gen, types := "../../shared/bench/cluster-workload", "../../shared/scenarios/instance-types.yaml"
	for _, f := range []string{gen, types} {
		if _, err := os.Stat(f); err != nil {
			tb.Skipf("needs %s", f)
		}
	}
	dir := tb.TempDir()
	if out, err := exec.Command("python3", gen, fmt.Sprint(nodes), dir).CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", gen, err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	set, err := manifest.Parse(append(data, []byte("\n---\n"+dayWorkloads)...), "cluster-workload")
	if err != nil {
		tb.Fatal(err)
	}
	its, keys, err := catalog.ParseFile(types)
	if err != nil {
		tb.Fatal(err)
	}
	for k, ok := range v1.WellKnownLabels {
		if ok {
			keys[k] = true
		}
	}
	snap := snapshotOf(tb, set, its, keys)
	tl, err := simulate.ParseTimeline([]byte(diurnalTimeline()), "diurnal.yaml", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return simulate.Input{Snapshot: snap, Workloads: set.Workloads, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Timeline: tl, Settings: simulate.DefaultSettings()}
}

// BenchmarkDay simulates a day of the diurnal timeline on cluster-workload 300 (about 3,000
// pods on 300 nodes over three NodePools), with and without verify after every step, and
// reports the CPU per day and what the day cost.
func BenchmarkDay(b *testing.B) {
	for _, verified := range []bool{false, true} {
		b.Run(fmt.Sprintf("nodes=300/verify=%v", verified), func(b *testing.B) {
			in := dayInput(b, 300)
			in.Settings.Verify = verified
			var tr *simulate.Trace
			cpu := cputime.Now()
			for b.Loop() {
				var err error
				if tr, err = simulate.Run(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
			b.ReportMetric(tr.Totals.Cost, "$/day")
			b.ReportMetric(float64(len(tr.Series)), "points")
			b.ReportMetric(float64(tr.Totals.Evictions), "evictions")
			b.ReportMetric(float64(tr.Totals.PeakNodes), "peak-nodes")
		})
	}
}
