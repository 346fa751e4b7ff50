package main

import (
	"encoding/json"
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
			where[p] = "new " + c.NodePool + " " + c.InstanceType
		}
	}
	for _, n := range got.ExistingNodes {
		for _, p := range n.Pods {
			where[p] = n.Name
		}
	}
	assert.Empty(t, got.PodErrors)
	require.Len(t, got.NodeClaims, 2)
	general, batch := got.NodeClaims[0], got.NodeClaims[1]
	if general.NodePool != "general" {
		general, batch = batch, general
	}
	assert.Equal(t, map[string]string{
		"shop/reports-0":        "new general " + general.InstanceType,
		"shop/web-canary":       nodeB, // the only untainted node with room
		"jobs/etl-2026-03-02-0": "new batch " + batch.InstanceType,
		"jobs/etl-2026-03-02-1": "new batch " + batch.InstanceType,
	}, where)

	// reports: 3500m and 8Gi on an on-demand general node, with the DaemonSets' overhead.
	assert.Equal(t, "general", general.NodePool)
	assert.Equal(t, "on-demand", general.CapacityType)
	assert.Regexp(t, `^(m5|m6i|c6i)\.`, general.InstanceType)
	// The EC2NodeClass reserves 500m for the system: a 4-vCPU type keeps 4000m - 80m - 500m =
	// 3420m, short of 3680m, so the cheapest fit has 8 vCPUs.
	assert.Equal(t, "c6i.2xlarge", general.InstanceType, "the cheapest 8-vCPU type (m5.xlarge would fit without systemReserved)")
	assert.Equal(t, 0.34, general.PricePerHour)
	cpu, mem := general.Requests["cpu"], general.Requests["memory"]
	assert.Equal(t, "3680m", cpu.String(), "3500m + 180m of DaemonSet pods")
	assert.Equal(t, "8312Mi", mem.String(), "8Gi + 120Mi of DaemonSet pods")
	assert.Equal(t, "platform", general.Labels["team"])

	// etl: both pods on one spot node of the v1beta1 batch NodePool, in the zone the spot-price
	// file makes cheapest, tainted as the NodePool says.
	assert.Equal(t, "batch", batch.NodePool)
	assert.Equal(t, "spot", batch.CapacityType)
	assert.Equal(t, "c6i.xlarge", batch.InstanceType)
	assert.Equal(t, "us-east-1b", batch.Zone)
	assert.Equal(t, 0.0655, batch.PricePerHour)
	cpu = batch.Requests["cpu"]
	assert.Equal(t, "2180m", cpu.String(), "the DaemonSet pods tolerate every taint: their overhead is on batch nodes too")
	require.Len(t, batch.Taints, 1)
	assert.Equal(t, "workload", batch.Taints[0].Key)
	assert.Equal(t, "batch", batch.Labels["workload"])

	assert.InDelta(t, 0.4055, got.PricePerHour, 1e-9)

	// -o yaml says the same: a Nominated event per pending pod, none failed.
	y, _, code := nodeplan(t, append(args, "-o", "yaml")...)
	require.Equal(t, 0, code)
	claims, events := yamlDocs(t, y)
	assert.Len(t, claims, 2)
	nominated := map[string]string{}
	for _, e := range events {
		require.Equal(t, eventNominated, e.Reason)
		nominated[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = e.Related.Kind
	}
	assert.Equal(t, map[string]string{"shop/reports-0": "NodeClaim", "shop/web-canary": "Node",
		"jobs/etl-2026-03-02-0": "NodeClaim", "jobs/etl-2026-03-02-1": "NodeClaim"}, nominated)
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
	assert.Contains(t, got.Blocked[0].Reason, `NodePool "general"`)

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
