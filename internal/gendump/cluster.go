package gendump

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodeplan/nodeplan/internal/weighted"
)

// instanceType is what the dump says of an EC2 instance type (its labels and resources).
type instanceType struct {
	name, family, category, size, manufacturer string
	generation, vcpu, memoryMiB, maxPods       int
	ebsBandwidth, networkBandwidth             int
}

var (
	m5Large    = instanceType{"m5.large", "m5", "m", "large", "intel", 5, 2, 8192, 29, 4750, 750}
	m6iLarge   = instanceType{"m6i.large", "m6i", "m", "large", "intel", 6, 2, 8192, 29, 10000, 781}
	m5XLarge   = instanceType{"m5.xlarge", "m5", "m", "xlarge", "intel", 5, 4, 16384, 58, 4750, 1250}
	m5x2Large  = instanceType{"m5.2xlarge", "m5", "m", "2xlarge", "intel", 5, 8, 32768, 58, 4750, 2500}
	m6iXLarge  = instanceType{"m6i.xlarge", "m6i", "m", "xlarge", "intel", 6, 4, 16384, 58, 10000, 1562}
	m6ix2Large = instanceType{"m6i.2xlarge", "m6i", "m", "2xlarge", "intel", 6, 8, 32768, 58, 10000, 3125}
	m6ix4Large = instanceType{"m6i.4xlarge", "m6i", "m", "4xlarge", "intel", 6, 16, 65536, 234, 10000, 6250}
	m7ix2Large = instanceType{"m7i.2xlarge", "m7i", "m", "2xlarge", "intel", 7, 8, 32768, 58, 10000, 3125}
	c6ix2Large = instanceType{"c6i.2xlarge", "c6i", "c", "2xlarge", "intel", 6, 8, 16384, 58, 10000, 3125}
	c6ix4Large = instanceType{"c6i.4xlarge", "c6i", "c", "4xlarge", "intel", 6, 16, 32768, 234, 10000, 6250}
	c7ix4Large = instanceType{"c7i.4xlarge", "c7i", "c", "4xlarge", "intel", 7, 16, 32768, 234, 10000, 6250}
	r6iXLarge  = instanceType{"r6i.xlarge", "r6i", "r", "xlarge", "intel", 6, 4, 32768, 58, 10000, 1562}
	r6ix2Large = instanceType{"r6i.2xlarge", "r6i", "r", "2xlarge", "intel", 6, 8, 65536, 58, 10000, 3125}
	r6ix4Large = instanceType{"r6i.4xlarge", "r6i", "r", "4xlarge", "intel", 6, 16, 131072, 234, 10000, 6250}
)

// cpuMillis and memoryKi are the type's capacity as the kubelet reports it (memory a little
// under the nominal size) and allocatable after Karpenter's AL2023 kube-reserved (cpu: 60m,
// 10m, 5m, 5m, then 2.5m per core; memory 11 MiB per pod + 255 MiB) and the 100Mi eviction
// threshold.
func (t instanceType) cpuMillis() (capacity, allocatable int64) {
	reserved := 0.0
	for core := 1; core <= t.vcpu; core++ {
		switch {
		case core == 1:
			reserved += 60
		case core == 2:
			reserved += 10
		case core <= 4:
			reserved += 5
		default:
			reserved += 2.5
		}
	}
	return int64(t.vcpu) * 1000, int64(t.vcpu)*1000 - int64(reserved+0.5)
}

func (t instanceType) memoryKi() (capacity, allocatable int64) {
	capacity = int64(float64(t.memoryMiB)*1024*0.9475) / 4 * 4
	reserved := int64(11*t.maxPods+255+100) * 1024
	return capacity, capacity - reserved
}

// zone is an availability zone of us-east-1 with its zone ID and subnet, whose node IPs are
// 10.0.<third>-<third+63>.x.
type zone struct {
	name, id, subnet string
	third            int
}

