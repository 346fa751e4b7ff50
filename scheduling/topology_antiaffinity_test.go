package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// A pod with a required zone anti-affinity gets its zones from a NodePool with a
// PreferNoSchedule taint it does not tolerate (difftest plan-5007). karpenter-plan places none
// of these pods ("unsatisfiable topology constraint for pod anti-affinity", counts empty); it
// places one per zone when the pods tolerate the taint or the pool has none.
func TestAntiAffinityFindsZonesOfAPreferNoSchedulePool(t *testing.T) {
	const antiAffinity = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: web}}, topologyKey: topology.kubernetes.io/zone}
`
	for _, tc := range []struct {
		name     string
		replicas int
		zones    map[string]int
		refused  int
	}{
		{"one per zone", 3, map[string]int{"zone-a": 1, "zone-b": 1, "zone-c": 1}, 0},
		{"a fourth pod finds no free zone", 4, map[string]int{"zone-a": 1, "zone-b": 1, "zone-c": 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fidelityInput(t, sparePool+webDeployment("web", tc.replicas, "100m", antiAffinity), familyTypes, scheduling.PackingCostAware)
			res := in.solve(t)
			assert.Equal(t, tc.zones, launchedCounts(in, res, "web-", zoneKey))
			assert.Len(t, res.PodErrors, tc.refused)
			for _, e := range res.PodErrors {
				assert.Equal(t, scheduling.ReasonPodAntiAffinity, e.Code)
			}
			for _, c := range res.NewNodeClaims {
				if assert.Len(t, c.Taints, 1, "the NodeClaim keeps the pool's taint") {
					assert.Equal(t, corev1.TaintEffectPreferNoSchedule, c.Taints[0].Effect)
				}
			}
		})
	}
}

// Issue #6: a pod whose required anti-affinity repels others blocks them only where it is
// placed. Karpenter records a pending pod's anti-affinity (its inverse group) when the pod is
// added to a node, never for a pod that fails, so the pods it would repel are placed; so does
// nodeplan (karpenter-plan places the three b pods too).
func TestFidelityUnplacedAntiAffinityBlocksNothing(t *testing.T) {
	anti := func(name, app, cpu, key, extra string) string {
		return `
---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, namespace: default, labels: {app: ` + app + `}}
spec:
` + extra + `  containers: [{name: c, image: img, resources: {requests: {cpu: "` + cpu + `", memory: 1Gi}}}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: b}}
        topologyKey: ` + key + `
`
	}
	b := `
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: b}}
  template:
    metadata: {labels: {app: b}}
    spec:
      containers: [{name: c, image: img, resources: {requests: {cpu: "500m", memory: 1Gi}}}]
`
	manifests := fidelityPool +
		anti("huge", "a", "100", "topology.kubernetes.io/zone", "") + // fits no instance type
		anti("nowhere", "a2", "1", "kubernetes.io/hostname", "  nodeSelector: {no-such: label}\n") + // no NodePool offers the label
		b
	for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
		t.Run(string(packing), func(t *testing.T) {
			in := fidelityInput(t, manifests, zonePricedTypes, packing)
			res := in.solve(t)
			var failed []string
			for _, e := range res.PodErrors {
				failed = append(failed, e.Pod.Name)
			}
			assert.ElementsMatch(t, []string{"huge", "nowhere"}, failed)
			assert.Equal(t, map[string]int{"zone-1": 3}, launchedCounts(in, res, "b-", "topology.kubernetes.io/zone"), "the b pods launch together in the cheapest zone")
		})
	}
}
