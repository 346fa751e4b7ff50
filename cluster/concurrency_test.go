package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestConcurrentReadersAgreeWithSerial: Solve, Plan, verify.Solve and verify.Plan running at
// the same time on one snapshot (a fork whose name index is built on first use, by whichever
// goroutine reads it first) give exactly what they give one after another. Run under -race
// (.ci/run does) it also shows that none of them writes to the snapshot.
func TestConcurrentReadersAgreeWithSerial(t *testing.T) {
	ctx := context.Background()
	cloud, s := smallCluster(t, 40)
	s, _ = launch(t, ctx, cloud, s, "a")
	// Half the pods leave (consolidation has work) and new ones wait (Solve has work).
	s = s.WithoutPods(s.Nodes()[0].Pods...)
	var late []*corev1.Pod
	for i := range 30 {
		app := map[string]string{"app": fmt.Sprint("app-", i%3)}
		b := fake.Pod(fmt.Sprint("late-", i)).Requests("1", "1Gi").Labels(app)
		switch i % 3 {
		case 0:
			b.TopologySpread(v1.LabelTopologyZone, 1, app)
		case 1:
			b.PodAntiAffinity(v1.LabelHostname, app)
		}
		late = append(late, b.Obj())
	}
	s, err := s.WithPods(late...)
	require.NoError(t, err)
	shared := s.Without("no-such-node") // a fork with a lazy name index

	type answers struct {
		solve      *scheduling.Result
		plan       *disruption.Result
		solveCheck []verify.Violation
		planCheck  []verify.Violation
		solveErr   error
		planErr    error
	}
	ask := func(snap *cluster.Snapshot) answers {
		var a answers
		a.solve, a.solveErr = scheduling.Solve(snap, scheduling.Options{})
		a.plan, a.planErr = disruption.Plan(snap, t0, disruption.Options{})
		if a.solveErr == nil {
			a.solveCheck = verify.Solve(snap, scheduling.Options{}, a.solve)
		}
		if a.planErr == nil {
			a.planCheck = verify.Plan(snap, t0, disruption.Options{}, a.plan)
		}
		return a
	}
	serial := ask(s)
	require.NoError(t, serial.solveErr)
	require.NoError(t, serial.planErr)
	require.Empty(t, serial.solveCheck)
	require.Empty(t, serial.planCheck)
	require.NotEmpty(t, serial.solve.NewNodeClaims, "the test needs Solve to place pods (%d late, %d bound to existing nodes, %d errors)", len(late), len(serial.solve.Bindings), len(serial.solve.PodErrors))
	require.NotEmpty(t, serial.plan.Provisioned, "the test needs Plan to simulate (the provisioner's pass, then consolidation's)")

	const readers = 4
	got := make([]answers, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = ask(shared)
		}()
	}
	wg.Wait()
	for i, a := range got {
		assert.Equal(t, serial, a, "reader %d", i)
	}
}
