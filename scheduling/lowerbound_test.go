package scheduling_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// boundType is an instance type without overhead (allocatable = capacity), so that the
// hand-solved bounds below are round numbers.
func boundType(name string, cpu, memGi, pods int, extra corev1.ResourceList, offerings ...*cloudprovider.Offering) *cloudprovider.InstanceType {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(int64(memGi)<<30, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	for k, v := range extra {
		res[k] = v
	}
	return fake.NewInstanceType(fake.InstanceTypeOptions{Name: name, OperatingSystems: []string{"linux"}, Resources: res,
		Offerings: offerings, Overhead: &cloudprovider.InstanceTypeOverhead{}})
}

func onDemand(zone string, price float64) *cloudprovider.Offering {
	return cloudprovider.NewOffering(zone, v1.CapacityTypeOnDemand, price, true)
}

// pods are n pods named prefix-0.. built by b.
func pods(n int, prefix string, b func(*fake.PodBuilder) *fake.PodBuilder) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = b(fake.Pod(fmt.Sprintf("%s-%d", prefix, i))).Obj()
	}
	return out
}

func cpuMem(cpu, mem string) func(*fake.PodBuilder) *fake.PodBuilder {
	return func(b *fake.PodBuilder) *fake.PodBuilder { return b.Requests(cpu, mem) }
}

