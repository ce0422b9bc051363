//go:build unix

package symbols

import (
	"syscall"
	"time"
)

// cpuSelf and cpuChildren are the user+system CPU time of this process and
// of its waited-for children (addr2line, llvm-symbolizer in the benchmarks).
func cpuSelf() time.Duration     { return rusage(syscall.RUSAGE_SELF) }
func cpuChildren() time.Duration { return rusage(syscall.RUSAGE_CHILDREN) }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
