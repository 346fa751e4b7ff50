package gendump

import (
	"fmt"
	"math/rand/v2"

	"github.com/nodeplan/nodeplan/internal/weighted"
)

// daemonSet is a DaemonSet with a pod on every node it tolerates.
type daemonSet struct {
	namespace, name, image string
	cpuMillis, memoryMiB   int64
	// tolerateAll: it runs on the tainted system nodes too.
	tolerateAll bool
	uid, hash   string
}

func newDaemonSets(rng *rand.Rand) []*daemonSet {
	out := []*daemonSet{
		{namespace: "kube-system", name: "aws-node", image: "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1", cpuMillis: 50, tolerateAll: true},
		{namespace: "kube-system", name: "kube-proxy", image: "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.32.0-minimal-eksbuild.2", cpuMillis: 100, tolerateAll: true},
		{namespace: "kube-system", name: "ebs-csi-node", image: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.41.0", cpuMillis: 30, memoryMiB: 120, tolerateAll: true},
		{namespace: "monitoring", name: "node-exporter", image: "quay.io/prometheus/node-exporter:v1.9.1", cpuMillis: 10, memoryMiB: 32, tolerateAll: true},
		{namespace: "logging", name: "fluent-bit", image: "cr.fluentbit.io/fluent/fluent-bit:3.2.10", cpuMillis: 100, memoryMiB: 128},
	}
	for _, ds := range out {
		ds.uid, ds.hash = uid(rng), suffix(rng, 9)
	}
	return out
}

func (ds *daemonSet) runsOn(n *node) bool { return ds.tolerateAll || !n.pool.tainted }

// podName is the name of ds's pod on n.
func (ds *daemonSet) podName(n *node) string {
	// Stable per node and DaemonSet, as the controller's generated names are.
	h := uint64(n.index)*0x9e3779b97f4a7c15 ^ uint64(len(ds.name))*0xbf58476d1ce4e5b9
	return ds.name + "-" + suffix(rand.New(rand.NewPCG(h, uint64(ds.cpuMillis))), 5)
}

// deployment is a Deployment (and its one ReplicaSet) of the dump.
type deployment struct {
	index                     int
	namespace, name, role     string
	team, tier, version       string
	replicas, pending         int
	cpuMillis, memoryMiB      int64
	limitMiB                  int64
	pool                      *pool
	zoneSpread, antiAffinity  bool
	preferSpread, sidecar     bool
	pdb                       string // "", "minAvailable" or "maxUnavailable"
	uid, rsUID, hash, created string
	port                      int32
	env                       int
	grace                     int64
	checksum, tokenVolume     string
	initContainer, probes     bool
}

func (d *deployment) replicaSetName() string { return d.name + "-" + d.hash }

// replica is one pod of a Deployment (or a finished Job pod, deployment nil).
type replica struct {
	deployment *deployment
	index      int
	name, uid  string
	node       *node // nil: pending
}

var (
	teams = []string{"payments", "checkout", "catalog", "search", "identity", "notifications", "analytics",
		"media", "recommendations", "shipping", "pricing", "inventory", "support", "growth", "ads"}
	roles = []string{"api", "worker", "web", "gateway", "consumer", "scheduler", "cache", "indexer",
		"renderer", "sync", "exporter", "grpc", "frontend", "backend", "processor"}
	cpus          = []weighted.Choice[int64]{{Value: 25, Weight: 10}, {Value: 50, Weight: 15}, {Value: 100, Weight: 25}, {Value: 250, Weight: 25}, {Value: 500, Weight: 15}, {Value: 1000, Weight: 7}, {Value: 2000, Weight: 3}}
	gibPerCPU     = []weighted.Choice[float64]{{Value: 0.5, Weight: 10}, {Value: 1, Weight: 20}, {Value: 2, Weight: 35}, {Value: 4, Weight: 25}, {Value: 8, Weight: 10}}
	replicaCounts = []weighted.Choice[int]{{Value: 1, Weight: 10}, {Value: 2, Weight: 20}, {Value: 3, Weight: 25}, {Value: 4, Weight: 10}, {Value: 6, Weight: 10}, {Value: 10, Weight: 10}, {Value: 20, Weight: 8}, {Value: 40, Weight: 5}, {Value: 80, Weight: 2}}
)

// newDeployment draws the next Deployment.
func (c *cluster) newDeployment() *deployment {
	rng := c.rng
	i := len(c.deployments)
	d := &deployment{index: i, team: teams[rng.IntN(len(teams))], role: roles[rng.IntN(len(roles))],
		replicas: weighted.Draw(rng, replicaCounts), cpuMillis: weighted.Draw(rng, cpus), pool: c.pools[0],
		uid: uid(rng), rsUID: uid(rng), hash: suffix(rng, 10), port: 8080,
		version: fmt.Sprintf("%d.%d.%d", 1+rng.IntN(4), rng.IntN(30), rng.IntN(10)),
		env:     rng.IntN(4), grace: []int64{30, 30, 60, 120}[rng.IntN(4)],
		checksum: hexString(rng, 64), tokenVolume: "kube-api-access-" + suffix(rng, 5)}
	d.namespace = d.team
	d.name = fmt.Sprintf("%s-%s-%d", d.team, d.role, i)
	d.memoryMiB = int64(float64(d.cpuMillis) * weighted.Draw(rng, gibPerCPU) * 1024 / 1000)
	d.memoryMiB = max(d.memoryMiB, 64)
	d.limitMiB = d.memoryMiB * int64(1+rng.IntN(2))
	d.tier = []string{"backend", "frontend", "data"}[rng.IntN(3)]
	switch k := rng.IntN(100); {
	case k < 10:
		d.pool, d.role = c.pools[1], "batch"
		d.name = fmt.Sprintf("%s-batch-%d", d.team, i)
	case k < 13:
		d.pool, d.namespace = c.pools[2], "kube-system"
		d.name = []string{"coredns", "metrics-server", "karpenter", "aws-load-balancer-controller", "external-dns", "cluster-proxy"}[rng.IntN(6)] + fmt.Sprintf("-%d", i)
		d.replicas, d.cpuMillis = 2, min(d.cpuMillis, 250) // add-ons on two-vCPU nodes
		d.memoryMiB = min(d.memoryMiB, 512)
		d.limitMiB = d.memoryMiB
	}
	d.zoneSpread = rng.IntN(100) < 20
	d.antiAffinity = !d.zoneSpread && rng.IntN(100) < 8
	d.preferSpread = rng.IntN(100) < 25
	d.sidecar = rng.IntN(100) < 10
	d.initContainer = rng.IntN(100) < 5
	d.probes = rng.IntN(100) < 50
	if d.replicas > 1 && rng.IntN(100) < 35 {
		d.pdb = []string{"minAvailable", "maxUnavailable"}[rng.IntN(2)]
	}
	if rng.IntN(100) < 12 {
		d.pending = 1 + rng.IntN(min(d.replicas, 4))
	}
	d.created = DumpTime.Add(-hours(rng, 24*90)).Format(timeLayout)
	c.deployments = append(c.deployments, d)
	return d
}
