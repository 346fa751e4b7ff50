package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A simulation scales workloads: PodsAt continues a workload's pods at any index, and Owns
// finds its pods, expanded by nodeplan or dumped from a live cluster.
func TestWorkloadPodsAtAndOwns(t *testing.T) {
	s := parse(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: i}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`)
	require.Len(t, s.Workloads, 2)
	web, db := s.Workloads[0], s.Workloads[1]
	more, claims := web.PodsAt(2, 3)
	assert.Empty(t, claims)
	var names []string
	for _, p := range more {
		names = append(names, p.Name)
		assert.True(t, web.Owns(p))
		assert.False(t, db.Owns(p))
		assert.Equal(t, "", p.Spec.NodeName)
	}
	assert.Equal(t, []string{"web-2", "web-3", "web-4"}, names)
	for _, p := range web.Pods {
		assert.True(t, web.Owns(p), "expanded pod %s", p.Name)
	}

	next, claims := db.PodsAt(1, 1)
	require.Len(t, next, 1)
	assert.Equal(t, "db-1", next[0].Name)
	assert.Equal(t, "db-1", next[0].Spec.Hostname)
	require.Len(t, claims, 1)
	assert.Equal(t, "data-db-1", claims[0].Name)
	assert.True(t, db.Owns(next[0]))

	// A live cluster's pod: controlled by the ReplicaSet web-<hash>.
	dumped := next[0].DeepCopy()
	dumped.Labels = map[string]string{podTemplateHashLabel: "5d8f9"}
	dumped.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-5d8f9", Controller: ptr(true)}}
	assert.True(t, web.Owns(dumped))
	dumped.Namespace = "other"
	assert.False(t, web.Owns(dumped), "another namespace")
	none, _ := web.PodsAt(0, 0)
	assert.Empty(t, none)
}
