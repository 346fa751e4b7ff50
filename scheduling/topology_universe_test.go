package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/scheduling"
)

// A zone spread's domains are every zone a NodePool's instance types name, as Karpenter
// discovers them: with an unavailable offering or one of another capacity type too, so such
// a zone keeps the minimum at zero (difftest plan-102, plan-82). The NodePool's own zone
// requirement narrows them. Each case was checked against karpenter-plan (which, for the
// first two, places one pod or none, by map order).
func TestFidelitySpreadDomainsAreEveryOfferedZone(t *testing.T) {
	const types = `
instanceTypes:
- name: small
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.05}
  - {zone: zone-b, capacityType: on-demand, price: 0.05, available: false}
  - {zone: zone-c, capacityType: spot, price: 0.02}
`
	const spread = `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: %s, labelSelector: {matchLabels: {app: web}}}
`
	for _, tc := range []struct {
		name, zoneReq, when string
		placed              int
	}{
		{name: "unavailable and spot zones count", when: "DoNotSchedule", placed: 1},
		{name: "pool excludes the unavailable zone", zoneReq: "NotIn, values: [zone-b]", when: "DoNotSchedule", placed: 1},
		{name: "pool excludes both", zoneReq: "NotIn, values: [zone-b, zone-c]", when: "DoNotSchedule", placed: 3},
		{name: "ScheduleAnyway relaxes", when: "ScheduleAnyway", placed: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := fidelityPool
			if tc.zoneReq != "" {
				pool = strings.Replace(pool, "      nodeClassRef", "      - {key: topology.kubernetes.io/zone, operator: "+tc.zoneReq+"}\n      nodeClassRef", 1)
			}
			in := fidelityInput(t, pool+webDeployment("web", 3, "1500m", fmt.Sprintf(spread, tc.when)), types, scheduling.PackingCostAware)
			res := in.solve(t)
			assert.Equal(t, map[string]int{"zone-a": tc.placed}, launchedCounts(in, res, "web-", "topology.kubernetes.io/zone"))
			assert.Len(t, res.PodErrors, 3-tc.placed)
		})
	}
}
