package goruntime_test

import (
	"io"
	"runtime/pprof"
	rtrace "runtime/trace"
	"slices"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/goruntime"
)

// benchStages decomposes goruntime's overhead on work, in rounds
// interleaved in one run (the order reversed every other round): the
// program alone; the runtime's own tracer and CPU profiler writing into
// io.Discard (the floor for every feature on); + parsing the stream; +
// translating it (into a sink that drops); + sending into the tracy
// client, whose sender encodes and, unless GORUNTIME_BENCH_NOCAPTURE=1,
// an in-process capture consumes. Each stage reports its CPU time (the
// process's, to the end of its flush) above the program alone, in
// percent, and its median round.
func benchStages(b *testing.B, work func(), reps int) {
	startBenchSession(b)
	defer tracy.Stop()
	type stage struct {
		name        string
		start, stop func()
		cpu, wall   []time.Duration
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	gr := func(opts ...goruntime.Option) (func(), func()) {
		return func() { must(goruntime.Start(append(opts, goruntime.WithCPUSamples(100))...)) },
			func() { must(goruntime.Stop()) }
	}
	st := []*stage{
		{name: "plain", start: func() {}, stop: func() {}},
		{name: "tracer", start: func() {
			must(pprof.StartCPUProfile(io.Discard))
			must(rtrace.Start(io.Discard))
		}, stop: func() { rtrace.Stop(); pprof.StopCPUProfile() }},
		{name: "parse"}, {name: "translate"}, {name: "send"},
	}
	st[2].start, st[2].stop = gr(goruntime.WithStage(1))
	st[3].start, st[3].stop = gr(goruntime.WithStage(2))
	st[4].start, st[4].stop = gr()
	for i := 0; i < b.N; i++ {
		order := slices.Clone(st)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			s.start()
			c0, t0 := cpuTime(), time.Now()
			for r := 0; r < reps; r++ {
				work()
			}
			w := time.Since(t0)
			s.stop()
			settle() // the sender and capture caught up
			s.cpu = append(s.cpu, cpuTime()-c0)
			s.wall = append(s.wall, w)
		}
	}
	// Each round's ratio to the same round's program alone, so load that
	// drifts over the run cancels; the median over the rounds, and the
	// range in the log (-v).
	for _, s := range st[1:] {
		for _, m := range []struct {
			unit      string
			of, plain []time.Duration
		}{{"cpu", s.cpu, st[0].cpu}, {"wall", s.wall, st[0].wall}} {
			r := make([]float64, len(m.of))
			for k := range r {
				r[k] = 100 * (float64(m.of[k]) - float64(m.plain[k])) / float64(m.plain[k])
			}
			slices.Sort(r)
			b.ReportMetric(r[len(r)/2], s.name+"-"+m.unit+"-%")
			b.Logf("%s %s: median %+.1f %%, range %+.1f .. %+.1f %% (%d rounds)", s.name, m.unit, r[len(r)/2], r[0], r[len(r)-1], len(r))
		}
	}
	p := slices.Clone(st[0].cpu)
	slices.Sort(p)
	b.ReportMetric(float64(p[len(p)/2])/float64(reps)/1e6, "plain-cpu-ms/work")
	// What Start and Stop cost with every feature on and no work between
	// them (the tracer's start and end, the parser's last generation, the
	// profiler's profile, the sessions' catching up): once per program,
	// but a large part of a short round.
	var fixed []time.Duration
	for range 5 {
		c0 := cpuTime()
		st[4].start()
		st[4].stop()
		settle()
		fixed = append(fixed, cpuTime()-c0)
	}
	slices.Sort(fixed)
	b.ReportMetric(float64(fixed[len(fixed)/2])/1e6, "startstop-cpu-ms")
}

func BenchmarkStagesGoroutines(b *testing.B) { benchStages(b, goruntime.GoroutineHeavy, 20) }
func BenchmarkStagesCPU(b *testing.B)        { benchStages(b, goruntime.CPUBound, 200) }
