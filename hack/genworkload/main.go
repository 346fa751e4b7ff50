// Command genworkload writes a generic workload (package internal/genworkload) to standard
// output: a general-purpose NodePool, two DaemonSets and Deployments of mixed shapes, some
// spread over zones or hostnames, with -pods replicas in all, drawn with -seed.
//
//	go run ./hack/genworkload -pods 2000 -seed 7 > w.yaml
//	go run ./cmd/nodeplan plan -f w.yaml -o json   # pricePerHour, lowerBoundPerHour, efficiency
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nodeplan/nodeplan/internal/genworkload"
)

func main() {
	pods := flag.Int("pods", 2000, "number of pods (Deployment replicas) in all")
	seed := flag.Uint64("seed", 7, "seed of the draw; the same seed gives the same workload")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "genworkload: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	out, err := genworkload.Generate(genworkload.Options{Pods: *pods, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
