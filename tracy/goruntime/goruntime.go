// Package goruntime shows what the Go runtime did in the same Tracy session
// as the program's own zones: when each goroutine actually ran and on which
// P, why it waited, GC cycles and stop-the-world pauses, CPU profile
// samples with their call stacks, heap and scheduler plots, and the
// runtime/trace regions, tasks and logs the program already has.
//
// Start it after tracy.Start and stop it before tracy.Stop:
//
//	tracy.Start()
//	defer tracy.Stop()
//	goruntime.Start(goruntime.WithCPUSamples(100))
//	defer goruntime.Stop()
//
// It is opt-in: a program that imports only tracy links none of it (nor
// golang.org/x/exp/trace). Start turns on the execution tracer
// (runtime/trace.Start into a pipe read in-process) and, with
// WithCPUSamples, the CPU profiler, so neither may already be in use; it
// parses the stream as the runtime writes it and sends the events into the
// running tracy session. The runtime hands the tracer's data over about once
// a second, so runtime events arrive in the viewer a second or two after
// they happened, at their true times.
//
// # What becomes what
//
//   - Goroutine g is Tracy thread g ("main" for goroutine 1, otherwise its
//     start function, "main.worker (g12)", unless tracy.SetThreadName named
//     it). Its starting to run on P n is a context switch in on CPU n; its
//     stopping is a context switch out whose reason is the tracer's block
//     reason (chan receive, select, sync, sleep, network, preempted,
//     runtime.Gosched, GC assist wait, syscall, exited, ...; the codes are
//     those of package internal/goreason) and whose state is runnable,
//     waiting, syscall or exited. Waiting to runnable is a wake-up, on the
//     waker's P. The Ps are the trace's CPUs (CpuTopology: one core each).
//   - The "GC" lane holds a "GC cycle" zone per cycle, from its sweep
//     termination stop-the-world to the end of its mark termination one,
//     with the two "stop-the-world (...)" pauses and the "GC mark" phase in
//     it; other stop-the-world pauses (ReadMemStats, GOMAXPROCS, ...) are
//     zones of their own on the lane.
//   - runtime/trace regions, and "GC mark assist" zones, are zones on the
//     goroutine's own "· trace" lane (thread id g|0x80000000: the server
//     must receive a thread's zones in order, and the goroutine's own tracy
//     zones were sent a second earlier). Tasks are zones on "tasks" lanes,
//     one lane per concurrently open task. runtime/trace.Log is a message
//     "category: message" on the "· trace" lane.
//   - With WithCPUSamples, each CPU profile sample is a Tracy call-stack
//     sample of its goroutine, resolved by the program like any tracy call
//     stack, so sampling statistics and flame graphs work.
//   - Plots from runtime/metrics every WithMetricsPeriod (100 ms): "Go heap
//     in use" and "Go heap goal" (bytes), "Go goroutines", "Go GC CPU"
//     (percent of the program's CPU time spent in GC during the period, as
//     the runtime estimates it at each GC) and "Go sched latency p99" (the
//     99th percentile of the time goroutines waited runnable during the
//     period, ns).
//
// Dropped: P and M (thread) transitions other than what goroutine
// transitions imply, incremental sweep, task nesting, the stacks of
// scheduling events, labels, experimental events, region ends whose begin
// came before Start, and the trace's own metric events (the plots above
// replace them). Syscalls are shown as time off the P (the goroutine runs
// in the kernel but holds no P).
//
// # Overhead
//
// The cost is per execution-trace event, almost all of them scheduling
// events: the runtime's tracer writes it, golang.org/x/exp/trace parses
// it, the translation and the tracy client's encoding follow, and a
// capture on the same machine decodes it again. Measured 2026-12-02 on a
// loaded 2-core VM (BenchmarkStages*, BenchmarkPipeline; medians of
// interleaved rounds, process CPU time): a CPU-bound benchmark costs
// -1 to +4 % more CPU with every feature on (the tracer and the 100 Hz
// profiler alone up to 2 %); a goroutine-heavy one (240 blocks and
// wake-ups per millisecond of work) 23 to 24 % with a capture in the same
// process and 14 to 20 % without, of which the runtime's own tracer and
// profiler are 3 to 8 %: about 0.4 µs of CPU per event in the program
// (parse 0.15, translation 0.1, client 0.14) and as much again in a local
// capture. Start and Stop cost 2.5 to 6 ms of CPU once. Programs whose
// goroutines block far less often than that pay proportionally less;
// WithoutExecutionTrace keeps only the plots, at no measurable cost.
//
// Offline, `gotracy import TRACE.out -o OUT.tracy` applies the same mapping
// to a trace file (go test -trace, runtime/trace.Start, a flight-recorder
// snapshot); there regions and logs go on the goroutine's own thread.
package goruntime

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	rtrace "runtime/trace"
	"sync"
	"time"

	"golang.org/x/exp/trace"

	"github.com/gotracy/gotracy/internal/gotrace"
	"github.com/gotracy/gotracy/tracy"
)

