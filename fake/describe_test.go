package fake

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// TestDescribe: the one-line accounts the generators log name every constraint with its
// values, never a pointer.
func TestDescribe(t *testing.T) {
	pod := Pod("web-1").Label("app", "web").Requests("1500m", "2Gi").NodeSelector(v1.LabelTopologyZone, TestZone1).
		Tolerate("team", "team-a", corev1.TaintEffectNoSchedule).TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "web"}).
		PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}).HostPort(8001).Obj()
	pool := NodePool("batch").Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, v1.CapacityTypeSpot).
		Taint("team", "team-a", corev1.TaintEffectNoSchedule).Weight(10).Limit(corev1.ResourceCPU, "400").Obj()
	it := linuxType("gen-it-0", v1.ArchitectureAmd64, 4, 16, 32, cloudprovider.Offerings{
		cloudprovider.NewOffering(TestZone1, v1.CapacityTypeSpot, 0.042, true), cloudprovider.NewOffering(TestZone2, v1.CapacityTypeOnDemand, 0.1, false)})
	for _, c := range []struct {
		obj  any
		want string
	}{
		{pod, "pod default/web-1 app=web cpu=1500m mem=2Gi nodeSelector{zone=test-zone-1} tolerates{team=team-a:NoSchedule} anti{hostname app=web} spread{zone maxSkew=1 DoNotSchedule} port=8001"},
		{pool, "nodepool batch capacity-type In [spot] taint{team=team-a:NoSchedule} weight=10 limit{cpu=400}"},
		{it, "type gen-it-0 amd64 cpu=4 mem=16Gi pods=32 offers[test-zone-1/spot 0.042, test-zone-2/on-demand 0.1 (unavailable)]"},
		{[]*corev1.Pod{Pod("a").Obj(), nil}, "pod default/a\n<nil pod>"},
	} {
		if got := Describe(c.obj); got != c.want {
			t.Errorf("Describe:\n got %q\nwant %q", got, c.want)
		}
	}
}

// TestGeneratedObjectsDescribeWithoutPointers: whatever the generators draw, its account
// holds no pointer (what rapid's own draw log prints for Kubernetes objects).
func TestGeneratedObjectsDescribeWithoutPointers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := InstanceTypesGenerator(3).Draw(t, "types")
		objs := []any{types, PodsGeneratorWith(5, "p", HostilePodSettings()).Draw(t, "pods"),
			NodePoolsGenerator(3, HostileNodePoolSettings()).Draw(t, "pools"),
			NodeGenerator("n", "pool", types).Draw(t, "node"), DaemonSetGenerator("ds").Draw(t, "ds")}
		for _, o := range objs {
			if d := Describe(o); strings.Contains(d, "0x") {
				t.Fatalf("a pointer in %q", d)
			}
		}
	})
}
