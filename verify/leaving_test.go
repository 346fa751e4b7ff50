package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// The pods that stay on a node the snapshot is leaving (cluster.Snapshot.Leaving) count where
// they run: a moving pod with a zone affinity to them may follow them to their zone, and
// nowhere else; none of them may be planned again, and no pod may go to that node.
func TestLeavingNodesPodsCountWhereTheyRun(t *testing.T) {
	db := running("db", "1")
	db.Labels["app"] = "db"
	near := running("near", "100m")
	near.Spec.Affinity = fake.Pod("x").PodAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).Obj().Spec.Affinity
	w := schedWorld()
	w.addNode("old", "default", fake.TestZone1, 4, db, near)
	w.addNode("other", "default", fake.TestZone2, 4)
	snap := w.snap(t)
	fork := snap.Leaving("old").WithMoving(near)

	res := mustSolve(t, fork, scheduling.Options{})
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1, "near follows db to zone 1, where no node is left")
	assert.Equal(t, fake.TestZone1, res.NewNodeClaims[0].Offering.Zone())

	// Bound to other (zone 2), near breaks its affinity; db, which stays, may not move.
	moved := &scheduling.Result{Bindings: []cluster.Move{{Pod: near, To: "other"}}}
	assert.True(t, hasCode(verify.Solve(fork, scheduling.Options{}, moved), verify.PodAffinity))
	withDB := &scheduling.Result{NewNodeClaims: res.NewNodeClaims, Bindings: []cluster.Move{{Pod: db, To: "other"}}}
	assert.True(t, hasCode(verify.Solve(fork, scheduling.Options{}, withDB), verify.PodUnknown))
	onOld := &scheduling.Result{Bindings: []cluster.Move{{Pod: near, To: "old"}}}
	assert.True(t, hasCode(verify.Solve(fork, scheduling.Options{}, onOld), verify.NodeDeleting))
}
