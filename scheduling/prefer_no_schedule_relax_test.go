package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestRelaxesPreferNoScheduleForAPoolThatCannotLaunch: Karpenter relaxes a pod to tolerate
// PreferNoSchedule when any NodePool it schedules with carries such a taint, even one that
// can launch nothing now (here pool-0's instance-type minValues 2 over a one-type catalog),
// so the pod joins pool-0's existing node-1, which has that taint (karpenter-plan: node-1 in 2
// of 2 runs; difftest plan:510051, where pool-0 was at its limits). The old code read the
// taints of the NodePools that could launch only and left the pod pending, in both modes.
func TestRelaxesPreferNoScheduleForAPoolThatCannotLaunch(t *testing.T) {
	for _, packing := range []scheduling.Packing{scheduling.PackingKarpenter, scheduling.PackingCostAware} {
		t.Run(string(packing), func(t *testing.T) {
			manifests, types := testdataCase(t, filepath.Join("karpmode", "prefer-no-schedule-unlaunchable-pool"))
			res := fidelityInput(t, manifests, types, packing).solve(t)
			assert.Empty(t, res.PodErrors)
			assert.Empty(t, res.NewNodeClaims)
			require.Len(t, res.Bindings, 1)
			assert.Equal(t, "app-0", res.Bindings[0].Pod.Name)
			assert.Equal(t, "node-1", res.Bindings[0].To)
		})
	}
}