var zones = []zone{
	{"us-east-1a", "use1-az4", "subnet-0a3f9c1d2e4b5a601", 0},
	{"us-east-1b", "use1-az6", "subnet-0b7e2d4c6a8f1b702", 64},
	{"us-east-1c", "use1-az1", "subnet-0c1a5b3d7e9f2c803", 128},
}

// pool is a NodePool of the cluster and how its nodes are drawn.
type pool struct {
	name, nodeClass, capacityType string
	types                         []weighted.Choice[instanceType]
	// fill is the share of a node's allocatable cpu and memory the packing fills, at most.
	fillMin, fillMax float64
	tainted          bool
	labels           map[string]string
	hash             string
	uid              types.UID
}

// node is one node of the dump with the replicas packed onto it.
type node struct {
	index                int
	name, ip, instanceID string
	pool                 *pool
	typ                  instanceType
	zone                 zone
	capacityType         string
	created              time.Time
	cpuFree, memFree     int64 // millicores, KiB, under the node's fill
	podsFree             int
	pods                 []*replica
	drifted              bool
	uid, claimName       string
	claimUID, bootID     string
}

// cluster is everything the dump holds, drawn from one seed.
type cluster struct {
	o           Options
	rng         *rand.Rand
	pools       []*pool
	nodes       []*node
	daemonSets  []*daemonSet
	deployments []*deployment
	replicas    []*replica // in creation order; node nil: pending
	jobPods     []*replica // finished (Succeeded) pods of Jobs
	podCount    int
	ips         map[string]bool // the IPs taken (nodes and pods)
	rv          int             // the last resourceVersion given out
}

func (c *cluster) newUID() types.UID { return types.UID(uid(c.rng)) }

// resourceVersion is the next resourceVersion, as the API server counts them.
func (c *cluster) resourceVersion() string {
	c.rv += 1 + c.rng.IntN(50)
	return strconv.Itoa(2200000 + c.rv)
}

func newCluster(o Options) *cluster {
	c := &cluster{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)), ips: map[string]bool{}}
	c.pools = []*pool{
		{name: "general", nodeClass: "default", capacityType: "on-demand", fillMin: 0.55, fillMax: 0.92,
			labels: map[string]string{"workload-class": "general", "team": "platform"},
			types: []weighted.Choice[instanceType]{{Value: m5XLarge, Weight: 10}, {Value: m5x2Large, Weight: 15}, {Value: m6iXLarge, Weight: 10}, {Value: m6ix2Large, Weight: 25}, {Value: m6ix4Large, Weight: 10},
				{Value: m7ix2Large, Weight: 10}, {Value: c6ix2Large, Weight: 5}, {Value: c6ix4Large, Weight: 5}, {Value: r6iXLarge, Weight: 4}, {Value: r6ix2Large, Weight: 4}, {Value: r6ix4Large, Weight: 2}}},
		{name: "batch", nodeClass: "batch", capacityType: "spot", fillMin: 0.7, fillMax: 0.95,
			labels: map[string]string{"workload-class": "batch"},
			types:  []weighted.Choice[instanceType]{{Value: c6ix2Large, Weight: 20}, {Value: c6ix4Large, Weight: 20}, {Value: c7ix4Large, Weight: 20}, {Value: m6ix4Large, Weight: 10}}},
		{name: "system", nodeClass: "default", capacityType: "on-demand", fillMin: 0.6, fillMax: 0.9, tainted: true,
			labels: map[string]string{"workload-class": "system"},
			types:  []weighted.Choice[instanceType]{{Value: m5Large, Weight: 50}, {Value: m6iLarge, Weight: 50}}},
	}
	for _, p := range c.pools {
		p.hash, p.uid = fmt.Sprint(c.rng.Uint64()>>1), c.newUID()
	}
	c.daemonSets = newDaemonSets(c.rng)
	return c
}

