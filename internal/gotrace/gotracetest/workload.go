// Package gotracetest is the known workload the Go-runtime tests of the
// live path (tracy/goruntime) and the importer (formats/gotrace) both run:
// regions of known names and counts, goroutines that block on a channel,
// forced GCs, a task, logs and CPU-bound work for the profiler to sample.
package gotracetest

import (
	"context"
	"runtime"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

// What Run does.
const (
	RegionA   = "gotracetest.regionA"
	RegionB   = "gotracetest.regionB"
	NA, NB    = 20, 30 // regions of each name
	Workers   = 8      // goroutines blocking on a channel
	ForcedGCs = 3
	TaskName  = "gotracetest.task"
	Logs      = 5
	SpinFunc  = "gotracetest.Spin"
	WorkerFn  = "github.com/gotracy/gotracy/internal/gotrace/gotracetest.worker"
)

var sink atomic.Uint64

// Spin burns CPU for about d.
//
//go:noinline
func Spin(d time.Duration) {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Add(x)
}

func worker(ctx context.Context, in <-chan time.Duration, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := range in {
		trace.WithRegion(ctx, RegionB, func() { Spin(n) })
	}
}

// Run runs the workload; spin is the total CPU time to burn in regions.
// between, if not nil, runs between its phases (a test uses it to cut the
// trace into several generations).
func Run(spin time.Duration, between func()) {
	if between == nil {
		between = func() {}
	}
	ctx, task := trace.NewTask(context.Background(), TaskName)
	in := make(chan time.Duration)
	var wg sync.WaitGroup
	for i := 0; i < Workers; i++ {
		wg.Add(1)
		go worker(ctx, in, &wg)
	}
	per := spin / (NA + NB)
	for i := 0; i < NA; i++ {
		trace.WithRegion(ctx, RegionA, func() { Spin(per) })
		if i < Logs {
			trace.Log(ctx, "gotracetest", "log message")
		}
	}
	between()
	for i := 0; i < NB; i++ {
		in <- per
		time.Sleep(time.Millisecond) // let workers block on the channel
	}
	close(in)
	wg.Wait()
	between()
	garbage := make([][]byte, 0, 1000)
	for i := 0; i < ForcedGCs; i++ {
		for j := 0; j < 1000; j++ {
			garbage = append(garbage, make([]byte, 1024))
		}
		garbage = garbage[:0]
		runtime.GC()
		between()
	}
	task.End()
}
