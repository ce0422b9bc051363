//go:build !linux

package lod

// threadCPU is not measured outside Linux.
func threadCPU() int64 { return -1 }

func processCPU() int64 { return -1 }
