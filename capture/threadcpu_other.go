//go:build !linux

package capture

import "time"

// threadCPU: no per-thread clock here; publish falls back to wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
