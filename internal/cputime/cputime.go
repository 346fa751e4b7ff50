// Package cputime reads the CPU time the process has used, for benchmarks on a shared
// machine: wall time per op swings with the other processes' load, the process's own CPU
// time much less. Test support only: no core package imports it.
package cputime

import "time"

// Per is the CPU time used since start (a Now reading) divided by n, in nanoseconds: what a
// benchmark reports as "cpu-ns/op" after its loop.
func Per(start time.Duration, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(Now()-start) / float64(n)
}
