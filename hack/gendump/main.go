// Command gendump writes a realistic dump of a Karpenter cluster (package internal/gendump)
// to standard output, as `kubectl get nodepools,ec2nodeclasses,nodeclaims,nodes,pods,
// daemonsets,deployments,replicasets,pdb,leases -A -o yaml` (or -o json) prints it: -pods Pod
// objects in all, with managedFields, status, ownerReferences and long label sets, drawn with
// -seed.
//
//	go run ./hack/gendump -pods 20000 > dump.yaml
//	go run ./hack/gendump -pods 20000 -o json > dump.json
//	go run ./cmd/nodeplan plan -f dump.yaml -o json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nodeplan/nodeplan/internal/gendump"
)

func main() {
	pods := flag.Int("pods", 20000, "number of Pod objects in the dump (DaemonSet pods, bound and pending replicas, finished Job pods)")
	seed := flag.Uint64("seed", 1, "seed of the draw; the same seed gives the same dump")
	output := flag.String("o", "yaml", "yaml or json, as kubectl get -o prints them")
	flag.Parse()
	if flag.NArg() > 0 || (*output != "yaml" && *output != "json") {
		fmt.Fprintln(os.Stderr, "usage: gendump [-pods N] [-seed S] [-o yaml|json]")
		os.Exit(2)
	}
	if err := gendump.Write(os.Stdout, gendump.Options{Pods: *pods, Seed: *seed, JSON: *output == "json"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
