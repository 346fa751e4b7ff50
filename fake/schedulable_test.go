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
// and preference policies: Solve places every pod (the default may leave one pending for a
// spread as launched), and verify finds no broken rule (but, in Karpenter mode,
// TopologySpreadAsLaunched: Karpenter's own plan breaks it).
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
		// A default plan holds every DoNotSchedule spread as launched, in any bind order: a
		// pod a zone spread only selects, pinned to or left only a carrier's full zone, may
		// then wait (Karpenter's plan places it and breaks the spread).
		var pending []scheduling.PodError
		for _, e := range res.PodErrors {
			if opts.Packing == scheduling.PackingKarpenter || e.Code != scheduling.ReasonTopologySpread {
				pending = append(pending, e)
			}
		}
		if len(pending) > 0 {
			t.Fatalf("%d of %d pods not placed, first %s: %s", len(pending), len(pods), pending[0].Pod.Name, pending[0].Message())
		}
		var vs []verify.Violation
		for _, v := range verify.Solve(snap, opts, res) {
			// Karpenter's own plan lets a pod a hostname spread only selects join a node
			// holding the spread's pods; Karpenter mode gives that plan and reports it.
			if opts.Packing != scheduling.PackingKarpenter || v.Code != verify.TopologySpreadAsLaunched {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
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

// TestDefaultGeneratorsPlaceMostPods: over the default generators (instance types, pods with
// DefaultPodSettings, NodePools with DefaultNodePoolSettings) Solve places most pods, so a
// property drawn with them exercises placement (the old defaults left about two thirds of
// the pods unplaced; the hostile settings, logged beside, refuse more).
func TestDefaultGeneratorsPlaceMostPods(t *testing.T) {
	unplaced := func(pods fake.PodSettings, pools fake.NodePoolSettings) float64 {
		total, refused := 0, 0
		rapid.Check(t, func(t *rapid.T) {
			types := fake.InstanceTypesGenerator(5).Draw(t, "types")
			ps := fake.PodsGeneratorWith(20, "pod", pods).Draw(t, "pods")
			nps := fake.NodePoolsGenerator(3, pools).Draw(t, "pools")
			its := map[string]cloudprovider.InstanceTypes{}
			for _, np := range nps {
				its[np.Name] = types
			}
			snap, err := cluster.New(cluster.Objects{NodePools: nps, InstanceTypes: its, WellKnownLabels: fake.WellKnownLabels(), Pods: ps})
			if err != nil {
				t.Fatal(err)
			}
			res, err := scheduling.Solve(snap, scheduling.Options{})
			if err != nil {
				t.Fatal(err)
			}
			total, refused = total+len(ps), refused+len(res.PodErrors)
		})
		return float64(refused) / float64(max(total, 1))
	}
	def, hostile := unplaced(fake.DefaultPodSettings(), fake.DefaultNodePoolSettings()), unplaced(fake.HostilePodSettings(), fake.HostileNodePoolSettings())
	t.Logf("unplaced: %.0f%% with the defaults, %.0f%% with the hostile settings", 100*def, 100*hostile)
	if def > 1.0/3 { // about 15 %; the old defaults left two thirds
		t.Errorf("the default generators leave %.0f%% of pods unplaced, want at most a third", 100*def)
	}
}
