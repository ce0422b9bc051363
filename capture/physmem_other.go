//go:build !linux

package capture

// physicalMemory is unknown here; MemoryLimitPercent reports it.
func physicalMemory() uint64 { return 0 }
