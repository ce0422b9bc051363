//go:build !unix

package protocol

func processCPU() float64 { return 0 }
