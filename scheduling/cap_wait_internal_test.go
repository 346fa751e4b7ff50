package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// TestCapWaitsForTheMinimumToRise: p carries a zone spread over the y pods and a zone spread
// carried by cx selects it (app=x). The y pods fill zones 2 and 3, so p's own spread leaves
// it zone 1; cx and gx hold zone 1 above the x spread's minimum, so the cap refuses it there.
// The two smaller x pods that follow raise that minimum (zones 2 and 3), after which p fits
// zone 1 under the cap. p waits for them instead of taking zone 1 without the cap at its turn
// (cap_wait.go), which the benchmark mix at 100,000 pods could not afford: no pod is placed
// without the cap, every pod is placed and verify passes.
func TestCapWaitsForTheMinimumToRise(t *testing.T) {
	x := map[string]string{"app": "x"}
	y := map[string]string{"app": "y"}
	pods := []*corev1.Pod{
		fake.Pod("gy2").Labels(y).Requests("3500m", "1Gi").NodeSelector(v1.LabelTopologyZone, fake.TestZone2).Obj(),
		fake.Pod("gy3").Labels(y).Requests("3500m", "1Gi").NodeSelector(v1.LabelTopologyZone, fake.TestZone3).Obj(),
		fake.Pod("cx").Label("app", "cx").Requests("3", "1Gi").TopologySpread(v1.LabelTopologyZone, 1, x).Obj(),
		fake.Pod("gx").Labels(x).Requests("2", "1Gi").NodeSelector(v1.LabelTopologyZone, fake.TestZone1).Obj(),
		fake.Pod("p").Labels(x).Requests("1500m", "1Gi").TopologySpread(v1.LabelTopologyZone, 1, y).Obj(),
		fake.Pod("f1").Labels(x).Requests("1", "1Gi").Obj(),
		fake.Pod("f2").Labels(x).Requests("1", "1Gi").Obj(),
	}
	snap, err := cluster.New(rrObjects(pods, nil))
	require.NoError(t, err)
	var s *solver
	res, info, err := solveOnce(snap, Options{}, nil, variant{}, []func(*solver){func(sv *solver) { s = sv }})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	assert.False(t, s.uncapped, "a pod was placed without the cap")
	assert.False(t, info.overSkew)
	zone := map[string]string{}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			zone[p.Name] = c.Offering.Zone()
		}
	}
	assert.Equal(t, fake.TestZone1, zone["p"], "p's own spread leaves it zone 1: %v", zone)
	_, err = solveVerified(t, snap, Options{})
	require.NoError(t, err)
}
