package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// launchableTypes: amd64 nodes launch only in zone a, arm64 ones only in zone c; zone b is
// in the arm64 type's offerings but none is available there, so no node can be in it.
const launchableTypes = `instanceTypes:
- name: amd-1x1
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "1", memory: 1Gi, pods: "1"}
  offerings:
  - {zone: test-zone-a, capacityType: spot, price: 0.001}
- name: arm-1x1
  labels: {kubernetes.io/arch: arm64, kubernetes.io/os: linux}
  capacity: {cpu: "1", memory: 1Gi, pods: "1"}
  offerings:
  - {zone: test-zone-c, capacityType: spot, price: 0.001}
  - {zone: test-zone-b, capacityType: spot, price: 0.001, available: false}
`

const launchablePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`

// launchablePod is a pending pod of app with a zone spread (maxSkew 1) over app's pods when
// spread, and a nodeSelector on arch when arch is set.
func launchablePod(name, app string, spread bool, arch string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, labels: {app: %s}}\nspec:\n", name, app)
	b.WriteString("  containers: [{name: main, image: pause, resources: {requests: {cpu: 10m, memory: 1Mi}}}]\n")
	if arch != "" {
		fmt.Fprintf(&b, "  nodeSelector: {kubernetes.io/arch: %s}\n", arch)
	}
	if spread {
		fmt.Fprintf(&b, "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: %s}}}]\n", app)
	}
	return b.String()
}

// TestSpreadAsLaunchedCountsOnlyDomainsANodeCanBeIn: one node per pod; db-c0 and db-c1 carry
// a zone spread (maxSkew 1) that db-0 and db-1 only select. Nodes can be in zones a and c
// alone, so the spread holds as launched with two db pods in each: kube-scheduler counts only
// domains some node is in. Zone b, which no available offering launches in, held the cap's
// minimum at zero, so the default kept db-0 and db-1 out (cluster.TestUserProperty).
func TestSpreadAsLaunchedCountsOnlyDomainsANodeCanBeIn(t *testing.T) {
	manifests := launchablePool + launchablePod("db-a", "db", true, "") + launchablePod("db-b", "db", true, "") +
		launchablePod("db-x", "db", false, "") + launchablePod("db-y", "db", false, "")
	res := fidelityInput(t, manifests, launchableTypes, scheduling.PackingCostAware).solve(t)
	assert.Empty(t, res.PodErrors)
	assert.Equal(t, map[string]int{"test-zone-a": 2, "test-zone-c": 2}, podsPerZone(res))
}

// TestSpreadBreaksReadsTheLaunchedInstanceType: web-c's zone spread counts only amd64 nodes
// (its nodeSelector, nodeAffinityPolicy Honor), so only zone a. A NodeClaim open on arch that
// launches arm64 in zone c is no node of web's, yet the check of a plan as launched counted it
// as one, found web's zone a two above an empty zone c, and threw away the plan that kept
// every spread for one that broke db's (cluster.TestUserProperty seed 7208094370189301959).
func TestSpreadBreaksReadsTheLaunchedInstanceType(t *testing.T) {
	manifests := launchablePool + launchablePod("db-a", "db", true, "") + launchablePod("db-b", "db", true, "") +
		launchablePod("db-x", "db", false, "") + launchablePod("db-y", "db", false, "amd64") +
		launchablePod("web-c", "web", true, "amd64")
	for i := range 4 {
		manifests += launchablePod(fmt.Sprint("web-", i), "web", false, "")
	}
	res := fidelityInput(t, manifests, launchableTypes, scheduling.PackingCostAware).solve(t)
	placed := 0
	for _, c := range res.NewNodeClaims {
		placed += len(c.Pods)
	}
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "db-y", res.PodErrors[0].Pod.Name, "db-y needs zone a, where a third db pod breaks the spread as launched")
	assert.Equal(t, 8, placed)
}