// TestLowerBoundHandSolved: small programs whose optimum is worked out by hand in each case.
func TestLowerBoundHandSolved(t *testing.T) {
	z1, z2 := fake.TestZone1, fake.TestZone2
	small := boundType("small", 4, 8, 10, nil, onDemand(z1, 1))
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	node, claim := fake.NodeAndClaim("node-1", "default", small, small.Offerings[0], time.Unix(0, 0))
	for _, tc := range []struct {
		name    string
		objs    cluster.Objects
		nodes   []*cluster.Node
		want    float64
		leftOut []string
		mix     map[string]float64 // instance type → nodes
	}{
		{
			name: "one pod is a quarter of the only type (cpu 1 of 4)",
			objs: oneNodePool(small, pods(1, "p", cpuMem("1", "1Gi"))...),
			want: 0.25, mix: map[string]float64{"small": 0.25},
		},
		{
			name: "pods are a resource: 5 tiny pods take half of a 10-pod type",
			objs: oneNodePool(boundType("wide", 64, 256, 10, nil, onDemand(z1, 1)), pods(5, "p", cpuMem("100m", "100Mi"))...),
			want: 0.5,
		},
		{
			// cpu: 4c + r ≥ 5; memory: 4c + 16r ≥ 20 → c = r = 1; either type alone costs 5.
			name: "complementary types mix: one cpu-heavy and one memory-heavy node",
			objs: oneNodePool2(
				cloudprovider.InstanceTypes{boundType("c", 4, 4, 100, nil, onDemand(z1, 1)), boundType("r", 1, 16, 100, nil, onDemand(z1, 1))},
				append(pods(4, "cpu", cpuMem("1", "1Gi")), pods(4, "mem", cpuMem("250m", "4Gi"))...)...),
			want: 2, mix: map[string]float64{"c": 1, "r": 1},
		},
		{
			// The zone-2 pod pays zone 2's price for its whole node (2), the other takes zone 1's (1).
			name: "a pod's zone keeps it to that zone's offerings",
			objs: oneNodePool(boundType("a", 4, 8, 10, nil, onDemand(z1, 1), onDemand(z2, 2)),
				fake.Pod("in-z2").Requests("4", "1Gi").NodeSelector(v1.LabelTopologyZone, z2).Obj(),
				fake.Pod("anywhere").Requests("4", "1Gi").Obj()),
			want: 3,
		},
		{
			// Either term allows zone 2, the cheaper one; the zone-1-only pod pays 2 for its node.
			name: "OR-ed node-affinity terms allow either",
			objs: oneNodePool(boundType("a", 4, 8, 10, nil, onDemand(z1, 2), onDemand(z2, 1)),
				fake.Pod("either").Requests("4", "1Gi").
					NodeRequirementTerm(corev1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{z1}}).
					NodeRequirementTerm(corev1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{z2}}).Obj(),
				fake.Pod("z1-only").Requests("4", "1Gi").NodeSelector(v1.LabelTopologyZone, z1).Obj()),
			want: 3,
		},
		{
			// A DaemonSet of 1 cpu leaves 3 of 4: a 3-cpu pod needs the whole node, not 3/4 of it.
			name: "DaemonSet overhead is taken from each type",
			objs: withDaemonSet(oneNodePool(small, pods(1, "p", cpuMem("3", "1Gi"))...), fake.Pod("ds").Requests("1", "1Gi").Obj()),
			want: 1,
		},
		{
			name: "a pod no type fits is left out",
			objs: oneNodePool(small, fake.Pod("huge").Requests("5", "1Gi").Obj(), fake.Pod("fits").Requests("1", "1Gi").Obj()),
			want: 0.25, leftOut: []string{"huge"},
		},
		{
			// The tolerating pod takes the tainted pool's type (1); the other only the
			// PreferNoSchedule pool's (3), which its relaxation tolerates.
			name: "NoSchedule taints keep pods out, PreferNoSchedule ones do not",
			objs: cluster.Objects{
				NodePools: []*v1.NodePool{
					fake.NodePool("tainted").Taint("team", "a", corev1.TaintEffectNoSchedule).Obj(),
					fake.NodePool("preferred").Taint("prefer", "no", corev1.TaintEffectPreferNoSchedule).Obj(),
				},
				InstanceTypes: map[string]cloudprovider.InstanceTypes{
					"tainted":   {boundType("cheap", 4, 8, 10, nil, onDemand(z1, 1))},
					"preferred": {boundType("dear", 4, 8, 10, nil, onDemand(z1, 3))},
				},
				Pods: []*corev1.Pod{
					fake.Pod("team-a").Requests("4", "1Gi").Tolerate("team", "a", corev1.TaintEffectNoSchedule).Obj(),
					fake.Pod("other").Requests("4", "1Gi").Obj(),
				},
				WellKnownLabels: fake.WellKnownLabels(),
			},
			want: 4,
		},
		{
			name: "a pod no NodePool tolerates is left out",
			objs: cluster.Objects{
				NodePools:       []*v1.NodePool{fake.NodePool("tainted").Taint("team", "a", corev1.TaintEffectNoSchedule).Obj()},
				InstanceTypes:   map[string]cloudprovider.InstanceTypes{"tainted": {small}},
				Pods:            []*corev1.Pod{fake.Pod("other").Requests("1", "1Gi").Obj()},
				WellKnownLabels: fake.WellKnownLabels(),
			},
			want: 0, leftOut: []string{"other"},
		},
		{
			// 6 cpu of pods, 4 free on the existing node: 2 cpu of a new 4-cpu node.
			name:  "room on existing nodes is free",
			objs:  oneNodePool(small, pods(3, "p", cpuMem("2", "1Gi"))...),
			nodes: []*cluster.Node{{Node: node.DeepCopy(), NodeClaim: claim.DeepCopy()}},
			want:  0.5,
		},
		{
			// One reserved node at 0.1, then two on-demand at 1.
			name: "a capacity reservation's count is kept",
			objs: oneNodePool(boundType("a", 4, 8, 10, nil, cloudprovider.NewReservedOffering(z1, "cr-1", 0.1, 1), onDemand(z1, 1)),
				pods(3, "p", cpuMem("4", "1Gi"))...),
			want: 2.1,
		},
		{
			// The GPU pod needs a GPU node (5), whose other 7 cpu serve the cpu pod, which
			// takes its last cpu from an eighth of the plain type (0.125).
			name: "extended resources: only types that have them",
			objs: oneNodePool2(
				cloudprovider.InstanceTypes{boundType("plain", 8, 16, 10, nil, onDemand(z1, 1)), boundType("gpu", 8, 16, 10, gpu, onDemand(z1, 5))},
				fake.Pod("gpu").Requests("1", "1Gi").Request("nvidia.com/gpu", "1").Obj(),
				fake.Pod("cpu").Requests("8", "1Gi").Obj()),
			want: 5.125, mix: map[string]float64{"plain": 0.125, "gpu": 1},
		},
		{
			name: "a NodePool's requirements: an arm64 pool of amd64 types takes nothing",
			objs: cluster.Objects{
				NodePools:       []*v1.NodePool{fake.NodePool("arm").Requirement(v1.LabelArch, corev1.NodeSelectorOpIn, v1.ArchitectureArm64).Obj()},
				InstanceTypes:   map[string]cloudprovider.InstanceTypes{"arm": {small}},
				Pods:            []*corev1.Pod{fake.Pod("p").Requests("1", "1Gi").Obj()},
				WellKnownLabels: fake.WellKnownLabels(),
			},
			want: 0, leftOut: []string{"p"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapOf(t, tc.objs, tc.nodes...)
			b := mustBound(t, snap)
			if math.Abs(b.PerHour-tc.want) > 1e-9 {
				t.Fatalf("bound %v, want %v (mix %+v)", b.PerHour, tc.want, b.Mix)
			}
			var left []string
			for _, p := range b.LeftOut {
				left = append(left, p.Name)
			}
			if fmt.Sprint(left) != fmt.Sprint(tc.leftOut) {
				t.Fatalf("left out %v, want %v", left, tc.leftOut)
			}
			if b.Pods != len(snap.Pending())-len(tc.leftOut) {
				t.Fatalf("counts %d pods, want %d", b.Pods, len(snap.Pending())-len(tc.leftOut))
			}
			if tc.mix != nil {
				got := map[string]float64{}
				for _, m := range b.Mix {
					got[m.InstanceType] += m.Nodes
				}
				for it, n := range tc.mix {
					if math.Abs(got[it]-n) > 1e-9 {
						t.Fatalf("mix %v, want %v", got, tc.mix)
					}
				}
				if len(got) != len(tc.mix) {
					t.Fatalf("mix %v, want %v", got, tc.mix)
				}
			}
			// Every plan of the placed pods costs at least the bound.
			for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
				res := planOf(t, snap, packing)
				if placed := mustBound(t, snap.WithoutPods(unplaced(res)...)); !atMost(placed.PerHour, res.Price()) {
					t.Fatalf("%s plan $%v below its pods' bound $%v", packing, res.Price(), placed.PerHour)
				}
			}
		})
	}
}

