package goruntime_test

import (
	"io"
	"os"
	"path/filepath"
	rtrace "runtime/trace"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/goruntime"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

// benchOverhead times work in alternating rounds of the same run, under
// one tracy session captured in-process: without goruntime, with the bare
// execution tracer (runtime/trace into io.Discard: the floor no tracer-based
// tool can go below), and with goruntime and every feature on (execution
// trace parsed and sent, CPU samples at 100 Hz, metrics every 100 ms). It
// reports both overheads in percent of the time without.
func benchOverhead(b *testing.B, work func(), reps int) {
	startBenchSession(b)
	defer tracy.Stop()
	// Each round's CPU time is taken to the end of its flush (Stop), so
	// the work goruntime causes after the round is counted in it.
	var plain, bare, live, cPlain, cBare, cLive time.Duration
	run := func(wall, cpu *time.Duration, stop func()) {
		c0, t0 := cpuTime(), time.Now()
		for i := 0; i < reps; i++ {
			work()
		}
		*wall += time.Since(t0)
		stop()
		settle() // the sender and capture caught up
		*cpu += cpuTime() - c0
	}
	for i := 0; i < b.N; i++ {
		run(&plain, &cPlain, func() {})
		if err := rtrace.Start(io.Discard); err != nil {
			b.Fatal(err)
		}
		run(&bare, &cBare, rtrace.Stop)
		if err := goruntime.Start(goruntime.WithCPUSamples(100)); err != nil {
			b.Fatal(err)
		}
		run(&live, &cLive, func() {
			if err := goruntime.Stop(); err != nil {
				b.Fatal(err)
			}
		})
	}
	pct := func(d, base time.Duration) float64 { return 100 * (float64(d) - float64(base)) / float64(base) }
	b.ReportMetric(pct(live, plain), "goruntime-wall-%")
	b.ReportMetric(pct(bare, plain), "tracer-wall-%")
	if cPlain > 0 {
		b.ReportMetric(pct(cLive, cPlain), "goruntime-cpu-%")
		b.ReportMetric(pct(cBare, cPlain), "tracer-cpu-%")
	}
	b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N*reps), "plain-ns/work")
}

func BenchmarkOverheadCPU(b *testing.B)        { benchOverhead(b, goruntime.CPUBound, 20) }
func BenchmarkOverheadGoroutines(b *testing.B) { benchOverhead(b, goruntime.GoroutineHeavy, 10) }

// BenchmarkOverheadRing is the worst case: nothing but channel hand-offs,
// where the execution tracer's own cost per event dominates.
func BenchmarkOverheadRing(b *testing.B) { benchOverhead(b, goruntime.Ring, 5) }

// startBenchSession starts the tracy session the overhead benchmarks run
// under: captured in-process into a file, or with
// GORUNTIME_BENCH_NOCAPTURE=1 without a capture (the client compresses
// into its backlog): the program's own share of the cost, as when the
// capture runs on another machine. The caller stops it.
func startBenchSession(b *testing.B) {
	if os.Getenv("GORUNTIME_BENCH_NOCAPTURE") == "1" {
		if err := tracy.Start(tracy.WithBacklogLimit(1 << 30)); err != nil {
			b.Fatal(err)
		}
	} else if err := tracyfile.Start(filepath.Join(b.TempDir(), "bench.tracy")); err != nil {
		b.Fatal(err)
	}
}
