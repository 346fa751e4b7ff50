package scheduling_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/internal/genworkload"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// ec2Catalog is the embedded EC2 catalog, built once for every test (snapshots only read it).
var ec2Catalog = sync.OnceValues(catalog.EC2)

// genericSnapshot is the generic workload of n pods drawn with seed (internal/genworkload)
// against the embedded EC2 catalog, as `nodeplan plan` reads it.
func genericSnapshot(tb tb, n int, seed uint64) *cluster.Snapshot {
	tb.Helper()
	data, err := genworkload.Generate(genworkload.Options{Pods: n, Seed: seed})
	if err != nil {
		tb.Fatalf("%v", err)
	}
	set, err := manifest.Parse(data, fmt.Sprintf("generic-%d-%d.yaml", n, seed))
	if err != nil {
		tb.Fatalf("%v", err)
	}
	types, err := ec2Catalog()
	if err != nil {
		tb.Fatalf("%v", err)
	}
	objs := set.Objects
	objs.InstanceTypes = map[string]cloudprovider.InstanceTypes{genworkload.NodePool: types}
	objs.WellKnownLabels = catalog.EC2WellKnownLabels()
	snap, err := cluster.New(objs)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	return snap
}

// BenchmarkGenericWorkload: Solve's price on generic workloads (mixed shapes, some spread,
// a general-purpose NodePool, the embedded EC2 catalog), against the lower bound of the pods
// it places, under both packings: "$/hour", "bound-$/hour", "price/bound" (issue #19's
// yardstick: ≤ 1.10 is the target) and "cpu-ns/op".
func BenchmarkGenericWorkload(b *testing.B) {
	for _, n := range []int{500, 2000, 10000} {
		for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
			b.Run(fmt.Sprintf("pods=%d/packing=%s", n, packing), func(b *testing.B) {
				benchmarkPrice(b, genericSnapshot(b, n, 7), scheduling.Options{Packing: packing})
			})
		}
	}
}

// benchmarkPrice runs Solve of snap with opts, reports cpu-ns/op, and checks the plan
// (verify.Solve, except in Karpenter mode, which may break what Karpenter breaks; every pod
// placed) and reports its nodes, $/hour, the lower bound and price/bound.
func benchmarkPrice(b *testing.B, snap *cluster.Snapshot, opts scheduling.Options) {
	var res *scheduling.Result
	cpu := cputime.Now()
	for b.Loop() {
		var err error
		if res, err = scheduling.Solve(snap, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
	if opts.Packing != scheduling.PackingKarpenter {
		if err := verifyErr(snap, opts, res); err != nil {
			b.Fatal(err)
		}
	}
	if len(res.PodErrors) > 0 {
		b.Fatalf("%d pods not scheduled, first: %s", len(res.PodErrors), res.PodErrors[0].Message())
	}
	b.ReportMetric(float64(len(res.NewNodeClaims)), "nodes")
	b.ReportMetric(res.Price(), "$/hour")
	reportBound(b, snap, opts, res)
}

// BenchmarkLowerBound is the bound's own cost: on Karpenter's benchmark workload and on the
// generic workload, beside Solve's in BenchmarkSolve and BenchmarkGenericWorkload.
func BenchmarkLowerBound(b *testing.B) {
	run := func(b *testing.B, snap *cluster.Snapshot) {
		var bound *scheduling.Bound
		cpu := cputime.Now()
		for b.Loop() {
			var err error
			if bound, err = scheduling.LowerBound(snap, scheduling.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
		b.ReportMetric(bound.PerHour, "bound-$/hour")
		b.ReportMetric(float64(bound.Classes), "classes")
		b.ReportMetric(float64(bound.Columns), "columns")
		b.ReportMetric(float64(bound.Rounds), "rounds")
	}
	for _, n := range []int{5000, 20000} {
		b.Run(fmt.Sprintf("karpenter/pods=%d", n), func(b *testing.B) { run(b, snapOf(b, benchmarkObjects(n))) })
	}
	for _, n := range []int{2000, 10000, 20000} {
		b.Run(fmt.Sprintf("generic/pods=%d", n), func(b *testing.B) { run(b, genericSnapshot(b, n, 7)) })
	}
	// After a Solve of the same objects with one Cache (what plan does).
	b.Run("generic/pods=10000/after-solve", func(b *testing.B) {
		snap := genericSnapshot(b, 10000, 7)
		cache := scheduling.NewCache()
		if _, err := cache.Solve(snap, scheduling.Options{}); err != nil {
			b.Fatal(err)
		}
		cpu := cputime.Now()
		for b.Loop() {
			if _, err := cache.LowerBound(snap, scheduling.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
	})
}
