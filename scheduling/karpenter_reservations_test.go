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
	manifests, types := testdataCase(t, filepath.Join("karpmode", "reservation-held"))
	res := fidelityInput(t, manifests, types, scheduling.PackingKarpenter).solve(t)
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
