package disruption

import (
	"fmt"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/internal/cputime"
)

// benchCluster is /work/shared/bench/cluster-workload's shape built in Go: the scenario
// instance types, three NodePools (general on-demand, batch spot+on-demand, memory
// on-demand; consolidateAfter 0s, budget 10%), n nodes over three zones, each filled to a
// random 5-95 % by 1-19 pods (5 % of nodes empty), 1 % do-not-disrupt pods, PDBs
// (maxUnavailable 1) on 2 % of the apps.
func benchCluster(n int, seed int64) *fixture {
	rng := rand.New(rand.NewSource(seed))
	type shape struct {
		name     string
		cpu, mem int
		od, spot float64
	}
	shapes := []shape{{"s-2x4", 2, 4, 0.08, 0.03}, {"s-4x8", 4, 8, 0.16, 0.06}, {"s-8x16", 8, 16, 0.32, 0.12},
		{"s-16x32", 16, 32, 0.64, 0.24}, {"m-2x16", 2, 16, 0.13, 0.05}, {"m-4x32", 4, 32, 0.26, 0.10}}
	zones := []string{"test-zone-a", "test-zone-b", "test-zone-c"}
	var types cloudprovider.InstanceTypes
	byName := map[string]shape{}
	for _, s := range shapes {
		byName[s.name] = s
		var offs cloudprovider.Offerings
		for _, z := range zones {
			offs = append(offs, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, s.od, true), cloudprovider.NewOffering(z, v1.CapacityTypeSpot, s.spot, true))
		}
		types = append(types, fake.NewInstanceType(fake.InstanceTypeOptions{Name: s.name, OperatingSystems: []string{"linux"}, Offerings: offs,
			Overhead: &cloudprovider.InstanceTypeOverhead{},
			Labels:   map[string]string{"example.com/family": s.name[:1], "example.com/cpu": fmt.Sprint(s.cpu)},
			Resources: corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(s.cpu), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(s.mem)<<30, resource.BinarySI), corev1.ResourcePods: resource.MustParse("110")}}))
	}
	poolDefs := []struct {
		name  string
		cts   []string
		types []string
	}{{"general", []string{"on-demand"}, []string{"s-4x8", "s-8x16", "s-16x32"}},
		{"batch", []string{"spot", "on-demand"}, []string{"s-2x4", "s-4x8", "s-8x16"}},
		{"memory", []string{"on-demand"}, []string{"m-2x16", "m-4x32"}}}
	in := &fixture{Now: t0.Add(6 * 3600e9), Objects: cluster.Objects{InstanceTypes: map[string]cloudprovider.InstanceTypes{}, WellKnownLabels: fake.WellKnownLabels()}}
	in.WellKnownLabels["example.com/family"], in.WellKnownLabels["example.com/cpu"] = true, true
	for _, p := range poolDefs {
		np := pool(p.name, budget("10%"))
		np.Spec.Template.Spec.Requirements[0].Values = p.cts
		in.NodePools = append(in.NodePools, np)
		in.InstanceTypes[p.name] = types
	}
	pdbApps := map[string]bool{}
	for i := 0; i < n; i++ {
		p := poolDefs[rng.Intn(len(poolDefs))]
		s := byName[p.types[rng.Intn(len(p.types))]]
		zone, ct := zones[rng.Intn(3)], p.cts[rng.Intn(len(p.cts))]
		name := fmt.Sprintf("node-%05d", i)
		it := typeByName(types, s.name)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0), Labels: map[string]string{
			v1.NodePoolLabelKey: p.name, v1.LabelInstanceType: s.name, v1.LabelTopologyZone: zone, v1.CapacityTypeLabelKey: ct,
			v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.LabelHostname: name, v1.NodeInitializedLabelKey: "true",
			"example.com/family": s.name[:1], "example.com/cpu": fmt.Sprint(s.cpu)}},
			Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity}}
		sn := &cluster.Node{Node: node}
		fill := 0.0
		if rng.Float64() >= 0.05 {
			fill = 0.05 + rng.Float64()*0.9
		}
		if fill > 0 {
			pods := 1 + rng.Intn(19)
			for j := 0; j < pods; j++ {
				app := fmt.Sprintf("app-%d", rng.Intn(200))
				pod := bound(fmt.Sprintf("%s-p%d", name, j), fmt.Sprintf("%dm", int(float64(s.cpu)*1000*fill/float64(pods))))
				pod.Labels = map[string]string{"app": app}
				pod.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(int64(float64(s.mem)*1024*fill/float64(pods))<<20, resource.BinarySI)
				pod.Spec.NodeName = name
				if rng.Float64() < 0.01 {
					pod.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
				}
				if rng.Float64() < 0.02 {
					pdbApps[app] = true
				}
				sn.Pods = append(sn.Pods, pod)
			}
		}
		in.Nodes = append(in.Nodes, sn)
	}
	for i := 0; i < 200; i++ {
		if app := fmt.Sprintf("app-%d", i); pdbApps[app] {
			in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, pdbFor(app))
		}
	}
	return in
}

func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { benchmarkPlan(b, n, false) })
	}
}

// BenchmarkNewAndPlan is BenchmarkPlan with cluster.New inside the loop: what a host pays
// per round when it builds a fresh snapshot of its objects (and what Plan of the objects
// cost before issue #8, when it took them directly).
func BenchmarkNewAndPlan(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { benchmarkPlan(b, n, true) })
	}
}

// benchmarkPlan times Plan, and with fresh cluster.New before it, on benchCluster(n, 42); it
// verifies the last result once, outside the timed loop.
func benchmarkPlan(b *testing.B, n int, fresh bool) {
	in := benchCluster(n, 42)
	o, err := in.objects()
	if err != nil {
		b.Fatal(err)
	}
	snap, err := in.snapshot()
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	cpu := cputime.Now()
	for b.Loop() {
		if fresh {
			if snap, err = cluster.New(o); err != nil {
				b.Fatal(err)
			}
		}
		if res, err = Plan(snap, in.Now, in.Options); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op") // steadier than ns/op on a shared machine
	verified(b, snap, in.Now, in.Options, res)
	saved, disrupted := 0.0, 0
	for _, c := range res.Commands {
		saved += c.SavingsPerHour
		disrupted += len(c.Candidates)
	}
	b.ReportMetric(float64(len(res.Commands)), "commands")
	b.ReportMetric(float64(disrupted), "nodes-disrupted")
	b.ReportMetric(saved, "$/h-saved")
}

func TestBenchClusterRespectsBudgets(t *testing.T) {
	in := benchCluster(100, 42)
	res := planNothingLost(t, in)
	if len(res.Commands) == 0 {
		t.Fatal("want some commands on the benchmark cluster")
	}
}