// openNode starts a node of pool p in zone z (nil: any) and counts its DaemonSet pods.
func (c *cluster) openNode(p *pool, z *zone) *node {
	i := len(c.nodes)
	zn := zones[c.rng.IntN(len(zones))]
	if z != nil {
		zn = *z
	}
	typ := weighted.Draw(c.rng, p.types)
	ip := ""
	for ip == "" || c.ips[ip] {
		ip = fmt.Sprintf("10.0.%d.%d", zn.third+c.rng.IntN(64), 4+c.rng.IntN(250))
	}
	c.ips[ip] = true
	n := &node{
		index: i, ip: ip, pool: p, typ: typ, zone: zn, capacityType: p.capacityType,
		name:       "ip-" + dashed(ip) + ".ec2.internal",
		instanceID: "i-0" + hexString(c.rng, 16),
		created:    DumpTime.Add(-time.Duration(1+c.rng.IntN(20*24*60)) * time.Minute),
		uid:        uid(c.rng), claimUID: uid(c.rng), bootID: uid(c.rng),
		claimName: p.name + "-" + suffix(c.rng, 5),
		drifted:   c.rng.IntN(100) == 0,
	}
	fill := p.fillMin + c.rng.Float64()*(p.fillMax-p.fillMin)
	_, cpu := typ.cpuMillis()
	_, mem := typ.memoryKi()
	n.cpuFree, n.memFree, n.podsFree = int64(float64(cpu)*fill), int64(float64(mem)*fill), typ.maxPods
	for _, ds := range c.daemonSets {
		if ds.runsOn(n) {
			n.cpuFree -= ds.cpuMillis
			n.memFree -= ds.memoryMiB * 1024
			n.podsFree--
			c.podCount++
		}
	}
	c.nodes = append(c.nodes, n)
	return n
}

// daemonSetPods is how many DaemonSet pods a node of p runs.
func (c *cluster) daemonSetPods(p *pool) int {
	n := 0
	for _, ds := range c.daemonSets {
		if ds.runsOn(&node{pool: p}) {
			n++
		}
	}
	return n
}

// fits reports whether a replica of d fits n now (resources under the fill, the node's pool
// and zone, and d's hostname anti-affinity).
func (n *node) fits(d *deployment, z *zone) bool {
	if n.pool != d.pool || (z != nil && n.zone.name != z.name) || n.podsFree < 1 || n.cpuFree < d.cpuMillis || n.memFree < d.memoryMiB*1024 {
		return false
	}
	if d.antiAffinity {
		for _, r := range n.pods {
			if r.deployment == d {
				return false
			}
		}
	}
	return true
}

func (n *node) place(r *replica) {
	d := r.deployment
	n.cpuFree -= d.cpuMillis
	n.memFree -= d.memoryMiB * 1024
	n.podsFree--
	n.pods = append(n.pods, r)
	r.node = n
}

// pack draws Deployments and places their replicas (first fit over the open nodes of their
// pool, opening a node when none fits) until the dump holds o.Pods pods.
func (c *cluster) pack() {
	// Every pool runs at least one node, so that each has DaemonSet pods and each
	// Deployment a place to go.
	for _, p := range c.pools {
		c.openNode(p, nil)
	}
	open := map[*pool][]*node{}
	for _, n := range c.nodes {
		open[n.pool] = append(open[n.pool], n)
	}
	jobs := max(c.o.Pods/200, 1)
	for c.podCount+jobs < c.o.Pods {
		d := c.newDeployment()
		for i := 0; i < d.replicas && c.podCount+jobs < c.o.Pods; i++ {
			r := &replica{deployment: d, index: i, name: d.replicaSetName() + "-" + suffix(c.rng, 5), uid: uid(c.rng)}
			c.replicas = append(c.replicas, r)
			c.podCount++
			if i >= d.replicas-d.pending {
				continue // scaled up just now: pending
			}
			var z *zone
			if d.zoneSpread {
				z = &zones[i%len(zones)]
			}
			var target *node
			for _, n := range open[d.pool] {
				if n.fits(d, z) {
					target = n
					break
				}
			}
			if target == nil {
				if c.podCount+c.daemonSetPods(d.pool)+jobs > c.o.Pods {
					continue // no room for another node's DaemonSet pods: pending
				}
				target = c.openNode(d.pool, z)
				open[d.pool] = append(open[d.pool], target)
				if !target.fits(d, z) {
					continue // larger than any node of its pool: pending
				}
			}
			target.place(r)
		}
	}
	for i := 0; c.podCount < c.o.Pods; i++ {
		n := c.nodes[c.rng.IntN(len(c.nodes))]
		c.jobPods = append(c.jobPods, &replica{index: i, node: n, name: fmt.Sprintf("report-%d-%s", 29000000+i, suffix(c.rng, 5)), uid: uid(c.rng)})
		c.podCount++
	}
}