// Errors of Start.
var (
	ErrNoTracy  = errors.New("goruntime: the tracy client is not running (call tracy.Start first)")
	ErrRunning  = errors.New("goruntime: already started")
	ErrTracer   = errors.New("goruntime: the execution tracer is in use by someone else")
	ErrProfiler = errors.New("goruntime: the CPU profiler is in use by someone else")
)

type config struct {
	cpuHz   int
	metrics time.Duration
	trace   bool
	// stage cuts the live path short, for the overhead decomposition
	// (benchmarks only): 1 parses and drops, 2 also translates into a
	// sink that drops, 0 does everything.
	stage int
}

// Option configures Start.
type Option func(*config)

// WithCPUSamples turns on the CPU profiler at hz samples a second (100 is
// the runtime's usual rate; 0 leaves it off, the default) and sends its
// samples as Tracy call-stack samples.
func WithCPUSamples(hz int) Option { return func(c *config) { c.cpuHz = hz } }

// WithMetricsPeriod sets how often the runtime/metrics plots are sampled
// (100 ms by default; 0 or less turns them off).
func WithMetricsPeriod(d time.Duration) Option { return func(c *config) { c.metrics = d } }

// WithoutExecutionTrace keeps the execution tracer off: only the plots (and
// nothing else) are sent.
func WithoutExecutionTrace() Option { return func(c *config) { c.trace = false } }

var state struct {
	mu      sync.Mutex
	running bool
	cfg     config
	pw      *io.PipeWriter
	done    chan struct{} // the reader finished
	stopM   chan struct{}
	mDone   chan struct{}
	err     error
	stats   Stats
}

// Stats counts what the live path translated.
type Stats struct {
	Events, ContextSwitches, Samples, Zones int
}

// ReadStats returns the counts of the last (or current, once stopped) run.
func ReadStats() Stats {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.stats
}

// Start begins streaming the runtime's events into the running tracy
// session.
func Start(opts ...Option) error {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.running {
		return ErrRunning
	}
	if tracy.Port() == 0 {
		return ErrNoTracy
	}
	cfg := config{metrics: 100 * time.Millisecond, trace: true}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cpuHz > 0 {
		if cfg.cpuHz != 100 {
			runtime.SetCPUProfileRate(cfg.cpuHz)
		}
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			return fmt.Errorf("%w: %v", ErrProfiler, err)
		}
	}
	state.cfg, state.err, state.stats = cfg, nil, Stats{}
	state.pw, state.done, state.stopM, state.mDone = nil, nil, nil, nil // nothing of an earlier run
	if cfg.trace {
		tracy.SetRuntimeCPUs(runtime.GOMAXPROCS(0))
		pr, pw := io.Pipe()
		if err := rtrace.Start(pw); err != nil {
			if cfg.cpuHz > 0 {
				pprof.StopCPUProfile()
			}
			return fmt.Errorf("%w: %v", ErrTracer, err)
		}
		state.pw = pw
		state.done = make(chan struct{})
		go read(pr, state.done, cfg.stage)
	}
	if cfg.metrics > 0 {
		state.stopM, state.mDone = make(chan struct{}), make(chan struct{})
		go metricsLoop(cfg.metrics, state.stopM, state.mDone)
	}
	state.running = true
	return nil
}

