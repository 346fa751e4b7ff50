package scheduling_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

var packingScale = flag.Bool("packing-scale", false, "BenchmarkRepack: also 100,000 pods")

// BenchmarkRepack is what the default packing's repair costs: Solve with it (repack=on) and
// without it (repack=off, Options.SkipRepack: the first pass alone) on the generic workload
// (seed 7) and on Karpenter's benchmark workload; cpu-ns/op, $/hour and price/bound.
// -packing-scale adds 100,000 pods.
func BenchmarkRepack(b *testing.B) {
	type workload struct {
		name string
		snap func(b *testing.B) *cluster.Snapshot
	}
	var loads []workload
	generic := []int{500, 2000, 10000}
	karpenter := []int{5000, 20000}
	if *packingScale {
		generic, karpenter = append(generic, 100000), append(karpenter, 100000)
	}
	for _, n := range generic {
		loads = append(loads, workload{fmt.Sprintf("generic/pods=%d", n), func(b *testing.B) *cluster.Snapshot { return genericSnapshot(b, n, 7) }})
	}
	for _, n := range karpenter {
		loads = append(loads, workload{fmt.Sprintf("karpenter/pods=%d", n), func(b *testing.B) *cluster.Snapshot { return snapOf(b, benchmarkObjects(n)) }})
	}
	for _, w := range loads {
		for _, skip := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/repack=%s", w.name, map[bool]string{true: "off", false: "on"}[skip]), func(b *testing.B) {
				benchmarkPrice(b, w.snap(b), scheduling.Options{SkipRepack: skip})
			})
		}
	}
}