func dashed(ip string) string {
	b := []byte(ip)
	for i := range b {
		if b[i] == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

// write writes every object, grouped by kind in the order of
// `kubectl get nodepools,ec2nodeclasses,nodeclaims,nodes,pods,daemonsets,deployments,replicasets,pdb,leases -A`,
// each kind sorted by namespace and name as kubectl lists them.
func (c *cluster) write(lw *listWriter) {
	created := DumpTime.Add(-120 * 24 * time.Hour)
	for _, p := range c.pools {
		lw.add(c.nodePool(p, created))
	}
	for _, name := range []string{"batch", "default"} {
		lw.add(c.nodeClass(name, created))
	}
	byName := slices.Clone(c.nodes)
	slices.SortFunc(byName, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	claims := slices.Clone(c.nodes)
	slices.SortFunc(claims, func(a, b *node) int { return strings.Compare(a.claimName, b.claimName) })
	for _, n := range claims {
		lw.add(c.nodeClaim(n))
	}
	for _, n := range byName {
		lw.add(c.nodeObject(n))
	}
	c.writePods(lw)
	dsTemplates := make([]corev1.PodTemplateSpec, len(c.daemonSets))
	for i, ds := range c.daemonSets {
		dsTemplates[i] = ds.template()
		lw.add(c.daemonSetObject(ds, dsTemplates[i]))
	}
	deps := slices.Clone(c.deployments)
	slices.SortFunc(deps, func(a, b *deployment) int {
		return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name))
	})
	for _, d := range deps {
		lw.add(c.deploymentObject(d, d.template()))
	}
	for _, d := range deps {
		lw.add(c.replicaSetObject(d, d.template()))
	}
	for _, d := range deps {
		if d.pdb != "" {
			lw.add(c.pdbObject(d))
		}
	}
	for _, n := range byName {
		lw.add(c.lease(n))
	}
}

// writePods writes every pod sorted by namespace and name: the DaemonSet pods, the replicas
// (bound and pending) and the finished Job pods.
func (c *cluster) writePods(lw *listWriter) {
	type podRef struct {
		namespace, name string
		make            func() *corev1.Pod
	}
	var refs []podRef
	dsTemplates := map[*daemonSet]corev1.PodTemplateSpec{}
	for _, ds := range c.daemonSets {
		dsTemplates[ds] = ds.template()
	}
	for _, n := range c.nodes {
		for _, ds := range c.daemonSets {
			if ds.runsOn(n) {
				refs = append(refs, podRef{ds.namespace, ds.podName(n), func() *corev1.Pod { return c.daemonSetPod(ds, n, dsTemplates[ds]) }})
			}
		}
	}
	templates := map[*deployment]corev1.PodTemplateSpec{}
	for _, r := range c.replicas {
		d := r.deployment
		refs = append(refs, podRef{d.namespace, r.name, func() *corev1.Pod {
			t, ok := templates[d]
			if !ok {
				t = d.template()
				templates[d] = t
			}
			return c.replicaPod(r, t)
		}})
	}
	for _, r := range c.jobPods {
		refs = append(refs, podRef{"analytics", r.name, func() *corev1.Pod { return c.jobPod(r) }})
	}
	slices.SortStableFunc(refs, func(a, b podRef) int {
		return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name))
	})
	for _, r := range refs {
		lw.add(r.make())
	}
}
