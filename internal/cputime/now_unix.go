//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Now is the user plus system CPU time the process has used so far (getrusage).
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
