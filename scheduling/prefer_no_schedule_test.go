package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Deliberate differences from Karpenter that show when the only NodePool carries a
// PreferNoSchedule taint the pods do not tolerate, so Karpenter reaches it only by relaxing.

// sparePool is fidelityPool with a PreferNoSchedule taint.
const sparePool = fidelityPool + `      taints: [{key: example.com/spare, value: "true", effect: PreferNoSchedule}]
`

const zoneKey = "topology.kubernetes.io/zone"

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

// zoneNode is an empty 2-cpu node named node-<zone> in zone-<zone>.
func zoneNode(zone string) string {
	return `
---
apiVersion: v1
kind: Node
metadata:
  name: node-` + zone + `
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux, node.kubernetes.io/instance-type: c-2, topology.kubernetes.io/zone: zone-` + zone + `, karpenter.sh/capacity-type: on-demand, kubernetes.io/hostname: node-` + zone + `}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
`
}

// spreadNodes: an empty node in zone-a and a node in zone-c with one bound web pod; zone-b
// has no node.
var spreadNodes = zoneNode("a") + zoneNode("c") + `---
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: default, labels: {app: web}}
spec:
  nodeName: node-c
  containers: [{name: c, image: img, resources: {requests: {cpu: 100m, memory: 1Gi}}}]
`

// A zone spread keeps counting the pods placed earlier in the Solve when a later pod needs
// the PreferNoSchedule toleration (difftest plan-66): web-0 takes node-a, and web-1 must go to
// zone-b, which only the tainted pool reaches. karpenter-plan puts both on node-a (zone-a 2,
// zone-b 0: skew 2 > maxSkew 1); its relaxed pod gets new topology groups, which count only
// the pods bound in the cluster. Without the taint it places web-1 in zone-b, as here.
func TestSpreadHoldsWhenAPodIsRelaxedToAPreferNoSchedulePool(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool string
	}{
		{"tainted pool", sparePool},
		{"untainted pool", fidelityPool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fidelityInput(t, tc.pool+spreadNodes+webDeployment("web", 2, "100m", zoneSpreadWeb), familyTypes, scheduling.PackingCostAware)
			res := in.solve(t)
			assert.Empty(t, res.PodErrors)
			assert.Equal(t, map[string]int{"zone-a": 1, "zone-b": 1}, launchedCounts(in, res, "web-", zoneKey))
			assert.Empty(t, spreadViolations(t, in, res, []string{"zone-a", "zone-b", "zone-c"}))
			if nodes := byNode(res); assert.Len(t, nodes, 1) {
				assert.Equal(t, "node-a", nodes[0].name)
			}
		})
	}
}

// hostAffineSpreadWeb: a required self pod affinity and a DoNotSchedule spread with maxSkew 1,
// both on the hostname, on pods that tolerate the spare pool's taint.
const hostAffineSpreadWeb = `      tolerations: [{key: example.com/spare, operator: Exists, effect: PreferNoSchedule}]
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
`

// fullNode is node-a in zone-a with its 2 cpus taken by a bound pod no spread selects.
var fullNode = zoneNode("a") + `---
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default, labels: {app: filler}}
spec:
  nodeName: node-a
  containers: [{name: c, image: img, resources: {requests: {cpu: "2", memory: 1Gi}}}]
`

// Pods whose self affinity and spread are both on the hostname (difftest plan-29): the first
// pod takes a NodeClaim, which the affinity then holds the second to and the spread (counting
// from a minimum of zero, since another node can always be launched) keeps it off. nodeplan
// places one and refuses the other, as karpenter-plan does when the pool has no
// PreferNoSchedule taint. With the taint, karpenter-plan's failed pod relaxes by adding a
// PreferNoSchedule toleration it already has; the changed tolerations re-key only its spread
// group (the affinity group has no node filter), the new group counts only bound pods, and
// both pods land on one NodeClaim. That is valid alone, but beside node-a (full, yet a
// hostname domain the spread counts with 0 pods) it is skew 2 > maxSkew 1.
func TestHostnameSpreadHoldsWhenASelfAffinePodIsRelaxed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pool  string
		nodes string
	}{
		{"tainted pool", sparePool, ""},
		{"tainted pool beside a full node", sparePool, fullNode},
		{"untainted pool", fidelityPool, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fidelityInput(t, tc.pool+tc.nodes+webDeployment("web", 2, "100m", hostAffineSpreadWeb), familyTypes, scheduling.PackingCostAware)
			res := in.solve(t)
			if assert.Len(t, res.NewNodeClaims, 1) {
				assert.Len(t, res.NewNodeClaims[0].Pods, 1)
			}
			assert.Empty(t, res.Bindings)
			if assert.Len(t, res.PodErrors, 1) {
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
