package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// TestBlockedSaysDriftAndExpiry: a kept node says that it drifted, whatever keeps it (here
// the Drifted budget, so no blocker carries the drift note), and when it expires.
func TestBlockedSaysDriftAndExpiry(t *testing.T) {
	week := 7 * 24 * time.Hour
	p := pool("p", budget("0"), func(np *v1.NodePool) {
		np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration(week.String())
	})
	drifted := claimed(testNode("a", "p", "large", "", bound("x", "1")), 0)
	drifted.NodeClaim.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "AMIDrift"}}
	res, err := plan(t, input([]*v1.NodePool{p}, drifted, testNode("b", "p", "large", "", bound("y", "1"))))
	require.NoError(t, err)
	a, b := blockedOf(res, "a"), blockedOf(res, "b")
	require.NotEmpty(t, a.Blockers, "a is kept: %v", cmdSummary(res))
	assert.Equal(t, BlockBudget, a.Blockers[0].Code)
	assert.Equal(t, Drift{Reason: "AMIDrift"}, a.Drift)
	assert.Zero(t, b.Drift)
	require.NotNil(t, a.ExpiresAt)
	assert.Equal(t, t0.Add(week), *a.ExpiresAt, "created at t0, expireAfter a week")
}

// TestNominatedSaysByWhom: a node the provisioner's pass sends pods to is nominated by it
// (Command 0); one an earlier command's simulation sends its candidates' pods to, by that
// command; NodeClaims launched in the Plan are named as the Result names them.
func TestNominatedSaysByWhom(t *testing.T) {
	// b takes the pods of a (consolidated), then nothing else may disrupt b.
	in := input([]*v1.NodePool{pool("p")},
		testNode("a", "p", "large", "", bound("x", "1")),
		testNode("b", "p", "large", "", bound("y", "5")))
	res, err := plan(t, in)
	require.NoError(t, err)
	require.NotEmpty(t, res.Commands, "a is consolidated")
	b := blockedOf(res, "b")
	require.NotEmpty(t, b.Blockers)
	assert.Equal(t, BlockNominated, b.Blockers[0].Code)
	assert.Equal(t, 1, b.Blockers[0].Command)

	pending := input([]*v1.NodePool{pool("p")}, testNode("c", "p", "large", ""))
	pending.Pods = append(pending.Pods, bound("new", "1"))
	pending.Pods[0].Spec.NodeName = ""
	res, err = plan(t, pending)
	require.NoError(t, err)
	c := blockedOf(res, "c")
	require.NotEmpty(t, c.Blockers)
	assert.Equal(t, BlockNominated, c.Blockers[0].Code)
	assert.Equal(t, 0, c.Blockers[0].Command)
}
