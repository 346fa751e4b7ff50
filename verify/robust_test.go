package verify_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestOddResultsNeverPanic: nil entries and half-filled claims give violations, not panics;
// a nil snapshot or result gives none. (The results are invalid on purpose: no Solve or
// Plan made them.)
func TestOddResultsNeverPanic(t *testing.T) {
	w := schedWorld(pending("a", "100m").Obj())
	w.addNode("node-a", "default", fake.TestZone1, 4)
	snap := w.snap(t)
	res := &scheduling.Result{
		NewNodeClaims: []*scheduling.NodeClaim{nil, {NodePool: "default", Pods: w.Pods[:1]},
			{NodePool: "default", InstanceType: w.InstanceTypes["default"][0]}},
		Bindings:  []cluster.Move{{}, {To: "node-a", Claim: -1}},
		PodErrors: []scheduling.PodError{{}},
	}
	if vs := verify.Solve(snap, scheduling.Options{}, res); !hasCode(vs, verify.LaunchMissing) {
		t.Fatalf("want LaunchMissing, got %v", vs)
	}
	if vs := verify.Solve(&cluster.Snapshot{}, scheduling.Options{}, res); !hasCode(vs, verify.NodeUnknown) {
		t.Fatalf("the empty snapshot holds no node-a: want NodeUnknown, got %v", vs)
	}
	if vs := verify.Solve(nil, scheduling.Options{}, res); vs != nil {
		t.Fatal(vs)
	}
	pw := planWorld()
	pw.addNode("node-a", "default", fake.TestZone1, 4)
	psnap := pw.snap(t)
	pres := &disruption.Result{Commands: []disruption.Command{{Reason: disruption.ReasonUnderutilized, Candidates: []string{"node-a", ""},
		Replacements: []*scheduling.NodeClaim{nil, {NodePool: "default"}}}}, Provisioned: []*scheduling.NodeClaim{nil}}
	if vs := verify.Plan(psnap, now, disruption.Options{}, pres); !hasCode(vs, verify.PlanNodeUnknown) {
		t.Fatalf("want PlanNodeUnknown, got %v", vs)
	}
	if vs := verify.Plan(psnap, now, disruption.Options{}, nil); vs != nil {
		t.Fatal(vs)
	}
	if vs := verify.Plan(nil, now, disruption.Options{}, pres); vs != nil {
		t.Fatal(vs)
	}
}
