package scheduling_test

import (
	"flag"
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// benchmarkPods rebuilds Karpenter's scheduling benchmark workload (makeDiversePods): five
// equal classes — generic, zonal spread, hostname spread, zonal self-affinity and hostname
// anti-affinity — with cpu, memory and label values drawn from rng.
func benchmarkPods(n int, rng *rand.Rand) []*corev1.Pod {
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1024Mi", "2048Mi", "4096Mi"}
	vals := []string{"a", "b", "c", "d", "e", "f", "g"}
	pick := func(xs []string) string { return xs[rng.Intn(len(xs))] }
	var pods []*corev1.Pod
	mk := func(lbls map[string]string) *corev1.Pod {
		i := len(pods)
		lbls["testing/cluster"] = "unspecified"
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: "default", Labels: lbls,
				UID: types.UID(fmt.Sprintf("uid-%05d", i))},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		}
		pods = append(pods, p)
		return p
	}
	setRequests := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(pick(cpus)),
			corev1.ResourceMemory: resource.MustParse(pick(mems)),
		}
	}
	spread := func(key string) {
		p := mk(map[string]string{"my-label": pick(vals)})
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": pick(vals)}},
		}}
		setRequests(p)
	}
	per := n / 5
	for i := 0; i < per; i++ {
		p := mk(map[string]string{"my-label": pick(vals)})
		setRequests(p)
	}
	for i := 0; i < per; i++ {
		spread(v1.LabelTopologyZone)
	}
	for i := 0; i < per; i++ {
		spread(v1.LabelHostname)
	}
	for i := 0; i < per; i++ {
		v := pick(vals)
		p := mk(map[string]string{"my-affininity": v})
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   v1.LabelTopologyZone,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-affininity": v}},
			}},
		}}
		setRequests(p)
	}
	for i := 0; i < per; i++ {
		p := mk(map[string]string{"app": "nginx"})
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   v1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			}},
		}}
		setRequests(p)
	}
	for len(pods) < n {
		p := mk(map[string]string{"my-label": pick(vals)})
		setRequests(p)
	}
	return pods
}

// benchmarkObjects is Karpenter's benchmark cluster: n pending pods, 400 fake instance types
// and one unconstrained NodePool.
func benchmarkObjects(n int) cluster.Objects {
	np := fake.NodePool("default").Obj()
	return cluster.Objects{
		Pods:            benchmarkPods(n, rand.New(rand.NewSource(42))),
		NodePools:       []*v1.NodePool{np},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(400)},
		WellKnownLabels: fake.WellKnownLabels(),
	}
}

// benchLarge adds the 100,000-pod size to BenchmarkSolve (about 10 s of CPU per op).
var benchLarge = flag.Bool("bench.large", false, "BenchmarkSolve also at 100,000 pods")

func BenchmarkSolve(b *testing.B) {
	sizes := []int{100, 1000, 5000, 20000}
	if *benchLarge {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) { benchmarkSolve(b, n, scheduling.PackingCostAware) })
	}
	// Karpenter's own packing rule, for comparison.
	b.Run("pods=5000/packing=Karpenter", func(b *testing.B) { benchmarkSolve(b, 5000, scheduling.PackingKarpenter) })
}

// BenchmarkNewAndSolve is BenchmarkSolve with cluster.New inside the loop: what a host pays
// per round when it builds a fresh snapshot of its objects (and what Solve of the objects
// cost before issue #8, when the solver took them directly).
func BenchmarkNewAndSolve(b *testing.B) {
	for _, n := range []int{100, 1000, 5000, 20000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) { benchmarkSolveFresh(b, n, scheduling.PackingCostAware, true) })
	}
}

// BenchmarkVerifySolve times verify.Solve checking BenchmarkSolve's result: what a host pays
// to hold every plan to the independent checker.
func BenchmarkVerifySolve(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			snap := snapOf(b, benchmarkObjects(n))
			opts := scheduling.Options{}
			res, err := scheduling.Solve(snap, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := cputime.Now()
			var vs []verify.Violation
			for b.Loop() {
				vs = verify.Solve(snap, opts, res)
			}
			b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
			if len(vs) > 0 {
				b.Fatalf("%d violations, first: %s", len(vs), vs[0])
			}
		})
	}
}

func benchmarkSolve(b *testing.B, n int, packing scheduling.Packing) {
	benchmarkSolveFresh(b, n, packing, false)
}

// benchmarkSolveFresh times Solve, and with fresh cluster.New before it, on benchmarkObjects(n).
func benchmarkSolveFresh(b *testing.B, n int, packing scheduling.Packing, fresh bool) {
	objs := benchmarkObjects(n)
	snap := snapOf(b, objs)
	opts := scheduling.Options{Packing: packing}
	var res *scheduling.Result
	start, cpu := time.Now(), cputime.Now()
	for b.Loop() {
		var err error
		if fresh {
			if snap, err = cluster.New(objs); err != nil {
				b.Fatal(err)
			}
		}
		if res, err = scheduling.Solve(snap, opts); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op") // steadier than ns/op on a shared machine
	if err := verifyErr(snap, opts, res); err != nil { // once, outside the timed loop
		b.Fatal(err)
	}
	if len(res.PodErrors) > 0 {
		b.Fatalf("%d pods not scheduled, first: %s", len(res.PodErrors), res.PodErrors[0].Message())
	}
	price := res.Price()
	b.ReportMetric(float64(n)/(elapsed.Seconds()/float64(b.N)), "pods/sec")
	b.ReportMetric(float64(len(res.NewNodeClaims)), "nodes")
	b.ReportMetric(price, "$/hour")
	reportBound(b, snap, opts, res)
}

// reportBound reports the lower bound of the pods res places ("bound-$/hour") and how far
// above it res's price is ("price/bound"), computed once after the timed loop.
func reportBound(b *testing.B, snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) {
	bound, err := scheduling.LowerBound(snap.WithoutPods(unplaced(res)...), opts)
	if err != nil {
		b.Fatal(err)
	}
	if !atMost(bound.PerHour, res.Price()) {
		b.Fatalf("bound $%.4f/h above the plan's $%.4f/h", bound.PerHour, res.Price())
	}
	b.ReportMetric(bound.PerHour, "bound-$/hour")
	b.ReportMetric(1/bound.Efficiency(res.Price()), "price/bound")
}
