// Package fuzzbudget keeps Go's fuzzer exploring instead of minimizing. The fuzzer shrinks
// every input that reaches new code for up to -fuzzminimizetime (60 s by default) by trying
// to cut every range of its bytes, O(n²) runs; at a millisecond a run, each finding on a
// kilobyte input stops the search for the full minute (manifest's FuzzParse showed 24 runs
// in a minute). It only changes the default: a -fuzzminimizetime on the command line wins.
// It never touches anything but that flag of the testing package.
package fuzzbudget

import (
	"flag"
	"testing"
)

// Runs is how many runs each finding is given to shrink when the command line does not say.
const Runs = "100x"

// ShortMinimization gives each input that reaches new code Runs runs to shrink, unless the
// command line set -fuzzminimizetime. Call it in a FuzzXxx function before f.Fuzz.
func ShortMinimization(f *testing.F) {
	f.Helper()
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == "test.fuzzminimizetime" })
	if set {
		return
	}
	if err := flag.Set("test.fuzzminimizetime", Runs); err != nil {
		f.Fatalf("fuzzbudget: %v", err)
	}
}
