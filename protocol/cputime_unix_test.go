//go:build unix

package protocol

import "syscall"

// processCPU is the process's user+system CPU time in seconds. The shared
// benchmark machine is often oversubscribed, so benchmarks report CPU time
// per op beside wall time: it shows the code's cost without the queueing.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
