package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
)

// TestMultiNodeSameTypeWithoutSpotOffering: a multi-node replacement open to both capacity
// types must be spot, but Karpenter only adds that requirement to the claim: a candidate's own
// type that has no spot offering in the claim's zone stays among its options, so that
// candidate's price still caps the replacement (filterOutSameInstanceType). From disrupt seed
// 880215 (tiny stands for m7-1x4 on-demand in test-zone-c, mem for r5g-4x32, spot only in
// test-zone-b); want is karpenter-disrupt's answer on the same cluster.
func TestMultiNodeSameTypeWithoutSpotOffering(t *testing.T) {
	its := cloudprovider.InstanceTypes{
		zonalType("tiny", 1, 0.0444, map[string]float64{"test-zone-c": 0.0143}),
		zonalType("mem", 4, 0.3, map[string]float64{"test-zone-b": 0.0862}),
		zonalType("big", 16, 0.5, nil),
	}
	node := func(name, poolName, typ, zone string, pods ...*corev1.Pod) *cluster.Node {
		return zonalNode(its, name, poolName, typ, v1.CapacityTypeOnDemand, zone, pods...)
	}
	inZoneB := bound("b1", "500m")
	inZoneB.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: "test-zone-b"}
	both := pool("pool", spotToo)
	fixed := pool("fixed")
	fixed.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration("Never")
	in := input([]*v1.NodePool{both, fixed},
		// a1 fits on node-d; b1 needs a new claim in test-zone-b, where tiny has no spot.
		node("node-a", "pool", "tiny", "test-zone-c", bound("a1", "100m")),
		node("node-b", "pool", "mem", "test-zone-b", inZoneB),
		node("node-d", "fixed", "big", "test-zone-c", bound("d1", "8")))
	in.InstanceTypes = map[string]cloudprovider.InstanceTypes{"pool": its, "fixed": its}
	// Replacing both by one mem (spot 0.0862) is dearer than keeping node-a's tiny (0.0444):
	// no multi-node command; each goes alone.
	planWithCommands(t, in, []string{
		"single-node Underutilized [node-b] [mem/spot]",
		"single-node Underutilized [node-a] []",
	})
}
