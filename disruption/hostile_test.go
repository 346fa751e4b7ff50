package disruption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
)

// TestPlanNeverPanicsOnNil: nil objects anywhere in the input are refused by cluster.New
// (Nodes, NodeClaims, pods, NodePools, DaemonSets, PDBs, offerings) with an
// *InvalidInputError; nil instance types are skipped; never a panic.
func TestPlanNeverPanicsOnNil(t *testing.T) {
	node := func() *cluster.Node { return testNode("node-a", "default", "small", "", bound("a", "100m")) }
	nilOffering := testType("small", 2, 0.1)
	nilOffering.Offerings = append(nilOffering.Offerings, nil)
	for name, tc := range map[string]struct {
		mod     func(*fixture)
		refused bool // by cluster.New
	}{
		"nil node":          {func(in *fixture) { in.Objects.Nodes = append(in.Objects.Nodes, nil) }, true},
		"nil NodeClaim":     {func(in *fixture) { in.NodeClaims = append(in.NodeClaims, nil) }, true},
		"nameless node":     {func(in *fixture) { in.Objects.Nodes = append(in.Objects.Nodes, &corev1.Node{}) }, false},
		"nil bound pod":     {func(in *fixture) { in.Nodes[0].Pods = append(in.Nodes[0].Pods, nil) }, true},
		"nil pending pod":   {func(in *fixture) { in.Pods = []*corev1.Pod{nil} }, true},
		"nil type":          {func(in *fixture) { in.InstanceTypes["default"] = append(in.InstanceTypes["default"], nil) }, false},
		"nil offering":      {func(in *fixture) { in.InstanceTypes["default"] = cloudprovider.InstanceTypes{nilOffering} }, true},
		"nil NodePool":      {func(in *fixture) { in.NodePools = append(in.NodePools, nil) }, true},
		"nil DaemonSet":     {func(in *fixture) { in.DaemonSets = append(in.DaemonSets, nil) }, true},
		"nil PDB":           {func(in *fixture) { in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, nil) }, true},
		"no instance types": {func(in *fixture) { in.InstanceTypes = nil }, false},
	} {
		t.Run(name, func(t *testing.T) {
			in := input([]*v1.NodePool{pool("default")}, node())
			tc.mod(in)
			assert.NotPanics(t, func() {
				snap, err := in.snapshot()
				var invalid *cluster.InvalidInputError
				if tc.refused {
					assert.ErrorAs(t, err, &invalid)
					assert.Equal(t, cluster.InputNil, invalid.Code, "cluster.New refuses: %v", err)
				}
				if assert.Equal(t, tc.refused, err != nil, "cluster.New refuses: %v", err) && err == nil {
					if res, err := Plan(snap, in.Now, in.Options); err == nil {
						verified(t, snap, in.Now, in.Options, res)
					}
				}
			})
		})
	}
}

// TestUncountableBoundPodIsNotFree: a bound pod requesting 1e30 cpu (read as 0 once) does not
// make its node look empty or underutilized enough to consolidate.
func TestUncountableBoundPodIsNotFree(t *testing.T) {
	huge := bound("huge", "100m")
	huge.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1e30")
	in := input([]*v1.NodePool{pool("default")}, testNode("node-a", "default", "large", "", huge))
	res, err := plan(t, in)
	if err != nil {
		return // refusing the input is as good
	}
	for _, c := range res.Commands {
		for _, n := range c.Candidates {
			assert.NotEqual(t, "node-a", n, "%s command for a node whose pod cannot be counted", c.Method)
		}
	}
}