// Stop ends the execution trace, sends what it still held, and returns the
// error that ended the stream early, if any. Call it before tracy.Stop.
func Stop() error {
	state.mu.Lock()
	if !state.running {
		state.mu.Unlock()
		return nil
	}
	state.running = false
	cfg := state.cfg
	pw, done, stopM, mDone := state.pw, state.done, state.stopM, state.mDone
	state.mu.Unlock()
	if cfg.trace {
		rtrace.Stop() // flushes the rest into the pipe
		pw.Close()
		<-done
	}
	if cfg.cpuHz > 0 {
		pprof.StopCPUProfile()
	}
	if stopM != nil {
		close(stopM)
		<-mDone
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.err
}

// read parses the stream and sends it, until the pipe closes.
func read(pr io.Reader, done chan struct{}, stage int) {
	defer close(done)
	s := &liveSink{}
	var sink gotrace.Sink = s
	if stage == 2 {
		sink = dropSink{}
	}
	x := gotrace.New(sink, gotrace.Options{RegionLanes: true, NoMetrics: true, NoGoroutineCount: true})
	finish := func(err error) {
		x.Finish(x.Last())
		s.b.Flush()
		state.mu.Lock()
		state.stats = Stats{Events: x.Events, ContextSwitches: x.Switches, Samples: x.Samples, Zones: x.Zones}
		if err != nil && state.err == nil {
			state.err = fmt.Errorf("goruntime: reading the execution trace: %w", err)
		}
		state.mu.Unlock()
		// Drain, so the tracer never blocks on a reader that stopped.
		io.Copy(io.Discard, pr)
	}
	// The runtime writes the trace in chunks of tens of kilobytes; a
	// pipe read of 4 KiB at a time (the parser's own buffer) would make
	// each chunk a dozen hand-offs between the writer and this goroutine,
	// each traced in turn.
	rd, err := trace.NewReader(bufio.NewReaderSize(pr, 64<<10))
	if err != nil {
		finish(err)
		return
	}
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			finish(nil)
			return
		}
		if err != nil {
			finish(err)
			return
		}
		if ev.Kind() == trace.EventSync {
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				s.off = int64(cs.Mono) - int64(cs.Trace)
			}
			s.b.Flush()
		}
		if stage == 1 {
			continue
		}
		x.Event(&ev)
		if s.b.Len() >= 4096 {
			s.b.Flush()
		}
	}
}

// maxNames bounds the goroutine names kept for the viewer (goroutine churn
// must not grow memory for good); later goroutines keep "goroutine N".
const maxNames = 1 << 16

type liveSink struct {
	b     tracy.RuntimeBatch
	off   int64 // trace time -> runtime nanotime
	names int
	pcs   []uintptr
}

func (s *liveSink) ThreadName(tid uint32, name string) {
	if s.names >= maxNames {
		return
	}
	s.names++
	tracy.SetLaneName(tid, name)
}

// GoroutineName keeps the start function for the client to name the
// goroutine with if a server asks ("main" and "goroutine N" need nothing).
func (s *liveSink) GoroutineName(tid uint32, fn string) {
	if fn != "" && tid != 1 {
		tracy.SetGoroutineName(tid, fn)
	}
}

func (s *liveSink) ContextSwitch(t int64, old, nw uint32, cpu uint8, reason, st uint8) {
	s.b.ContextSwitch(t+s.off, old, nw, cpu, reason, st)
}

func (s *liveSink) Wakeup(t int64, tid uint32, cpu uint8) { s.b.Wakeup(t+s.off, tid, cpu) }

func (s *liveSink) ZoneBegin(tid uint32, t int64, name string) { s.b.ZoneBegin(tid, t+s.off, name) }

func (s *liveSink) ZoneEnd(tid uint32, t int64) { s.b.ZoneEnd(tid, t+s.off) }

func (s *liveSink) Message(tid uint32, t int64, text string) { s.b.Message(tid, t+s.off, text) }

func (s *liveSink) Sample(tid uint32, t int64, frames []gotrace.Frame) {
	s.pcs = s.pcs[:0]
	for i, f := range frames {
		if i > 0 && f.PC == frames[i-1].PC {
			continue // an inlined frame: the client expands it again
		}
		s.pcs = append(s.pcs, uintptr(f.PC))
	}
	s.b.Sample(tid, t+s.off, s.pcs)
}

func (s *liveSink) Plot(name string, t int64, v float64) {}

// dropSink drops everything (the overhead decomposition's stage 2).
type dropSink struct{}

func (dropSink) ThreadName(uint32, string)                                {}
func (dropSink) ContextSwitch(int64, uint32, uint32, uint8, uint8, uint8) {}
func (dropSink) Wakeup(int64, uint32, uint8)                              {}
func (dropSink) ZoneBegin(uint32, int64, string)                          {}
func (dropSink) ZoneEnd(uint32, int64)                                    {}
func (dropSink) Message(uint32, int64, string)                            {}
func (dropSink) Sample(uint32, int64, []gotrace.Frame)                    {}
func (dropSink) Plot(string, int64, float64)                              {}
