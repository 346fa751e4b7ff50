package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestZoneSpreadJudgedAsLaunched: a plan binds a pod carrying a zone spread (maxSkew 1) to
// node-1 with two pods the spread only selects. Bound carrier first, it finds zone 1 empty,
// but kube-scheduler may bind the other two first: zone 1 then holds 3 against zones 2 and
// 3's none, and the carrier stays pending. verify reports it (TopologySpreadAsLaunched),
// as the hostname spread's (difftest default plan:930000: zones 7/9/6).
func TestZoneSpreadJudgedAsLaunched(t *testing.T) {
	web := map[string]string{"app": "web"}
	carrier := fake.Pod("carrier").Requests("100m", "100Mi").Labels(web).TopologySpread(v1.LabelTopologyZone, 1, web).Obj()
	w1 := fake.Pod("w1").Requests("100m", "100Mi").Labels(web).Obj()
	w2 := fake.Pod("w2").Requests("100m", "100Mi").Labels(web).Obj()
	wd := &world{Objects: cluster.Objects{
		Pods:            []*corev1.Pod{carrier, w1, w2},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(5)},
		WellKnownLabels: fake.WellKnownLabels()}}
	for _, n := range []struct{ name, zone string }{{"node-1", fake.TestZone1}, {"node-2", fake.TestZone2}, {"node-3", fake.TestZone3}} {
		wd.addNode(n.name, "default", n.zone, 4)
	}
	snap := wd.snap(t)
	bind := func(to ...string) *scheduling.Result {
		res := &scheduling.Result{}
		for i, p := range []*corev1.Pod{carrier, w1, w2} {
			res.Bindings = append(res.Bindings, cluster.Move{Pod: p, To: to[i], Claim: -1})
		}
		return res
	}
	vs := verify.Solve(snap, scheduling.Options{}, bind("node-1", "node-1", "node-1"))
	if assert.Len(t, vs, 1) {
		assert.Equal(t, verify.TopologySpreadAsLaunched, vs[0].Code)
		assert.Equal(t, "default/carrier", vs[0].Pod)
		assert.Equal(t, int64(3), vs[0].Got)
	}
	assert.Empty(t, verify.Solve(snap, scheduling.Options{}, bind("node-1", "node-2", "node-3")), "one pod a zone")
}

// TestZoneSpreadBindsNowOverTheNodesDomains: a carrier of a zone spread (maxSkew 1) placed on
// an initialized Node binds at once, before any NodeClaim launches, and kube-scheduler then
// sees the Nodes' zones alone: zone 3, where the NodePool could launch a node but none is,
// holds no minimum at zero for it. Bound to node-1 it makes zones 1 and 2 hold 2 and 1: no
// violation. The same carrier on a NodeClaim in zone 1 binds once that launches, when a node
// in zone 3 may be there too: the minimum is over the eligible domains, zone 3 among them, and
// verify reports the spread (difftest default plan:1000232: verify flagged Karpenter's plan,
// which kube-scheduler accepts).
func TestZoneSpreadBindsNowOverTheNodesDomains(t *testing.T) {
	web := map[string]string{"app": "web"}
	carrier := fake.Pod("carrier").Requests("100m", "100Mi").Labels(web).TopologySpread(v1.LabelTopologyZone, 1, web).Obj()
	w1, w2 := running("w1", "100m"), running("w2", "100m")
	w1.Labels, w2.Labels = web, web
	types := fake.InstanceTypes(5)
	wd := &world{Objects: cluster.Objects{
		Pods:            []*corev1.Pod{carrier},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels()}}
	wd.addNode("node-1", "default", fake.TestZone1, 4, w1)
	wd.addNode("node-2", "default", fake.TestZone2, 4, w2)
	snap := wd.snap(t)

	now := &scheduling.Result{Bindings: []cluster.Move{{Pod: carrier, To: "node-1", Claim: -1}}}
	assert.Empty(t, verify.Solve(snap, scheduling.Options{}, now), "bound now, over the Nodes' zones 1 and 2")

	it := types[0]
	later := &scheduling.Result{NewNodeClaims: []*scheduling.NodeClaim{{NodePool: "default", Hostname: "claim-1",
		Pods:         []*corev1.Pod{carrier},
		Requirements: requirements.NewRequirements(requirements.MustNew(v1.LabelTopologyZone, requirements.In, fake.TestZone1)),
		InstanceType: it, InstanceTypeOptions: cloudprovider.InstanceTypes{it},
		Offering: offeringIn(it, fake.TestZone1, v1.CapacityTypeOnDemand)}}}
	vs := verify.Solve(snap, scheduling.Options{}, later)
	if assert.Len(t, vs, 1) {
		assert.Equal(t, verify.TopologySpread, vs[0].Code)
		assert.Equal(t, "default/carrier", vs[0].Pod)
		assert.Equal(t, int64(2), vs[0].Got)
	}
}
