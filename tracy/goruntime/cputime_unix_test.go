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

// settle waits until the process is idle (under 1 ms of CPU in 20 ms, at
// most 3 s): the sender and the capture have caught up, so a round's
// CPU time holds all the work it caused and none spills into the next.
func settle() {
	for range 150 {
		c0 := cpuTime()
		time.Sleep(20 * time.Millisecond)
		if cpuTime()-c0 < time.Millisecond {
			return
		}
	}
}
