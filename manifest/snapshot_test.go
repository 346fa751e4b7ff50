package manifest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

// TestSnapshotReadsManifests: a set's Snapshot pairs its Nodes and NodeClaims and files its
// pods as cluster.New does with the same objects.
func TestSnapshotReadsManifests(t *testing.T) {
	set, err := manifest.Parse([]byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {providerID: "aws:///us-east-1a/i-1"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-x}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: []
status: {providerID: "aws:///us-east-1a/i-1"}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, image: x}]}
`), "in.yaml")
	require.NoError(t, err)
	s, err := set.Snapshot(nil)
	require.NoError(t, err)
	require.Len(t, s.Nodes(), 1)
	n := s.Nodes()[0]
	require.NotNil(t, n.Node)
	require.NotNil(t, n.NodeClaim)
	assert.Equal(t, [2]string{"n1", "default-x"}, [2]string{n.Node.Name, n.NodeClaim.Name})
	require.Len(t, s.Pending(), 1)
	assert.Equal(t, "web", s.Pending()[0].Name)
	assert.NotNil(t, s.InstanceTypes(), "nil instance types read as none")
}
