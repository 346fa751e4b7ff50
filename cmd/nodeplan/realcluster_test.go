package main

import (
	"os"
	"path/filepath"
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
