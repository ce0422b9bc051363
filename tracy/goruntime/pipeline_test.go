package goruntime_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	rtrace "runtime/trace"
	"slices"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/goruntime"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

// BenchmarkPipeline decomposes the live path's cost per event, repeatably:
// it records the execution trace (with CPU samples at 100 Hz) of ten
// GoroutineHeavy calls once, then runs the live reader over those bytes
// in interleaved rounds, cut after parsing (x/exp/trace), after
// translation (into a sink that drops), and whole (sent into the tracy
// client, consumed by an in-process capture unless
// GORUNTIME_BENCH_NOCAPTURE=1). Each stage's CPU time (the process's, to
// the end of its flush) is reported per event and in percent of the
// workload's own CPU time, the overhead it adds to the program. The
// stream is read from memory, not a pipe the runtime fills as it goes,
// so these are lower bounds of the live costs.
func BenchmarkPipeline(b *testing.B) {
	if os.Getenv("GORUNTIME_BENCH_NOCAPTURE") == "1" {
		if err := tracy.Start(tracy.WithBacklogLimit(1 << 30)); err != nil {
			b.Fatal(err)
		}
	} else if err := tracyfile.Start(filepath.Join(b.TempDir(), "bench.tracy")); err != nil {
		b.Fatal(err)
	}
	defer tracy.Stop()
	const reps = 10
	var plain []time.Duration
	for range 3 {
		c0 := cpuTime()
		for range reps {
			goruntime.GoroutineHeavy()
		}
		plain = append(plain, cpuTime()-c0)
	}
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		b.Fatal(err)
	}
	if err := rtrace.Start(&buf); err != nil {
		b.Fatal(err)
	}
	for range reps {
		goruntime.GoroutineHeavy()
	}
	rtrace.Stop()
	pprof.StopCPUProfile()
	settle()
	stages := []struct {
		name  string
		stage int
		cpu   []time.Duration
	}{{name: "parse", stage: 1}, {name: "translate", stage: 2}, {name: "send", stage: 0}}
	var st goruntime.Stats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range stages {
			s := &stages[(k+i)%len(stages)]
			c0 := cpuTime()
			if got := goruntime.ReadTrace(bytes.NewReader(buf.Bytes()), s.stage); s.stage != 1 {
				st = got // (parsing alone counts nothing)
			}
			settle()
			s.cpu = append(s.cpu, cpuTime()-c0)
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2])
	}
	p, prev := med(plain), 0.0
	for _, s := range stages {
		m := med(s.cpu)
		b.ReportMetric((m-prev)/float64(st.Events), s.name+"-ns/event")
		b.ReportMetric(100*(m-prev)/p, s.name+"-%")
		prev = m
	}
	b.ReportMetric(float64(st.Events)/reps, "events/work")
	b.ReportMetric(p/reps/1e6, "plain-cpu-ms/work")
	b.ReportMetric(float64(buf.Len())/reps, "trace-bytes/work")
}
