package simulate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/simulate"
)

// The seed tutorial's story: scale a Deployment up, nodes launch and its pods run; scale it
// to zero, and Karpenter removes the empty nodes once consolidateAfter has passed.
func TestTutorialStory(t *testing.T) {
	in := input(t, inflate, `
apiVersion: nodeplan.io/v1alpha1
kind: Timeline
duration: 1h
events:
- at: 1m
  scale: {name: inflate, replicas: 10}
- at: 30m
  scale: {name: inflate, replicas: 0}
`, fake.InstanceTypes(8))
	tr, err := simulate.Run(in)
	require.NoError(t, err)
	for _, p := range tr.Series {
		t.Logf("%s nodes=%d pending=%d $%.3f %v", p.Time.Sub(t0), p.Nodes, p.PendingPods, p.PricePerHour, p.Events)
	}
	t.Logf("%+v", tr.Totals)
	last := tr.Series[len(tr.Series)-1]
	assert.Equal(t, 0, last.Nodes)
	assert.Positive(t, tr.Totals.Cost)
}
