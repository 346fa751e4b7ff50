package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/mutate"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// checkPlan is what FuzzPlan and the mutation test hold of any input: what manifest accepts,
// Solve accepts, and verify finds no rule its plan breaks; every pending pod of the snapshot
// comes back exactly once (placed or with a reason) and nothing else comes back; no
// NodeClaim holds more cpu or memory than its instance type's allocatable.
func checkPlan(t *testing.T, data []byte, types cloudprovider.InstanceTypes, wellKnown requirements.KeySet) {
	t.Helper()
	set, err := manifest.Parse(data, "fuzz.yaml")
	if err != nil {
		return
	}
	its := map[string]cloudprovider.InstanceTypes{}
	for _, np := range set.NodePools {
		its[np.Name] = types
	}
	objs := set.Objects
	objs.InstanceTypes, objs.WellKnownLabels = its, wellKnown
	snap, err := cluster.New(objs)
	if err != nil {
		return // an in-flight NodeClaim named like another claim's Node: ambiguous, refused
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		t.Fatalf("manifest accepted the input, Solve refused it: %v", err)
	}
	for _, v := range verify.Solve(snap, scheduling.Options{}, res) {
		t.Errorf("verify: %v", v)
	}
	want := map[*corev1.Pod]int{}
	for _, p := range snap.Pending() {
		want[p]++
	}
	got := map[*corev1.Pod]int{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			got[p]++
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			alloc, total := c.InstanceType.Allocatable()[name], resourceSum(c.Pods, name)
			if total.Cmp(alloc) > 0 {
				t.Fatalf("NodeClaim %s on %s: its pods request %s %s, allocatable %s", c.Hostname, c.InstanceType.Name, total.String(), name, alloc.String())
			}
		}
	}
	for _, b := range res.Bindings {
		got[b.Pod]++
	}
	for _, e := range res.PodErrors {
		got[e.Pod]++
		if e.Message() == "" {
			t.Fatalf("pod %s/%s: empty reason", e.Pod.Namespace, e.Pod.Name)
		}
	}
	for p, n := range got {
		if want[p] != n {
			t.Fatalf("pod %s/%s comes back %d times, is pending %d times", p.Namespace, p.Name, n, want[p])
		}
	}
	for p, n := range want {
		if got[p] != n {
			t.Fatalf("pod %s/%s is pending %d times, comes back %d times", p.Namespace, p.Name, n, got[p])
		}
	}
}

func resourceSum(pods []*corev1.Pod, name corev1.ResourceName) *resource.Quantity {
	total := resource.Quantity{}
	for _, p := range pods {
		total.Add(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})[name])
	}
	return &total
}

func scenarioCatalog(t testing.TB) (cloudprovider.InstanceTypes, requirements.KeySet) {
	types, wellKnown, err := catalog.ParseFile(filepath.Join(scenarios, "instance-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return types, wellKnown
}

// TestPlanMutations runs checkPlan on thousands of deterministic mutations of the scenario
// inputs (hostile numbers, broken syntax, lost and repeated lines and documents): what
// FuzzPlan explores, in CI and reproducible by case number.
func TestPlanMutations(t *testing.T) {
	types, wellKnown := scenarioCatalog(t)
	seeds, _ := filepath.Glob(filepath.Join(scenarios, "*", "input.yaml"))
	sort.Strings(seeds)
	cases := 200
	if testing.Short() {
		cases = 25
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(filepath.Dir(s)), func(t *testing.T) {
			for i := range cases {
				m := mutate.Case(data, uint64(i))
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("panics: %v\n%s", r, m)
						}
					}()
					checkPlan(t, m, types, wellKnown)
				})
			}
		})
	}
}
