package disruption

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// TestPlanRefusesBadInput: a nil snapshot, a zero time and two nodes of one name are
// *InvalidInputErrors naming what is wrong, never a plan judged at year 1.
func TestPlanRefusesBadInput(t *testing.T) {
	snap, err := input([]*v1.NodePool{pool("default")}, testNode("a", "default", "small", "", bound("x", "100m"))).snapshot()
	require.NoError(t, err)
	shadowed := snap.WithInFlight(&v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "a"}}) // named like node a, never paired
	for name, tc := range map[string]struct {
		snap *cluster.Snapshot
		now  time.Time
		want cluster.InvalidInputError
	}{
		"nil snapshot":          {nil, now, cluster.InvalidInputError{Op: "disruption.Plan", Code: cluster.InputNil, Kind: "Snapshot"}},
		"zero time":             {snap, time.Time{}, cluster.InvalidInputError{Op: "disruption.Plan", Code: cluster.InputInvalid, Field: "now"}},
		"two nodes of one name": {shadowed, now, cluster.InvalidInputError{Op: "disruption.Plan", Code: cluster.InputDuplicate, Kind: "Node", Name: "a"}},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := Plan(tc.snap, tc.now, Options{})
			assert.Nil(t, res)
			var invalid *cluster.InvalidInputError
			require.True(t, errors.As(err, &invalid), "err: %v", err)
			got := *invalid
			got.Err = nil
			assert.Equal(t, tc.want, got)
		})
	}
}
