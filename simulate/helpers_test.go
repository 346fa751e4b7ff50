package simulate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/simulate"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// input is the cluster of manifests (every NodePool gets types) and the timeline.
func input(t testing.TB, manifests, timeline string, types cloudprovider.InstanceTypes) simulate.Input {
	t.Helper()
	set, err := manifest.Parse([]byte(manifests), "cluster.yaml")
	require.NoError(t, err)
	snap := snapshotOf(t, set, types, fake.WellKnownLabels())
	tl, err := simulate.ParseTimeline([]byte(timeline), "day.yaml", nil)
	require.NoError(t, err)
	s := simulate.DefaultSettings()
	return simulate.Input{Snapshot: snap, Workloads: set.Workloads, Start: t0, Timeline: tl, Settings: s}
}

// snapshotOf is the cluster of set with every NodePool offered types and the label keys
// wellKnown decided by the cloud.
func snapshotOf(t require.TestingT, set *manifest.Set, types cloudprovider.InstanceTypes, wellKnown requirements.KeySet) *cluster.Snapshot {
	its := map[string]cloudprovider.InstanceTypes{}
	for _, np := range set.NodePools {
		its[np.Name] = types
	}
	o := set.Objects
	o.InstanceTypes = its
	o.WellKnownLabels = wellKnown
	snap, err := cluster.New(o)
	require.NoError(t, err)
	return snap
}

const inflate = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 30s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
`
