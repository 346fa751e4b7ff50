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
	dir := filepath.Join("testdata", "affinity-key-missing")
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
