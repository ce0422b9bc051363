package lod

import (
	"runtime"
	"syscall"
)

// threadCPU returns the calling OS thread's CPU time in ns (user+system),
// and locks the goroutine to its thread so later calls read the same
// clock. On a loaded machine a benchmark's wall time includes the time
// other processes run; its CPU time does not.
func threadCPU() int64 {
	runtime.LockOSThread()
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// processCPU returns the process's CPU time in ns (user+system, every
// thread), -1 if unknown.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
