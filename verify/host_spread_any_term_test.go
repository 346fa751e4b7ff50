package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestAnyTermPassKeepsTheHostSpreadCap: the default's pass that offers existing nodes every
// required node-affinity term first is held to the hostname-spread cap like every other
// placement. The plan binds a web pod that spreads over hosts (maxSkew 1) to node-1; pod "w"
// is selected by that spread but does not carry it, and only its second term admits node-1. On
// node-1 it would leave the carrier two selected pods against empty node-3 (zone 3, which
// neither term admits), so it opens a NodeClaim under its first term instead.
func TestAnyTermPassKeepsTheHostSpreadCap(t *testing.T) {
	web := map[string]string{"app": "web"}
	carrier := fake.Pod("carrier").Requests("200m", "100Mi").Labels(web).TopologySpread(corev1.LabelHostname, 1, web).
		NodeRequirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone1).Obj()
	w := fake.Pod("w").Requests("100m", "100Mi").Labels(web).
		NodeRequirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone2).
		NodeRequirementTerm(corev1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{fake.TestZone1}}).Obj()
	wd := &world{Objects: cluster.Objects{
		Pods:            []*corev1.Pod{carrier, w},
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(5)},
		WellKnownLabels: fake.WellKnownLabels()}}
	wd.addNode("node-1", "default", fake.TestZone1, 4)
	wd.addNode("node-3", "default", fake.TestZone3, 4) // empty: the spread's least populated host
	snap := wd.snap(t)

	res, err := scheduling.Solve(snap, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, res.Bindings, 1, "the carrier takes node-1; w would break its spread there")
	assert.Equal(t, "carrier", res.Bindings[0].Pod.Name)
	assert.Len(t, res.NewNodeClaims, 1)
	assert.Empty(t, verify.Solve(snap, scheduling.Options{}, res))
}
