package genworkload

import (
	"bytes"
	"testing"

	"github.com/nodeplan/nodeplan/manifest"
)

// TestGenerate: the workload reads as nodeplan reads input, holds exactly the pods asked
// for (pending, with requests), the NodePool and both DaemonSets, has several shapes and
// every kind of spread, and the same options give the same bytes.
func TestGenerate(t *testing.T) {
	for _, n := range []int{1, 7, 600} {
		data, err := Generate(Options{Pods: n, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		set, err := manifest.Parse(data, "generic.yaml")
		if err != nil {
			t.Fatalf("%d pods: %v", n, err)
		}
		if len(set.Pods) != n || len(set.NodePools) != 1 || set.NodePools[0].Name != NodePool || len(set.DaemonSets) != 2 {
			t.Fatalf("%d pods: got %d pods, %d NodePools, %d DaemonSets", n, len(set.Pods), len(set.NodePools), len(set.DaemonSets))
		}
		shapes := map[string]bool{}
		spreads := map[string]bool{}
		for _, p := range set.Pods {
			if p.Spec.NodeName != "" {
				t.Fatalf("pod %s is bound", p.Name)
			}
			r := p.Spec.Containers[0].Resources.Requests
			shapes[r.Cpu().String()+"/"+r.Memory().String()] = true
			for _, c := range p.Spec.TopologySpreadConstraints {
				spreads[c.TopologyKey+"/"+string(c.WhenUnsatisfiable)] = true
			}
		}
		if n >= 500 && (len(shapes) < 10 || len(spreads) != 3) {
			t.Fatalf("%d pods: %d shapes, spreads %v; want mixed shapes and zone, hostname ScheduleAnyway and hostname DoNotSchedule spreads", n, len(shapes), spreads)
		}
		again, _ := Generate(Options{Pods: n, Seed: 7})
		if !bytes.Equal(data, again) {
			t.Fatalf("%d pods: the same options gave other bytes", n)
		}
		if other, _ := Generate(Options{Pods: n, Seed: 8}); n >= 500 && bytes.Equal(data, other) {
			t.Fatalf("%d pods: seeds 7 and 8 gave the same workload", n)
		}
	}
	if _, err := Generate(Options{Pods: 0}); err == nil {
		t.Fatal("0 pods gave no error")
	}
}
