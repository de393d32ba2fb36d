//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuUse is the process's CPU time (user and system) and minor page
// faults so far: a run's CPU per chunk op holds still when the machine's
// load moves its wall time, and on a virtual machine whose host backs
// memory lazily the faults are a large part of the system time.
func cpuUse() (cpu time.Duration, minorFaults int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Minflt), true
}
