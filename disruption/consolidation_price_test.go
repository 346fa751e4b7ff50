package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// zonalType is a type of cpu vCPUs with the given spot prices by zone and on-demand at od
// in zones a-c.
func zonalType(name string, cpu int, od float64, spot map[string]float64) *cloudprovider.InstanceType {
	var offs cloudprovider.Offerings
	for _, z := range []string{"test-zone-a", "test-zone-b", "test-zone-c"} {
		offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, od, true))
		if p, ok := spot[z]; ok {
			offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeSpot, p, true))
		}
	}
	return typeOf(name, cpu, offs)
}

// zonalNode is an initialized, Ready node of its type typ in zone, capacity type ct, created
// at t0, with pods bound to it.
func zonalNode(its cloudprovider.InstanceTypes, name, poolName, typ, ct, zone string, pods ...*corev1.Pod) *cluster.Node {
	it := typeByName(its, typ)
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0), Labels: map[string]string{
			v1.NodePoolLabelKey: poolName, v1.LabelInstanceType: typ, v1.LabelTopologyZone: zone,
			v1.CapacityTypeLabelKey: ct, v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.LabelHostname: name,
			v1.NodeInitializedLabelKey: "true", v1.NodeRegisteredLabelKey: "true",
		}},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	return &cluster.Node{Node: n, Pods: pods}
}

// TestMultiNodePricesOpenZones: multi-node consolidation judges a replacement of a
// candidate's own type by its worst-case launch price over the zones Karpenter's NodeClaim
// stays open on, not over the zone nodeplan's spread settlement pins it to (launch.go).
// Both rows give karpenter-disrupt's commands (--spot-to-spot).
func TestMultiNodePricesOpenZones(t *testing.T) {
	all := map[string]float64{"test-zone-a": 0.05, "test-zone-b": 0.05, "test-zone-c": 0.05}
	its := cloudprovider.InstanceTypes{
		// tiny's spot launch in zones b and c is at worst node-a's own price.
		zonalType("tiny", 1, 0.0321, map[string]float64{"test-zone-b": 0.0137, "test-zone-c": 0.0098}),
		zonalType("mid", 4, 0.12, all),
		zonalType("big", 8, 0.24, map[string]float64{"test-zone-a": 0.1, "test-zone-b": 0.1, "test-zone-c": 0.1}),
	}
	node := func(name, poolName, typ, ct, zone string, pods ...*corev1.Pod) *cluster.Node {
		return zonalNode(its, name, poolName, typ, ct, zone, pods...)
	}
	pod := func(name, cpu, app string, spread bool) *corev1.Pod {
		p := bound(name, cpu)
		p.Labels["app"] = app
		p.UID = types.UID("uid-" + p.Name)
		ctrl := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-rs", UID: types.UID("uid-" + app), Controller: &ctrl}}
		if spread {
			p.Spec.TopologySpreadConstraints = fake.Pod("x").TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "web"}).Obj().Spec.TopologySpreadConstraints
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		spread bool
		want   []string
	}{
		// a1 must leave zone a, so it needs a new NodeClaim open on zones b and c; tiny's
		// worst case there (0.0137) is not below node-a's price: Karpenter keeps node-a.
		{"zone spread keeps the claim open on two zones", true, []string{"single-node Underutilized [node-b] []"}},
		// Without the spread a1 fits on node-d: both candidates go without a replacement.
		{"no spread, no replacement", false, []string{"multi-node Underutilized [node-a node-b] []"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spot := fake.NodePool("spot").Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeSpot).
				Disruption(v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("0s"), Budgets: []v1.Budget{{Nodes: "100%"}}}).Obj()
			fixed := pool("fixed")
			fixed.Spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration("Never")
			in := input([]*v1.NodePool{spot, fixed},
				node("node-a", "spot", "tiny", v1.CapacityTypeSpot, "test-zone-b", pod("a1", "600m", "web", tc.spread)),
				node("node-b", "spot", "big", v1.CapacityTypeSpot, "test-zone-c", pod("b1", "500m", "other", false), pod("b2", "500m", "other", false)),
				node("node-c", "fixed", "mid", v1.CapacityTypeOnDemand, "test-zone-a", pod("w1", "2", "web", tc.spread), pod("w2", "2", "web", tc.spread)),
				node("node-d", "fixed", "mid", v1.CapacityTypeOnDemand, "test-zone-a", pod("d1", "1", "other", false)))
			in.InstanceTypes = map[string]cloudprovider.InstanceTypes{"spot": its, "fixed": its}
			in.Now = t0.Add(25 * time.Hour)
			in.Options.SpotToSpotConsolidation = true
			planWithCommands(t, in, tc.want)
		})
	}
}
