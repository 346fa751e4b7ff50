package scheduling_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPropBaseRelativeSolveIsFromScratch: a Cache reads a snapshot that Without made as its
// parent's nodes minus the dropped ones, the parent read once (existing_base.go), as
// disruption's simulations fork one marked snapshot without each one's candidates. Over a
// sequence of such forks of two parents (switching between them, nodes marked Deleting and
// ClosedToMoves, the dropped nodes' pods moving) and a snapshot of neither in between, every
// Solve with one shared Cache gives what a Solve without a cache gives.
func TestPropBaseRelativeSolveIsFromScratch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := scenarioGen().Draw(t, "scenario").build()
		for _, p := range in.Pods { // healthy, so that PodDisruptionBudgets count them
			if p.Spec.NodeName != "" {
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			}
		}
		base := snapOf(t, in)
		nodes := base.Nodes()
		if len(nodes) == 0 {
			t.Skip("no nodes")
		}
		pick := func(label string) []*cluster.Node {
			at := rapid.SliceOfDistinct(rapid.IntRange(0, len(nodes)-1), rapid.ID[int]).Draw(t, label)
			out := make([]*cluster.Node, 0, len(at))
			for _, i := range at {
				out = append(out, nodes[i])
			}
			return out
		}
		namesOf := func(ns []*cluster.Node) []string {
			var out []string
			for _, n := range ns {
				out = append(out, n.Name())
			}
			return out
		}
		parents := []*cluster.Snapshot{
			base.Deleting(namesOf(pick("deleting-0"))...).ClosedToMoves(namesOf(pick("closed-0"))...),
			base.Deleting(namesOf(pick("deleting-1"))...),
		}
		cache := scheduling.NewCache()
		for i := range 6 {
			snap := base // a snapshot Without did not make: read as any
			if k := rapid.IntRange(0, len(parents)).Draw(t, fmt.Sprintf("parent-%d", i)); k < len(parents) {
				gone := pick(fmt.Sprintf("gone-%d", i))
				var moving []*corev1.Pod
				for _, n := range gone {
					for _, p := range n.Pods {
						if cluster.IsReschedulable(p) {
							moving = append(moving, p)
						}
					}
				}
				snap = parents[k].Without(namesOf(gone)...).WithMoving(moving...)
			}
			sim := rapid.Bool().Draw(t, fmt.Sprintf("simulation-%d", i)) // disruption's options
			opts := scheduling.Options{SingleRound: sim, SkipRepack: sim}
			sameWithCache(t, i, cache, snap, opts)
		}
	})
}

// sameWithCache fails t unless Solve i of snap with cache gives, verified, what a Solve
// without a cache gives.
func sameWithCache(t tb, i int, cache *scheduling.Cache, snap *cluster.Snapshot, opts scheduling.Options) {
	t.Helper()
	want := render(mustSolve(t, snap, opts))
	res, err := solveVerified(t, cache, snap, opts)
	if err != nil {
		t.Fatalf("Solve %d: %v", i, err)
	}
	if got := render(res); got != want {
		t.Fatalf("Solve %d with a shared cache differs:\n--- without\n%s--- with\n%s", i, want, got)
	}
}
