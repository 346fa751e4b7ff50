package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/real-cluster is a production-style cluster: dump.yaml is `kubectl get
// nodes,pods,nodeclaims -A -o yaml` (managedFields, status, heartbeats, DaemonSet pods without
// their DaemonSets, a pending DaemonSet pod, a finished Job pod, a v1beta1 NodeClaim),
// karpenter.yaml the team's NodePools (general in v1, batch still in v1beta1 with a kubelet
// block) and EC2NodeClass (with kubelet settings), new-workloads.yaml what is about to be
// applied, spot-prices.json `aws ec2 describe-spot-price-history`.
//
// The cluster: general (on-demand m5/m6i/c6i) runs A = ip-10-0-12-41 (m5.xlarge, us-east-1a, two
// 1500m/6758Mi api pods and coredns: full) and B = ip-10-0-45-7 (m5.xlarge, us-east-1b, one
// 250m web pod: nearly empty); batch (spot c6i/m5, tainted, expireAfter 168h) runs C =
// ip-10-0-77-19 (c6i.xlarge spot, us-east-1c, two queue workers), launched 2026-02-20. Every
// node runs aws-node (50m), kube-proxy (100m) and ebs-csi-node (30m, 120Mi): 180m and 120Mi
// of DaemonSet overhead, known only from those pods.
var realCluster = filepath.Join("testdata", "real-cluster")

const (
	nodeA = "ip-10-0-12-41.ec2.internal"
	nodeB = "ip-10-0-45-7.ec2.internal"
	nodeC = "ip-10-0-77-19.ec2.internal"
)

func realClusterArgs(files ...string) []string {
	var args []string
	for _, f := range files {
		args = append(args, "-f", filepath.Join(realCluster, f))
	}
	return append(args, "--prices", filepath.Join(realCluster, "spot-prices.json"))
}

// v1beta1Warnings are the objects stderr warns were read as karpenter.sh/v1beta1.
func v1beta1Warnings(stderr string) []string {
	var objects []string
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, "karpenter.sh/v1beta1 is no longer served") {
			continue
		}
		for _, obj := range []string{`NodePool "batch"`, `NodePool "general"`, `NodeClaim "batch-2lr8n"`, `NodeClaim "general-9xk4m"`, `NodeClaim "general-7hq2p"`} {
			if strings.Contains(line, obj) {
				objects = append(objects, obj)
			}
		}
	}
	sort.Strings(objects)
	return objects
}

