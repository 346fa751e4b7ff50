package v1

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMisconfiguredBudgetFailsClosed: as documented, 0 with an error naming the budget.
func TestMisconfiguredBudgetFailsClosed(t *testing.T) {
	np := &NodePool{}
	np.Name = "default"
	np.Spec.Disruption.Budgets = []Budget{{Nodes: "10"}, {Nodes: "ten percent"}}
	n, err := np.AllowedDisruptions(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10, DisruptionReasonEmpty)
	assert.Equal(t, 0, n)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `NodePool "default": spec.disruption.budgets[1]`)
	}
}
