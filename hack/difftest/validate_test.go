package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAffinityCountsOnlyNodesWithTheKey: kube-scheduler counts a pod a required pod affinity
// selects only on a node that has the term's topology key, so a match bound on a node without
// the key leaves the first pod free to start its group (its own term's exception). Plan
// plan:910059 minimised: app-1's pods (affinity on "team") start on a pool-1 NodeClaim while
// an app-1 pod runs on node-0, which has no team label; the checker read that pod as a match
// "elsewhere" and reported affinity-bootstrap-team, a rule kube-scheduler does not have.
func TestAffinityCountsOnlyNodesWithTheKey(t *testing.T) {
	w, o := loadWorldAndPlan(t, "affinity-key-missing")
	placedApp1 := 0
	for _, c := range o.NodeClaims {
		for _, p := range c.Pods {
			if p == "default/app-1-0" || p == "default/app-1-1" {
				placedApp1++
			}
		}
	}
	if placedApp1 != 2 {
		t.Fatalf("the plan places %d of app-1's 2 pods on NodeClaims, want 2", placedApp1)
	}
	for _, v := range w.validatePlan(o) {
		if v.Pod == "default/app-1-0" || v.Pod == "default/app-1-1" {
			t.Errorf("violation %s", v)
		}
	}
}

// loadWorldAndPlan loads testdata/<name>'s world and its nodeplan.json plan.
func loadWorldAndPlan(t *testing.T, name string) (*world, *planOutput) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	w, err := loadWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "nodeplan.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := parsePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	return w, o
}

// TestAffinityNamespaceSelectorSelectsEveryNamespace: an affinity term with an empty
// namespaceSelector selects the pods of every namespace. plan:950292: team-b/app-3-0's zone
// affinity to app-0 is met by default/app-0-1 on the same node; the checker looked in team-b
// alone and reported affinity-zone, a rule the plan keeps.
func TestAffinityNamespaceSelectorSelectsEveryNamespace(t *testing.T) {
	w, o := loadWorldAndPlan(t, "affinity-namespace-selector")
	for _, v := range w.validatePlan(o) {
		if v.Pod == "team-b/app-3-0" {
			t.Errorf("violation %s", v)
		}
	}
}

// TestCheckerKeepsValidPlans: each plan, run by nodeplan on an input the checker once
// misread, keeps every rule kube-scheduler holds it to; the checker must report nothing.
func TestCheckerKeepsValidPlans(t *testing.T) {
	oneClaim := func(pods int, zone string) func(*planOutput) bool {
		return func(o *planOutput) bool {
			return len(o.NodeClaims) == 1 && len(o.NodeClaims[0].Pods) == pods && (zone == "" || o.NodeClaims[0].Zone == zone)
		}
	}
	onOneNode := func(o *planOutput) bool { return len(o.ExistingNodes) == 1 && len(o.NodeClaims) == 0 }
	cases := []struct {
		dir  string
		plan func(*planOutput) bool // the plan the case is about (nil: any)
	}{
		// A zone is a domain of a spread only where a node the catalog can launch matches the
		// pod's required node affinity. plan:880056: app-0 needs family r and zone c or more
		// than 4 vCPUs; the catalog's r types in zones a and b have 2, so both pods on one
		// zone-c node keep the spread, where zones a and b were read as empty domains.
		{"spread-any-term", oneClaim(2, "")},
		// A reserved offering whose reservation has no capacity left is unavailable, as the
		// catalog file reads it. plan:980218: pods requiring reserved capacity spread over
		// zones, all on zone b's reservation; zone c's, empty, was read as an empty domain.
		{"spread-empty-reservation", oneClaim(3, "test-zone-b")},
		// A spread with matchLabelKeys counts only the pods with the carrier's values of those
		// keys. plan:980142: app-1 (version v2), spread over capacity types with
		// matchLabelKeys [version], lands on spot node-0 beside an app-1 pod of version v1.
		{"spread-match-label-keys", onOneNode},
		// A zone is a domain only where some NodePool can still launch a node. plan:960280:
		// zone c is offered only by an arm64 type, which pool-0 (amd64) cannot launch and
		// pool-1 (at its one-node limit) no longer can.
		{"spread-pool-domains", nil},
		// A NodePool whose requirements admit fewer instance types than its minValues
		// launches no node. plan:971084: only pool-0's two types (minValues 3) are offered in
		// zone a; app-1-0 on node-2 in zone b keeps the spread over b and c.
		{"spread-minvalues-short-pool", onOneNode},
		// A pod the plan places in a domain a required pod affinity selects, carrying no such
		// term itself, can be bound first. plan:971646: app-2-2 and app-2-3 on zone-b
		// NodeClaims, where the plan binds app-0 pods (no pod affinity) to nodes.
		{"affinity-placed-seed", nil},
		// A domain whose carriers all bind now, to nodes that take pods before any NodeClaim
		// launches, is judged then, over the Nodes' domains; the others' as launched.
		// plan:1009228: app-2-0 binds now to spot node-0 (the only capacity type a node has),
		// app-2-1 later to a reserved NodeClaim, the least populated; pods that only the
		// spread selects then make spot 14 and reserved 7.
		{"spread-binds-now-domain", func(o *planOutput) bool { return len(o.ExistingNodes) == 1 && len(o.NodeClaims) == 9 }},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			w, o := loadWorldAndPlan(t, tc.dir)
			if tc.plan != nil && !tc.plan(o) {
				t.Fatalf("the plan is not the one the case is about: %d NodeClaims, %d existing nodes", len(o.NodeClaims), len(o.ExistingNodes))
			}
			for _, v := range w.validatePlan(o) {
				t.Errorf("violation %s", v)
			}
		})
	}
}

// TestViolationKindsNeverExcuseAReservation: a kind of violation Karpenter's plan shows too is
// not held against nodeplan, except a reservation launched past its capacity, which the
// oracle's cloud provider never counts.
func TestViolationKindsNeverExcuseAReservation(t *testing.T) {
	np := []violation{{Kind: "reservation", Pod: "r5g-2x16 test-zone-a"}, {Kind: "spread-zone", Pod: "default/a"}}
	or := []violation{{Kind: "reservation", Pod: "r5g-2x16 test-zone-b"}, {Kind: "spread-zone", Pod: "default/b"}}
	if got := violationKinds(np, or); !slices.Equal(got, []string{"reservation"}) {
		t.Errorf("violationKinds = %v, want [reservation]", got)
	}
	if got := violationKinds(np[1:], or); len(got) != 0 {
		t.Errorf("violationKinds = %v, want none", got)
	}
}
