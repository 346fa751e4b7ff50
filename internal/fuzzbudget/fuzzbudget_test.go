package fuzzbudget

import (
	"flag"
	"testing"
)

// FuzzShortMinimization runs as a plain test too: the body before f.Fuzz is what -fuzz runs.
func FuzzShortMinimization(f *testing.F) {
	minimize := flag.Lookup("test.fuzzminimizetime")
	if minimize == nil {
		f.Fatal("the testing package has no -test.fuzzminimizetime flag")
	}
	onCommandLine := false
	flag.Visit(func(fl *flag.Flag) { onCommandLine = onCommandLine || fl.Name == minimize.Name })
	before := minimize.Value.String()
	ShortMinimization(f)
	want := Runs
	if onCommandLine {
		want = before
	}
	if got := minimize.Value.String(); got != want {
		f.Fatalf("-fuzzminimizetime is %s, want %s (set on the command line: %v)", got, want, onCommandLine)
	}
	f.Fuzz(func(*testing.T, []byte) {})
}
