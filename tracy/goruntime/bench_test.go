package goruntime_test

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	rtrace "runtime/trace"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/goruntime"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

// cpuBound hashes 8 MiB on one goroutine: no scheduling, no allocation.
func cpuBound() {
	buf := make([]byte, 64<<10)
	for i := 0; i < 128; i++ {
		sum := sha256.Sum256(buf)
		buf[0] = sum[0]
	}
}

// goroutineHeavy runs 1000 goroutines, each hashing 16 KiB in four steps
// and blocking on a channel between them (fan-out, fan-in): about 4,000
// blocks and wake-ups per call, a few tens of microseconds of work each.
func goroutineHeavy() {
	const n = 1000
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make(chan [32]byte, 16)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			<-start
			for k := 0; k < 4; k++ {
				sum := sha256.Sum256(buf)
				buf[0] = sum[0]
				results <- sum
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		for range n * 4 {
			<-results
		}
		close(done)
	}()
	close(start)
	wg.Wait()
	<-done
}

// ring runs 200 goroutines passing 20,000 messages around a ring
// of unbuffered channels: every message is a block and a wake-up.
func ring() {
	const n, msgs = 200, 20000
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int)
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(in, out chan int) {
			defer wg.Done()
			for v := range in {
				if v == 0 {
					close(out)
					return
				}
				out <- v - 1
			}
			close(out)
		}(chans[i], chans[(i+1)%n])
	}
	chans[0] <- msgs
	wg.Wait()
}

// benchOverhead times work in alternating rounds of the same run, under
// one tracy session captured in-process: without goruntime, with the bare
// execution tracer (runtime/trace into io.Discard: the floor no tracer-based
// tool can go below), and with goruntime and every feature on (execution
// trace parsed and sent, CPU samples at 100 Hz, metrics every 100 ms). It
// reports both overheads in percent of the time without.
func benchOverhead(b *testing.B, work func(), reps int) {
	// GORUNTIME_BENCH_NOCAPTURE=1 leaves the capture out (the client
	// compresses into its backlog): the program's own share of the cost,
	// as when the capture runs on another machine.
	if os.Getenv("GORUNTIME_BENCH_NOCAPTURE") == "1" {
		if err := tracy.Start(tracy.WithBacklogLimit(1 << 30)); err != nil {
			b.Fatal(err)
		}
	} else if err := tracyfile.Start(filepath.Join(b.TempDir(), "bench.tracy")); err != nil {
		b.Fatal(err)
	}
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
		time.Sleep(50 * time.Millisecond) // let the sender and capture catch up
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

func BenchmarkOverheadCPU(b *testing.B)        { benchOverhead(b, cpuBound, 20) }
func BenchmarkOverheadGoroutines(b *testing.B) { benchOverhead(b, goroutineHeavy, 10) }

// BenchmarkOverheadRing is the worst case: nothing but channel hand-offs,
// where the execution tracer's own cost per event dominates.
func BenchmarkOverheadRing(b *testing.B) { benchOverhead(b, ring, 5) }