func TestRealClusterPlan(t *testing.T) {
	args := append([]string{"plan"}, realClusterArgs("dump.yaml", "karpenter.yaml", "new-workloads.yaml")...)
	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{`NodeClaim "batch-2lr8n"`, `NodePool "batch"`}, v1beta1Warnings(stderr))
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	// Every pending pod, and nothing else: the pending DaemonSet pod and the finished Job pod
	// are not pods to plan; the running pods stay where they are.
	where := map[string]string{}
	for _, c := range got.NodeClaims {
		for _, p := range c.Pods {
			where[p] = "new " + c.NodePool
		}
	}
	for _, n := range got.ExistingNodes {
		for _, p := range n.Pods {
			where[p] = n.Name
		}
	}
	assert.Empty(t, got.PodErrors)
	want := map[string]string{
		"shop/reports-0":        "new general",
		"shop/web-canary":       nodeB, // the only untainted node with room
		"jobs/etl-2026-03-02-0": "new batch",
		"jobs/etl-2026-03-02-1": "new batch",
	}
	onC := 0
	for i := range 40 {
		p := fmt.Sprintf("jobs/thumbnails-%d", i)
		if where[p] == nodeC {
			onC++
			want[p] = nodeC
		} else {
			want[p] = "new batch"
		}
	}
	assert.Equal(t, want, where)
	assert.Equal(t, 15, onC, "C runs 5 of its 20 pods (its kubelet's maxPods): 15 thumbnails join it")

	var general []claimOutput
	var batch []claimOutput
	for _, c := range got.NodeClaims {
		if c.NodePool == "general" {
			general = append(general, c)
		} else {
			batch = append(batch, c)
		}
	}

	// reports: 3500m and 8Gi on an on-demand general node, with the DaemonSets' overhead.
	require.Len(t, general, 1)
	g := general[0]
	assert.Equal(t, "on-demand", g.CapacityType)
	// The EC2NodeClass reserves 500m for the system: a 4-vCPU type keeps 4000m - 80m - 500m =
	// 3420m, short of 3680m, so the cheapest fit has 8 vCPUs.
	assert.Equal(t, "c6i.2xlarge", g.InstanceType, "the cheapest 8-vCPU type (m5.xlarge would fit without systemReserved)")
	assert.Equal(t, 0.34, g.PricePerHour)
	cpu, mem := g.Requests["cpu"], g.Requests["memory"]
	assert.Equal(t, "3680m", cpu.String(), "3500m + 180m of DaemonSet pods")
	assert.Equal(t, "8312Mi", mem.String(), "8Gi + 120Mi of DaemonSet pods")
	assert.Equal(t, "platform", g.Labels["team"])

	// etl and the other 25 thumbnails: spot nodes of the v1beta1 batch NodePool, in the zone
	// the spot-price file makes cheapest, tainted as the NodePool says. Its kubelet block
	// (maxPods 20) wins over its EC2NodeClass's (maxPods 40): 27 pods and 3 DaemonSet pods
	// each take two nodes, not one.
	require.Len(t, batch, 2)
	pods := 0
	for _, b := range batch {
		assert.Equal(t, []string{"spot", "c6i.xlarge", "us-east-1b"}, []string{b.CapacityType, b.InstanceType, b.Zone})
		assert.Equal(t, 0.0655, b.PricePerHour)
		n := b.Requests["pods"]
		assert.LessOrEqual(t, n.Value(), int64(20), "maxPods 20 counts the DaemonSet pods too")
		pods += len(b.Pods)
		require.Len(t, b.Taints, 1)
		assert.Equal(t, "workload", b.Taints[0].Key)
		assert.Equal(t, "batch", b.Labels["workload"])
	}
	assert.Equal(t, 27, pods)
	cpu = batch[0].Requests["cpu"]
	assert.Equal(t, "2330m", cpu.String(), "2 etl pods, 15 thumbnails and 180m of DaemonSets, which tolerate every taint")

	assert.InDelta(t, 0.471, got.PricePerHour, 1e-9)

	// -o yaml says the same: a Nominated event per pending pod, none failed.
	y, _, code := nodeplan(t, append(args, "-o", "yaml")...)
	require.Equal(t, 0, code)
	claims, events := yamlDocs(t, y)
	assert.Len(t, claims, 3)
	nominated := map[string]string{}
	notPlanned := map[string]string{}
	for _, e := range events {
		if e.Reason == eventNotPlanned {
			notPlanned[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = strings.SplitN(e.Message, ":", 2)[0]
			continue
		}
		require.Equal(t, eventNominated, e.Reason)
		target := "new " + strings.SplitN(e.Related.Name, "-", 2)[0]
		if e.Related.Kind == "Node" {
			target = e.Related.Name
		}
		nominated[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = target
	}
	assert.Equal(t, want, nominated)
	assert.Equal(t, map[string]string{"kube-system/aws-node-pjx5m": notPlannedDaemonSetPod}, notPlanned, "the dump's pending DaemonSet pod")
}

func TestRealClusterDisrupt(t *testing.T) {
	args := append([]string{"disrupt"}, realClusterArgs("dump.yaml", "karpenter.yaml")...)
	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{`NodeClaim "batch-2lr8n"`, `NodePool "batch"`}, v1beta1Warnings(stderr))
	assert.NotContains(t, stderr, "pass --now", "the heartbeats date the dump")
	var got disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	// Judged at the newest kubelet heartbeat, the dump's time.
	assert.Equal(t, nowFromNodeHeartbeat, got.Now.Source)
	assert.Equal(t, "2026-03-02T09:14:51Z", got.Now.Time.Format("2006-01-02T15:04:05Z07:00"))
	assert.True(t, got.Now.TracksDumpTime)

	type command struct {
		Method, Reason string
		Candidates     []string
		Replacements   []string
		Savings        float64
	}
	var commands []command
	for _, c := range got.Commands {
		cmd := command{Method: c.Method, Reason: c.Reason, Candidates: c.Candidates, Savings: c.SavingsPerHour}
		for _, r := range c.Replacements {
			cmd.Replacements = append(cmd.Replacements, r.NodePool+"/"+r.InstanceType+"/"+r.CapacityType)
		}
		commands = append(commands, cmd)
	}
	assert.Equal(t, []command{
		// C was launched 2026-02-20 under batch's v1beta1 expireAfter 168h, which its v1beta1
		// NodeClaim takes from the converted NodePool: expired on 2026-02-27.
		{Method: "expiration", Reason: "Expired", Candidates: []string{nodeC}},
		// B's web pod does not fit on the full A (456Mi free, 512Mi asked) nor on the tainted
		// C: B (0.192) is replaced by a c6i.large (0.085), the cheapest general type with room.
		{Method: "single-node", Reason: "Underutilized", Candidates: []string{nodeB}, Replacements: []string{"general/c6i.large/on-demand"}, Savings: 0.107},
	}, commands)

	// The expired node's workers go first to a new spot node of batch, at the cheapest zone's
	// spot price.
	require.Len(t, got.Provisioned, 1)
	p := got.Provisioned[0]
	assert.Equal(t, []string{"batch", "c6i.xlarge", "spot", "us-east-1b"}, []string{p.NodePool, p.InstanceType, p.CapacityType, p.Zone})
	assert.Equal(t, []string{"jobs/queue-worker-84d6f7c9b5-bb7rt", "jobs/queue-worker-84d6f7c9b5-c4vnd"}, p.Pods)

	// A stays: general's budget (10 % of 2 nodes: 1) is spent on B.
	require.Len(t, got.Blocked, 1)
	assert.Equal(t, nodeA, got.Blocked[0].Node)
	require.NotEmpty(t, got.Blocked[0].Blockers)
	one, two := 1, 2
	assert.Equal(t, blockerOutput{Code: "Budget", Object: "general", Budget: "Underutilized", Allowed: &one, Nodes: &two, Disrupting: &one},
		blockerData(got.Blocked[0].Blockers[0]), got.Blocked[0].Reason)

	// The table and the YAML judge at the same time and lose nothing.
	table, _, code := nodeplan(t, append(args, "-o", "table")...)
	require.Equal(t, 0, code)
	first, _, _ := strings.Cut(table, "\n")
	assert.Contains(t, first, "2026-03-02T09:14:51Z")
	y, _, code := nodeplan(t, append(args, "-o", "yaml")...)
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(y, "# nodeplan disrupt judged at 2026-03-02T09:14:51Z"))
	claims, events := yamlDocs(t, y)
	assert.Len(t, claims, 2, "the provisioned NodeClaim and B's replacement")
	terminating := map[string]string{}
	for _, e := range events {
		if e.Reason == eventDisruptionTerminating {
			terminating[e.InvolvedObject.Name] = e.Action
		}
	}
	assert.Equal(t, map[string]string{nodeC: "expiration/Delete", nodeB: "single-node/Replace"}, terminating)
}
