package scheduling_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestKarpenterModeHoldsReservations: a Karpenter-mode NodeClaim holds every capacity
// reservation its types offer, and a pod that would leave it none does not join it, as
// Karpenter's scheduler (strict reserved-offering mode) does. big opens a NodeClaim holding
// cr-m5-1x4-a (capacity 2); small would grow it past m5-1x4, the only reserved type, so it
// opens a second NodeClaim on the reservation: two reserved m5-1x4 at $0.02/h, karpenter-plan's
// answer in 3 of 3 runs. The old Karpenter mode put both on one on-demand m5-4x16 ($0.20/h).
func TestKarpenterModeHoldsReservations(t *testing.T) {
	res := solveCase(t, filepath.Join("karpmode", "reservation-held"), scheduling.PackingKarpenter)
	assert.Empty(t, res.PodErrors)
	got := map[string]string{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			got[p.Name] = c.InstanceType.Name + "/" + c.Offering.CapacityType()
		}
	}
	assert.Equal(t, map[string]string{"big": "m5-1x4/reserved", "small": "m5-1x4/reserved"}, got)
	assert.InDelta(t, 0.02, res.Price(), 1e-9)
}

// TestKarpenterModeSkipsExhaustedReservations: a reservation an earlier round launched to its
// capacity is unavailable to the later rounds' NodeClaims, as Karpenter's cloud provider
// offers it. app-2's two pods select capacity type reserved and share a host port: round 1
// launches one on cr-r6-16x128-a (capacity 1); the second waits for round 2, where no
// reservation is left, and stays pending (difftest plan:810093 minimised; karpenter-plan in 3
// of 4 runs, the fourth placed neither). The old Karpenter mode launched r6-16x128 on the
// reservation a second time in round 2, past its capacity.
func TestKarpenterModeSkipsExhaustedReservations(t *testing.T) {
	res := solveCase(t, filepath.Join("karpmode", "reservation-exhausted"), scheduling.PackingKarpenter)
	reserved := 0
	for _, c := range res.NewNodeClaims {
		if c.Offering.CapacityType() == "reserved" {
			reserved++
		}
	}
	assert.Equal(t, 1, reserved)
	assert.Len(t, res.NewNodeClaims, 1)
	assert.Len(t, res.PodErrors, 1)
}
