package fake_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestAlwaysSchedulable: the always-schedulable mode keeps its promise under both packings
// and preference policies: Solve places every pod, and verify finds no broken rule.
func TestAlwaysSchedulable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := fake.SchedulableInstanceTypesGenerator(5).Draw(t, "types")
		pods := fake.PodsGeneratorWith(30, "p", fake.SchedulablePodSettings()).Draw(t, "pods")
		snap := oneNodePool(t, fake.NodePool("default").Obj(), types, pods)
		opts := scheduling.Options{
			Packing: rapid.SampledFrom([]scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter}).Draw(t, "packing"),
		}
		res, err := scheduling.Solve(snap, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.PodErrors) > 0 {
			t.Fatalf("%d of %d pods not placed, first %s: %s", len(res.PodErrors), len(pods), res.PodErrors[0].Pod.Name, res.PodErrors[0].Message())
		}
		if vs := verify.Solve(snap, opts, res); len(vs) > 0 {
			t.Fatalf("%v\n%s", vs, snap)
		}
	})
}

// oneNodePool is the snapshot of pending pods with one NodePool (named "default") over types.
func oneNodePool(t *rapid.T, pool *v1.NodePool, types cloudprovider.InstanceTypes, pods []*corev1.Pod) *cluster.Snapshot {
	snap, err := cluster.New(cluster.Objects{
		NodePools:       []*v1.NodePool{pool},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": types},
		WellKnownLabels: fake.WellKnownLabels(),
		Pods:            pods,
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
