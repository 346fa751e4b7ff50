package main

import (
	"os"
	"path/filepath"
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

// TestSpreadDomainsAreWhereAMatchingNodeCanBe: a zone is a domain of a pod's spread only if a
// node the catalog can launch there matches the pod's required node affinity (kube-scheduler
// counts only matching nodes). plan:880056 minimised: app-0 needs family r and zone c or more
// than 4 vCPUs; the catalog's r types in zones a and b have 2, so both pods on one zone-c node
// keep the spread, where the checker read zones a and b as empty domains (skew 2 > 1).
func TestSpreadDomainsAreWhereAMatchingNodeCanBe(t *testing.T) {
	w, o := loadWorldAndPlan(t, "spread-any-term")
	if len(o.NodeClaims) != 1 || len(o.NodeClaims[0].Pods) != 2 {
		t.Fatalf("the plan has %d NodeClaims, want 1 with both pods", len(o.NodeClaims))
	}
	if vs := w.validatePlan(o); len(vs) != 0 {
		t.Errorf("violations %v", vs)
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

// TestSpreadDomainsNeedReservationCapacity: a reserved offering whose reservation has no
// capacity left is unavailable, as the catalog file reads it, so no node requiring reserved
// capacity can be in its zone. plan:980218 minimised: pods requiring capacity-type reserved,
// spread over zones, all on the one reservation with capacity (zone b); the checker counted
// zone c, whose reservation is empty, as an empty domain (skew 3 > 1), where kube-scheduler
// counts only the nodes that pass the pods' nodeSelector.
func TestSpreadDomainsNeedReservationCapacity(t *testing.T) {
	w, o := loadWorldAndPlan(t, "spread-empty-reservation")
	if len(o.NodeClaims) != 1 || len(o.NodeClaims[0].Pods) != 3 || o.NodeClaims[0].Zone != "test-zone-b" {
		t.Fatalf("the plan has %d NodeClaims, want 1 in zone b with the 3 pods", len(o.NodeClaims))
	}
	if vs := w.validatePlan(o); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestSpreadSelectorHasMatchLabelKeys: a spread with matchLabelKeys counts only the pods with
// the carrier's values of those keys. plan:980142 minimised: app-1 (version v2) spread over
// capacity types with matchLabelKeys [version] lands on spot node-0 beside a bound app-1 pod
// of version v1; the checker counted that pod (spot 2, on-demand 0: skew 2 > 1).
func TestSpreadSelectorHasMatchLabelKeys(t *testing.T) {
	w, o := loadWorldAndPlan(t, "spread-match-label-keys")
	if len(o.ExistingNodes) != 1 || len(o.NodeClaims) != 0 {
		t.Fatalf("the plan has %d NodeClaims, want app-1-0 on node-0", len(o.NodeClaims))
	}
	if vs := w.validatePlan(o); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestSpreadDomainsAreWhereANodePoolCanLaunch: a zone is a domain of a pod's spread only if
// some NodePool can still launch a node there: an instance type its requirements admit is
// offered there, and it is below its nodes limit. plan:960280 minimised: zone c is offered
// only by an arm64 type, which pool-0 (amd64) cannot launch and pool-1 (at its one-node limit)
// no longer can; two app-0 pods in each of zones a and b keep the zone spread, where the
// checker read zone c as an empty domain (skew 2 > 1).
func TestSpreadDomainsAreWhereANodePoolCanLaunch(t *testing.T) {
	w, o := loadWorldAndPlan(t, "spread-pool-domains")
	if vs := w.validatePlan(o); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestSpreadDomainsNeedANodePoolMeetingMinValues: a NodePool whose requirements admit fewer
// instance types than its instance-type minValues launches no node, so a zone only it offers
// is no domain. plan:971084 minimised: app-1-0 bound to node-2 in zone b beside app-1 pods in
// zones b and c; only pool-0's two types (minValues 3) are offered in zone a, which the
// checker read as an empty domain (skew 2 > 1).
func TestSpreadDomainsNeedANodePoolMeetingMinValues(t *testing.T) {
	w, o := loadWorldAndPlan(t, "spread-minvalues-short-pool")
	if len(o.ExistingNodes) != 1 || len(o.NodeClaims) != 0 {
		t.Fatalf("the plan has %d NodeClaims, want app-1-0 on node-2", len(o.NodeClaims))
	}
	if vs := w.validatePlan(o); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestAffinityDomainSeededByAPlacedPodWithoutTheTerm: a pod the plan places in a domain that
// a required pod affinity selects, and that carries no such term itself, can be bound first,
// so the term's own pods may start there beside a match running elsewhere. plan:971646:
// app-2-2 and app-2-3 on zone-b NodeClaims, where the plan binds app-0 pods (no pod
// affinity) to nodes; the checker read zone b as a second start of app-2's group.
func TestAffinityDomainSeededByAPlacedPodWithoutTheTerm(t *testing.T) {
	w, o := loadWorldAndPlan(t, "affinity-placed-seed")
	for _, v := range w.validatePlan(o) {
		t.Errorf("violation %s", v)
	}
}
