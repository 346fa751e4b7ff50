package scheduling_test

// Deliberate differences from Karpenter that show when the only NodePool carries a
// PreferNoSchedule taint the pods do not tolerate, so Karpenter reaches it only by relaxing.

// sparePool is fidelityPool with a PreferNoSchedule taint.
const sparePool = fidelityPool + `      taints: [{key: example.com/spare, value: "true", effect: PreferNoSchedule}]
`

const zoneKey = "topology.kubernetes.io/zone"

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
