// Package gendump writes a realistic dump of a Karpenter cluster as `kubectl get ... -o yaml`
// (or `-o json`) prints it: one List holding NodePools, EC2NodeClasses, NodeClaims, Nodes,
// Pods, DaemonSets, Deployments, ReplicaSets, PodDisruptionBudgets and node Leases, with what
// a live cluster's objects carry and nodeplan mostly does not read — managedFields, status,
// ownerReferences, long label sets, annotations, probes, env, volumes, container statuses,
// node images — so that reading it costs what reading a real dump costs.
//
// The cluster: three NodePools (general on-demand, spot for batch, a tainted system pool)
// over two EC2NodeClasses, nodes of a dozen real instance types across three zones, each with
// its NodeClaim, Lease and five DaemonSet pods; Deployments of mixed shapes (some spread over
// zones, some with hostname anti-affinity, some with a PDB) whose replicas are packed onto the
// nodes up to a per-node fill that leaves room for consolidation; a few per cent of replicas
// pending (just scaled up), a few finished Job pods, a few nodes drifted. Options.Pods is the
// number of Pod objects in all.
//
// The same options always give the same bytes (a seeded PCG; no clock, no map order). It is
// the input of the CLI's scale benchmarks and of `go run ./hack/gendump`; it never decides
// anything: test and tool support only.
package gendump

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Options say what to generate.
type Options struct {
	// Pods is the number of Pod objects in the dump (at least 100): DaemonSet pods, bound and
	// pending replicas, finished Job pods.
	Pods int
	// Seed draws the cluster; the same seed gives the same dump.
	Seed uint64
	// JSON writes `kubectl get -o json` instead of `-o yaml`.
	JSON bool
}

// DumpTime is when the dump was taken: the Node heartbeats and Lease renewals are just
// before it, so nodeplan judges at about this time.
var DumpTime = time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC)

// Write writes the dump to w.
func Write(w io.Writer, o Options) error {
	if o.Pods < 100 {
		return errors.New("gendump: want at least 100 pods")
	}
	c := newCluster(o)
	c.pack()
	lw := newListWriter(w, o.JSON)
	c.write(lw)
	if err := lw.close(); err != nil {
		return fmt.Errorf("gendump: %w", err)
	}
	return nil
}

// suffix is a random name suffix of n characters from the alphabet Kubernetes uses for
// generated names.
func suffix(rng *rand.Rand, n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// hexString is n random lowercase hex digits.
func hexString(rng *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}

// uid is a random UID in the API server's form.
func uid(rng *rand.Rand) string {
	return hexString(rng, 8) + "-" + hexString(rng, 4) + "-" + hexString(rng, 4) + "-" + hexString(rng, 4) + "-" + hexString(rng, 12)
}
