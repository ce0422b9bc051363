//go:build unix

package goruntime_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: under a loaded machine it
// varies far less than wall time, and it counts every goroutine's work
// (the parser, the sender, the in-process capture), not only the workload's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
