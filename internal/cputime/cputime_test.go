//go:build unix

package cputime

import "testing"

// TestNowCountsWork: Now grows while the process computes, and Per divides it by n.
func TestNowCountsWork(t *testing.T) {
	start := Now()
	x := 0
	for i := 0; Now()-start < 20e6; i++ { // until 20 ms of CPU have been counted
		x += i % 7
		if i > 1e10 {
			t.Fatalf("20 ms of work were never counted (x=%d)", x)
		}
	}
	if per := Per(start, 4); per < 5e6 {
		t.Fatalf("Per(start, 4) = %v ns, want at least a quarter of 20 ms", per)
	}
	if Per(start, 0) != 0 {
		t.Fatal("Per with n=0 must be 0")
	}
}