func oneNodePool(it *cloudprovider.InstanceType, ps ...*corev1.Pod) cluster.Objects {
	return oneNodePool2(cloudprovider.InstanceTypes{it}, ps...)
}

func oneNodePool2(its cloudprovider.InstanceTypes, ps ...*corev1.Pod) cluster.Objects {
	return cluster.Objects{
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": its},
		Pods:            ps,
		WellKnownLabels: fake.WellKnownLabels(),
	}
}

func withDaemonSet(objs cluster.Objects, pod *corev1.Pod) cluster.Objects {
	objs.DaemonSets = append(objs.DaemonSets, fake.DaemonSet("ds", pod))
	return objs
}

// TestLowerBoundEfficiency: bound over price, and 1 for a plan that buys nothing.
func TestLowerBoundEfficiency(t *testing.T) {
	b := &scheduling.Bound{PerHour: 8}
	if got := b.Efficiency(10); got != 0.8 {
		t.Fatalf("Efficiency(10) = %v, want 0.8", got)
	}
	if got := (&scheduling.Bound{}).Efficiency(0); got != 1 {
		t.Fatalf("Efficiency of nothing = %v, want 1", got)
	}
}

// TestLowerBoundWithoutNodePools: with no NodePool every pod is left out and the bound is 0.
func TestLowerBoundWithoutNodePools(t *testing.T) {
	snap := snapOf(t, cluster.Objects{Pods: pods(2, "p", cpuMem("1", "1Gi")), WellKnownLabels: fake.WellKnownLabels()})
	b := mustBound(t, snap)
	if b.PerHour != 0 || len(b.LeftOut) != 2 || b.Pods != 0 {
		t.Fatalf("got %+v, want bound 0 with both pods left out", b)
	}
	if _, err := scheduling.LowerBound(nil, scheduling.Options{}); err == nil {
		t.Fatal("LowerBound(nil) gave no error")
	}
}
