package disruption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPlanNeverPanicsOnNil: nil entries anywhere in the input are skipped or an error, never
// a panic.
func TestPlanNeverPanicsOnNil(t *testing.T) {
	node := func() *scheduling.Node { return testNode("node-a", "default", "small", "", bound("a", "100m")) }
	nilOffering := testType("small", 2, 0.1)
	nilOffering.Offerings = append(nilOffering.Offerings, nil)
	for name, mod := range map[string]func(*Input){
		"nil node":          func(in *Input) { in.Nodes = append(in.Nodes, nil) },
		"empty node":        func(in *Input) { in.Nodes = append(in.Nodes, &scheduling.Node{}) },
		"nil bound pod":     func(in *Input) { in.Nodes[0].Pods = append(in.Nodes[0].Pods, nil) },
		"nil pending pod":   func(in *Input) { in.Pods = []*corev1.Pod{nil} },
		"nil type":          func(in *Input) { in.InstanceTypes["default"] = append(in.InstanceTypes["default"], nil) },
		"nil offering":      func(in *Input) { in.InstanceTypes["default"] = cloudprovider.InstanceTypes{nilOffering} },
		"nil NodePool":      func(in *Input) { in.NodePools = append(in.NodePools, nil) },
		"nil DaemonSet":     func(in *Input) { in.DaemonSets = append(in.DaemonSets, nil) },
		"nil PDB":           func(in *Input) { in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, nil) },
		"no instance types": func(in *Input) { in.InstanceTypes = nil },
	} {
		t.Run(name, func(t *testing.T) {
			in := input([]*v1.NodePool{pool("default")}, node())
			mod(in)
			assert.NotPanics(t, func() { _, _ = PlanInput(in) })
		})
	}
}

// TestUncountableBoundPodIsNotFree: a bound pod requesting 1e30 cpu (read as 0 once) does not
// make its node look empty or underutilized enough to consolidate.
func TestUncountableBoundPodIsNotFree(t *testing.T) {
	huge := bound("huge", "100m")
	huge.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1e30")
	in := input([]*v1.NodePool{pool("default")}, testNode("node-a", "default", "large", "", huge))
	res, err := PlanInput(in)
	if err != nil {
		return // refusing the input is as good
	}
	for _, c := range res.Commands {
		for _, n := range c.Candidates {
			assert.NotEqual(t, "node-a", n, "%s command for a node whose pod cannot be counted", c.Method)
		}
	}
}
