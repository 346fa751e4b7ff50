package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeInput writes a manifest file into a temporary folder and returns its path.
func writeInput(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const onDemandPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`

func TestPlanPreBoundVolumeTakesItsZone(t *testing.T) {
	const volume = `apiVersion: v1
kind: PersistentVolume
metadata: {name: vol-db}
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0123456789abcdef0}
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.ebs.csi.aws.com/zone, operator: In, values: [us-east-1c]}]}]}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: db}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 20Gi}}, volumeName: vol-db, storageClassName: ""}
---
apiVersion: v1
kind: Pod
metadata: {name: postgres, namespace: db}
spec:
  containers: [{name: pg, image: postgres, resources: {requests: {cpu: "1", memory: 2Gi}}}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`
	got := planJSON(t, "-f", writeInput(t, "db.yaml", onDemandPool+"---\n"+volume))
	require.Empty(t, got.PodErrors)
	require.Len(t, got.NodeClaims, 1)
	assert.Equal(t, "us-east-1c", got.NodeClaims[0].Zone, "the pre-bound volume's zone")
	assert.Equal(t, []string{"db/postgres"}, got.NodeClaims[0].Pods)
}

func TestPlanCountsDaemonSetsKnownOnlyByTheirPods(t *testing.T) {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: aws-node-x7k2p
    namespace: kube-system
    creationTimestamp: "2026-01-01T00:00:00Z"
    labels: {k8s-app: aws-node, controller-revision-hash: 5c9d8, pod-template-generation: "2"}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 0b5e, controller: true, blockOwnerDeletion: true}]
  spec:
    nodeName: ip-10-0-1-1.ec2.internal
    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-1.ec2.internal]}]}]}}}
    tolerations: [{operator: Exists}]
    containers: [{name: aws-node, image: vpc-cni, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: aws-node-pending
    namespace: kube-system
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 0b5e, controller: true}]
  spec:
    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-2.ec2.internal]}]}]}}}
    tolerations: [{operator: Exists}]
    containers: [{name: aws-node, image: vpc-cni, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec:
    containers: [{name: web, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  status: {phase: Pending}
`
	got := planJSON(t, "-f", writeInput(t, "dump.yaml", onDemandPool+"---\n"+dump))
	require.Empty(t, got.PodErrors)
	require.Len(t, got.NodeClaims, 1)
	c := got.NodeClaims[0]
	assert.Equal(t, []string{"default/web"}, c.Pods, "the pending DaemonSet pod is not planned")
	cpu := c.Requests["cpu"]
	assert.Equal(t, "1500m", cpu.String(), "the claim carries the DaemonSet's overhead")
}

func TestPlanV1beta1NodePools(t *testing.T) {
	// The seed's tutorial as written: karpenter.sh/v1beta1 NodePools, a karpenter.k8s.aws/v1beta1
	// EC2NodeClass.
	in := "../../manifest/testdata/teams-v1beta1.yaml"
	out, stderr, code := nodeplan(t, "plan", "-f", in, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got), "warnings stay off stdout")
	pools := map[string][]string{}
	for _, c := range got.NodeClaims {
		pools[c.NodePool] = append(pools[c.NodePool], c.Pods...)
	}
	assert.Equal(t, map[string][]string{"team-1": {"default/team-1-nginx"}, "team-2": {"default/team-2-nginx"}}, pools)
	assert.Empty(t, got.PodErrors)
	warnings := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, warnings, 3, stderr)
	for i, w := range []string{`document 1 (line 5): NodePool "team-1"`, `document 2 (line 22): NodePool "team-2"`, `document 3 (line 39): EC2NodeClass "default"`} {
		assert.Contains(t, warnings[i], "teams-v1beta1.yaml: "+w, "each warning names its object")
	}
}
