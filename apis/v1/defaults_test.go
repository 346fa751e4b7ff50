package v1

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestNodePoolSetDefaults(t *testing.T) {
	np := validNodePool()
	np.SetDefaults()
	d := np.Spec.Disruption
	assert.Equal(t, ConsolidationPolicyWhenEmptyOrUnderutilized, d.ConsolidationPolicy)
	assert.Equal(t, "0s", d.ConsolidateAfter.String())
	if assert.NotNil(t, d.ConsolidateAfter.Duration) {
		assert.Equal(t, time.Duration(0), *d.ConsolidateAfter.Duration)
	}
	assert.Equal(t, []Budget{{Nodes: "10%"}}, d.Budgets)
	assert.Equal(t, "720h", np.Spec.Template.Spec.ExpireAfter.String())
	if assert.NotNil(t, np.Spec.Template.Spec.ExpireAfter.Duration) {
		assert.Equal(t, 720*time.Hour, *np.Spec.Template.Spec.ExpireAfter.Duration)
	}
	assert.Nil(t, np.Spec.Weight, "weight has no default")
	assert.Nil(t, np.Spec.Template.Spec.TerminationGracePeriod, "terminationGracePeriod has no default")

	again := np.DeepCopy()
	again.SetDefaults()
	assert.Equal(t, np, again, "SetDefaults is idempotent")
}

func TestNodePoolSetDefaultsKeepsSetFields(t *testing.T) {
	np := validNodePool()
	np.Spec.Disruption = Disruption{
		ConsolidateAfter:    NeverDuration(),
		ConsolidationPolicy: ConsolidationPolicyWhenEmpty,
		Budgets:             []Budget{{Nodes: "3"}, {Reasons: []DisruptionReason{DisruptionReasonDrifted}}},
	}
	np.Spec.Template.Spec.ExpireAfter = NeverDuration()
	np.SetDefaults()
	assert.True(t, np.Spec.Disruption.ConsolidateAfter.IsNever())
	assert.Equal(t, ConsolidationPolicyWhenEmpty, np.Spec.Disruption.ConsolidationPolicy)
	assert.Equal(t, []Budget{{Nodes: "3"}, {Nodes: "10%", Reasons: []DisruptionReason{DisruptionReasonDrifted}}}, np.Spec.Disruption.Budgets,
		"a budget without nodes gets 10%")
	assert.True(t, np.Spec.Template.Spec.ExpireAfter.IsNever(), "Never stays Never")

	np = validNodePool()
	np.Spec.Disruption.Budgets = []Budget{}
	np.SetDefaults()
	assert.Empty(t, np.Spec.Disruption.Budgets, "an explicit empty list is not defaulted")
	assert.NotNil(t, np.Spec.Disruption.Budgets)

	np = validNodePool()
	np.Spec.Template.Spec.ExpireAfter = MustParseNillableDuration("24h")
	np.Spec.Disruption.ConsolidateAfter = MustParseNillableDuration("5m")
	np.SetDefaults()
	assert.Equal(t, "24h", np.Spec.Template.Spec.ExpireAfter.String())
	assert.Equal(t, "5m", np.Spec.Disruption.ConsolidateAfter.String())
}

func TestNodeClaimSetDefaults(t *testing.T) {
	nc := validNodeClaim()
	nc.SetDefaults()
	assert.Equal(t, "720h", nc.Spec.ExpireAfter.String())

	nc = validNodeClaim()
	nc.Spec.ExpireAfter = NeverDuration()
	nc.SetDefaults()
	assert.True(t, nc.Spec.ExpireAfter.IsNever())
}
