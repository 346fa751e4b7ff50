package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Pods whose self affinity and spread are both on the hostname (difftest plan-29): the first
// pod takes a NodeClaim, which the affinity then holds the second to and the spread (counting
// from a minimum of zero, since another node can always be launched) keeps it off. nodeplan
// places one and refuses the other, as karpenter-plan does when the pool has no
// PreferNoSchedule taint. With the taint, karpenter-plan's failed pod relaxes by adding a
// PreferNoSchedule toleration it already has; the changed tolerations re-key only its spread
// group (the affinity group has no node filter), the new group counts only bound pods, and
// both pods land on one NodeClaim. That is valid alone, but beside node-a (full, yet a
// hostname domain the spread counts with 0 pods) it is skew 2 > maxSkew 1. Without another
// node the one NodeClaim is the spread's only domain as launched, and the default's second
// try (host_floor.go) places both pods there: skew 0 once it launches, as kube-scheduler
// counts the nodes there are.
func TestHostnameSpreadHoldsWhenASelfAffinePodIsRelaxed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pool   string
		nodes  string
		placed int
	}{
		{"tainted pool", sparePool, "", 2},
		{"tainted pool beside a full node", sparePool, fullNode, 1},
		{"untainted pool", fidelityPool, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fidelityInput(t, tc.pool+tc.nodes+webDeployment("web", 2, "100m", hostAffineSpreadWeb), familyTypes, scheduling.PackingCostAware)
			res := in.solve(t)
			if assert.Len(t, res.NewNodeClaims, 1) {
				assert.Len(t, res.NewNodeClaims[0].Pods, tc.placed)
			}
			assert.Empty(t, res.Bindings)
			if tc.placed == 1 && assert.Len(t, res.PodErrors, 1) {
				assert.Equal(t, scheduling.ReasonPodAffinity, res.PodErrors[0].Code)
			}
			hosts := []string{}
			for _, n := range in.snap.Nodes() {
				if n.Node != nil {
					hosts = append(hosts, n.Node.Name)
				}
			}
			for _, c := range res.NewNodeClaims {
				hosts = append(hosts, c.Hostname)
			}
			assert.Empty(t, spreadViolations(t, in, res, hosts))
		})
	}
}
