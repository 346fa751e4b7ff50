package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// TestDroppedFrom: a snapshot Without made, and one made from it that keeps its node list
// (WithMoving), report the parent's node list and the positions dropped; forks that change
// the node list (marks, in-flight claims, a second Without of nothing aside) and snapshots
// Without did not make report nothing.
func TestDroppedFrom(t *testing.T) {
	s := twoNodes(t)
	_, _, ok := s.DroppedFrom()
	assert.False(t, ok, "cluster.New's snapshot")

	w := s.Without("b", "unknown")
	parent, at, ok := w.DroppedFrom()
	require.True(t, ok)
	assert.Equal(t, s.Nodes(), parent)
	assert.Equal(t, []int{1}, at)
	assert.Same(t, s.Nodes()[0], w.Nodes()[0])

	m := w.WithMoving(&corev1.Pod{})
	parent, at, ok = m.DroppedFrom()
	require.True(t, ok, "WithMoving keeps the node list")
	assert.Equal(t, s.Nodes(), parent)
	assert.Equal(t, []int{1}, at)

	none := s.Without()
	parent, at, ok = none.DroppedFrom()
	require.True(t, ok)
	assert.Len(t, parent, 2)
	assert.Empty(t, at)

	nc := &v1.NodeClaim{}
	nc.Name = "c"
	for name, fork := range map[string]*cluster.Snapshot{
		"Deleting":      w.Deleting("a"),
		"ClosedToMoves": w.ClosedToMoves("a"),
		"WithInFlight":  w.WithInFlight(nc),
		"ByName":        w.ByName(),
	} {
		_, _, ok := fork.DroppedFrom()
		assert.False(t, ok, name)
	}
}

// TestLeaving: Leaving is Without (the same nodes, DroppedFrom the same) that also lists the
// nodes it dropped, with their pods, in Left; later forks keep them, and plain Without adds
// none.
func TestLeaving(t *testing.T) {
	s := twoNodes(t)
	l := s.Leaving("b", "unknown")
	w := s.Without("b")
	assert.Equal(t, w.Nodes(), l.Nodes())
	parent, at, ok := l.DroppedFrom()
	require.True(t, ok)
	assert.Equal(t, s.Nodes(), parent)
	assert.Equal(t, []int{1}, at)
	require.Len(t, l.Left(), 1)
	assert.Same(t, s.Nodes()[1], l.Left()[0], "the node with its pods, as it was")
	assert.Empty(t, w.Left())
	assert.Empty(t, s.Leaving("unknown").Left())

	both := l.WithMoving(&corev1.Pod{}).Leaving("a")
	assert.Empty(t, both.Nodes())
	require.Len(t, both.Left(), 2)
	assert.Equal(t, "b", both.Left()[0].Name())
	assert.Equal(t, "a", both.Left()[1].Name())
	assert.Len(t, both.Without().Left(), 2, "a fork keeps what was left")
	assert.Len(t, l.Left(), 1, "the parent is unchanged")
}
