package cluster_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/internal/cputime"
)

// benchObjects is a cluster of nodes nodes with 10 bound pods each, nodes pending pods, and
// a PodDisruptionBudget (without status: the snapshot computes its allowance) for every
// tenth of 100 apps: 11 pods per node in all (5.5k pods at 500 nodes).
func benchObjects(nodes int) cluster.Objects {
	types := fake.InstanceTypes(4)
	o := cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}
	app := func(i int) string { return fmt.Sprint("app-", i%100) }
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		n, nc := fake.NodeAndClaim(name, "default", types[3], types[3].Offerings[0], t0)
		o.Nodes, o.NodeClaims = append(o.Nodes, n), append(o.NodeClaims, nc)
		for j := range 10 {
			p := fake.Pod(fmt.Sprintf("%s-%d", name, j)).Requests("100m", "128Mi").Label("app", app(i*10+j)).NodeName(name).Obj()
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			o.Pods = append(o.Pods, p)
		}
		o.Pods = append(o.Pods, fake.Pod(fmt.Sprint("pending-", i)).Requests("100m", "128Mi").Label("app", app(i)).Obj())
	}
	for i := 0; i < 100; i += 10 {
		o.PodDisruptionBudgets = append(o.PodDisruptionBudgets, fake.PDB(app(i), "default", map[string]string{"app": app(i)}, 1))
	}
	return o
}

// BenchmarkFork times the forks a host loop makes on every change, on a snapshot of 5.5k
// pods (500 nodes): a pod added or removed (pending or bound), and Carry of one pod bound to
// an existing node (what scheduling.Apply does for a one-pod plan).
func BenchmarkFork(b *testing.B) {
	snap, err := cluster.New(benchObjects(500))
	if err != nil {
		b.Fatal(err)
	}
	node := snap.Nodes()[250]
	newPending := fake.Pod("new").Requests("100m", "128Mi").Label("app", "app-0").Obj()
	newBound := fake.Pod("new").Requests("100m", "128Mi").Label("app", "app-0").NodeName(node.BindName()).Obj()
	pending := snap.Pending()[250]
	bound := node.Pods[5]
	forks := []struct {
		name string
		fork func() (*cluster.Snapshot, error)
	}{
		{"WithPods/pending", func() (*cluster.Snapshot, error) { return snap.WithPods(newPending) }},
		{"WithPods/bound", func() (*cluster.Snapshot, error) { return snap.WithPods(newBound) }},
		{"WithoutPods/pending", func() (*cluster.Snapshot, error) { return snap.WithoutPods(pending), nil }},
		{"WithoutPods/bound", func() (*cluster.Snapshot, error) { return snap.WithoutPods(bound), nil }},
		{"Carry/one-pod", func() (*cluster.Snapshot, error) {
			return snap.Carry(nil, []cluster.Move{{Pod: pending, To: node.BindName(), Claim: -1}}, nil)
		}},
	}
	for _, f := range forks {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Now()
			var out *cluster.Snapshot
			for b.Loop() {
				if out, err = f.fork(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
			if out == snap {
				b.Fatal("the fork returned its parent")
			}
		})
	}
	b.Run("New", func(b *testing.B) {
		o := benchObjects(500)
		b.ReportAllocs()
		cpu := cputime.Now()
		for b.Loop() {
			if _, err := cluster.New(o); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(cputime.Per(cpu, b.N), "cpu-ns/op")
	})
}
