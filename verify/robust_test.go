package verify_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestOddResultsNeverPanic: nil entries and half-filled claims give violations, not panics.
func TestOddResultsNeverPanic(t *testing.T) {
	in := schedInput(pending("a", "100m").Obj(), nil)
	in.Nodes = []*scheduling.Node{nil, {}, node("node-a", "default", fake.TestZone1, 4)}
	res := &scheduling.Result{
		NewNodeClaims: []*scheduling.NodeClaim{nil, {NodePool: "default", Pods: in.Pods[:1]},
			{NodePool: "default", InstanceType: in.InstanceTypes["default"][0]}},
		ExistingNodes: []*scheduling.ExistingNodePlacement{nil, {Name: "node-a"}},
		PodErrors:     []scheduling.PodError{{}},
	}
	if vs := verify.SolveInput(in, res); !hasCode(vs, verify.LaunchMissing) {
		t.Fatalf("want LaunchMissing, got %v", vs)
	}
	if vs := verify.SolveInput(nil, res); vs != nil {
		t.Fatal(vs)
	}
	pin := planInput(nil, node("node-a", "default", fake.TestZone1, 4))
	pres := &disruption.Result{Commands: []disruption.Command{{Reason: disruption.ReasonUnderutilized, Candidates: []string{"node-a", ""},
		Replacements: []*scheduling.NodeClaim{nil, {NodePool: "default"}}}}, Provisioned: []*scheduling.NodeClaim{nil}}
	if vs := verify.PlanInput(pin, pres); !hasCode(vs, verify.PlanNodeUnknown) {
		t.Fatalf("want PlanNodeUnknown, got %v", vs)
	}
	if vs := verify.PlanInput(pin, nil); vs != nil {
		t.Fatal(vs)
	}
}
