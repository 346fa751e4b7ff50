package main

import (
	"context"
	"slices"
	"testing"

	"github.com/nodeplan/nodeplan/aws"
)

// TestRunLocal runs the whole host round (list, Solve, Create, interruption, Delete) against
// the local servers.
func TestRunLocal(t *testing.T) {
	rep, err := run(context.Background(), true, "demo", "us-east-1", "", "", "1.33")
	if err != nil {
		t.Fatal(err)
	}
	if rep.described != 1355 || rep.usable < 1300 {
		t.Errorf("described %d types, %d usable", rep.described, rep.usable)
	}
	if rep.priceError != nil {
		t.Errorf("on-demand prices not refreshed from the local Pricing API: %v", rep.priceError)
	}
	if rep.instanceProfile != aws.InstanceProfileName("demo", "us-east-1", "default") {
		t.Errorf("instance profile %q, want Karpenter's name for the role", rep.instanceProfile)
	}
	if !slices.Equal(rep.amis, []string{"ami-0demoamd64", "ami-0demoarm64"}) && !slices.Equal(rep.amis, []string{"ami-0demoarm64", "ami-0demoamd64"}) {
		t.Errorf("AMIs %v, want the two the SSM parameters name", rep.amis)
	}
	if len(rep.launched) != 1 || rep.poll.Handled != 1 {
		t.Errorf("launched %d claims, handled %d interruptions; want 1 and 1", len(rep.launched), rep.poll.Handled)
	}
	if len(rep.live) != 0 {
		t.Errorf("instances %v still run after the interruption deleted their claim", rep.live)
	}
}
