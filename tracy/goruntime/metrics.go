package goruntime

import (
	"math"
	"runtime/metrics"
	"time"

	"github.com/gotracy/gotracy/tracy"
)

// Plot names of the runtime/metrics plots.
const (
	PlotHeap         = "Go heap in use"
	PlotHeapGoal     = "Go heap goal"
	PlotGoroutines   = "Go goroutines"
	PlotGCCPU        = "Go GC CPU"
	PlotSchedLatency = "Go sched latency p99"
)

const (
	mHeap    = "/memory/classes/heap/objects:bytes"
	mGoal    = "/gc/heap/goal:bytes"
	mGs      = "/sched/goroutines:goroutines"
	mGCCPU   = "/cpu/classes/gc/total:cpu-seconds"
	mAllCPU  = "/cpu/classes/total:cpu-seconds"
	mLatency = "/sched/latencies:seconds"
)

func metricsLoop(period time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tracy.PlotConfig(PlotHeap, tracy.PlotMemory, false, true, 0)
	tracy.PlotConfig(PlotHeapGoal, tracy.PlotMemory, true, false, 0)
	tracy.PlotConfig(PlotGCCPU, tracy.PlotPercentage, true, true, 0)
	samples := []metrics.Sample{{Name: mHeap}, {Name: mGoal}, {Name: mGs}, {Name: mGCCPU}, {Name: mAllCPU}, {Name: mLatency}}
	var prevGC, prevAll float64
	var prevLat []uint64
	tk := time.NewTicker(period)
	defer tk.Stop()
	for {
		metrics.Read(samples)
		for _, s := range samples {
			switch s.Name {
			case mHeap:
				if s.Value.Kind() == metrics.KindUint64 {
					tracy.PlotInt(PlotHeap, int64(s.Value.Uint64()))
				}
			case mGoal:
				if s.Value.Kind() == metrics.KindUint64 {
					tracy.PlotInt(PlotHeapGoal, int64(s.Value.Uint64()))
				}
			case mGs:
				if s.Value.Kind() == metrics.KindUint64 {
					tracy.PlotInt(PlotGoroutines, int64(s.Value.Uint64()))
				}
			case mGCCPU:
				if s.Value.Kind() == metrics.KindFloat64 {
					gc := s.Value.Float64()
					all := samples[4].Value
					if all.Kind() == metrics.KindFloat64 {
						a := all.Float64()
						// The runtime updates these estimates at each GC:
						// a period without one has no new point.
						if d := a - prevAll; d > 0 && prevAll > 0 {
							tracy.Plot(PlotGCCPU, 100*(gc-prevGC)/d)
						}
						if a != prevAll {
							prevGC, prevAll = gc, a
						}
					}
				}
			case mLatency:
				if s.Value.Kind() == metrics.KindFloat64Histogram {
					h := s.Value.Float64Histogram()
					if prevLat != nil && len(prevLat) == len(h.Counts) {
						if p, ok := p99(h, prevLat); ok {
							tracy.Plot(PlotSchedLatency, p*1e9)
						}
					}
					prevLat = append(prevLat[:0], h.Counts...)
				}
			}
		}
		select {
		case <-stop:
			return
		case <-tk.C:
		}
	}
}

// p99 is the 99th percentile of the histogram's counts added since prev
// (the upper bound of its bucket, or the lower bound of an open-ended
// last bucket).
func p99(h *metrics.Float64Histogram, prev []uint64) (float64, bool) {
	var total uint64
	for i, c := range h.Counts {
		total += c - prev[i]
	}
	if total == 0 {
		return 0, false
	}
	want := uint64(math.Ceil(float64(total) * 0.99))
	var acc uint64
	for i, c := range h.Counts {
		acc += c - prev[i]
		if acc >= want {
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = h.Buckets[i]
			}
			return hi, true
		}
	}
	return 0, false
}
