package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestRulesCountOpenNodesAndSettle holds each rule to how it counts a pod on a node open over
// several domains, and that settling it and undoing the settlement leave the right counts.
func TestRulesCountOpenNodesAndSettle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rule       topologyRule
		open       []string       // domains countOpen returns (nil: none)
		counted    map[string]int // counts after countOpen
		total      int            // total after countOpen
		settled    map[string]int // counts after settling in b
		settledTot int
		code       ReasonCode
		repels     bool
	}{
		{name: "spread", rule: &spreadRule{maxSkew: 1}, counted: map[string]int{}, code: ReasonTopologySpread},
		{name: "affinity", rule: affinityRule{}, open: []string{}, counted: map[string]int{}, total: 1,
			settled: map[string]int{"b": 1}, settledTot: 1, code: ReasonPodAffinity},
		{name: "anti-affinity", rule: antiAffinityRule{}, open: []string{"a", "b"}, counted: map[string]int{"a": 1, "b": 1}, total: 2,
			settled: map[string]int{"a": 0, "b": 1}, settledTot: 1, code: ReasonPodAntiAffinity},
		{name: "inverse", rule: inverseRule{}, open: []string{"a", "b"}, counted: map[string]int{"a": 1, "b": 1}, total: 2,
			settled: map[string]int{"a": 0, "b": 1}, settledTot: 1, code: ReasonPodAntiAffinity, repels: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := newTopology(&universe{}, nil)
			g := &topologyGroup{rule: tc.rule, key: "zone", counts: map[string]int{}, domains: []string{"a", "b", "c"}}
			assert.Equal(t, tc.code, topologyCode(g))
			assert.Equal(t, tc.repels, g.rule.repels())
			open := topo.recordDomains(g, requirements.MustNew("zone", requirements.In, "a", "b"))
			assert.Equal(t, tc.open, open)
			assert.Equal(t, tc.counted, g.counts)
			assert.Equal(t, tc.total, g.total)
			if open == nil {
				return
			}
			oc := openCount{g: g, domains: open}
			topo.settleCount(oc, "b")
			assert.Equal(t, tc.settled, g.counts)
			assert.Equal(t, tc.settledTot, g.total)
			topo.unsettleCount(oc, "b")
			for _, d := range []string{"a", "b", "c"} {
				assert.Equal(t, tc.counted[d], g.counts[d], d)
			}
			assert.Equal(t, tc.total, g.total)
		})
	}
}

// TestExclusiveHost: which hostname groups keep a pod off every NodeClaim holding one of
// their pods (claimsExhausted).
func TestExclusiveHost(t *testing.T) {
	assert.True(t, antiAffinityRule{}.exclusiveHost(false))
	assert.False(t, affinityRule{}.exclusiveHost(true))
	assert.True(t, (&spreadRule{maxSkew: 1}).exclusiveHost(true))
	assert.False(t, (&spreadRule{maxSkew: 1}).exclusiveHost(false), "a pod the spread does not count may share")
	assert.False(t, (&spreadRule{maxSkew: 2}).exclusiveHost(true))
}
