//go:build !unix

package goruntime_test

import "time"

func cpuTime() time.Duration { return 0 }

func settle() { time.Sleep(50 * time.Millisecond) }
