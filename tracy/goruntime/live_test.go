package goruntime_test

import (
	"errors"
	"path/filepath"

	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/gotrace/gotracetest"

	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/goruntime"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

// TestLiveWorkload captures the known workload in-process with every
// feature on and checks the saved trace: exact region counts, GC cycles,
// context switches for every worker, CPU samples resolving to the
// workload's functions, the GC lane, and the plots.
func TestLiveWorkload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.tracy")
	if err := tracyfile.Start(path, tracy.WithProgramName("goruntime-test")); err != nil {
		t.Fatal(err)
	}
	if err := goruntime.Start(goruntime.WithCPUSamples(100), goruntime.WithMetricsPeriod(10*time.Millisecond)); err != nil {
		tracy.Stop()
		t.Fatal(err)
	}
	if err := goruntime.Start(); !errors.Is(err, goruntime.ErrRunning) {
		t.Errorf("second Start: %v, want ErrRunning", err)
	}
	gotracetest.Run(400*time.Millisecond, nil)
	if err := goruntime.Stop(); err != nil {
		t.Error(err)
	}
	st := goruntime.ReadStats()
	if err := tracy.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stats %+v; %d context-switch threads, %d threads", st, len(tr.CtxSwitches), len(tr.Threads))
	gotracetest.Check(t, tr, true)
	gc := false
	for tid := range tr.ThreadNames {
		if tr.ThreadName(tid) == "GC" {
			gc = true
		}
	}
	if !gc {
		t.Error("no thread named GC")
	}
	plots := map[string]int{}
	for _, p := range tr.Plots {
		name, _ := tr.PtrString(p.Name)
		plots[name] = len(p.Points)
	}
	for _, name := range []string{goruntime.PlotHeap, goruntime.PlotHeapGoal, goruntime.PlotGoroutines, goruntime.PlotSchedLatency} {
		if plots[name] == 0 {
			t.Errorf("plot %q has no points (plots: %v)", name, plots)
		}
	}
	cpus := 0
	for _, p := range tr.Topology {
		for _, d := range p.Dies {
			cpus += len(d.Cores)
		}
	}
	if cpus == 0 {
		t.Error("no CPU topology")
	}
	// Each context-switch span lies within the capture.
	for _, cs := range tr.CtxSwitches {
		for _, e := range cs.Events {
			if e.End > tr.Metadata.LastTime || e.Start > tr.Metadata.LastTime {
				t.Fatalf("thread %d: span %d..%d beyond the trace's end %d", cs.Thread, e.Start, e.End, tr.Metadata.LastTime)
			}
		}
	}

}

func TestStartWithoutTracy(t *testing.T) {
	if err := goruntime.Start(); !errors.Is(err, goruntime.ErrNoTracy) {
		t.Fatalf("Start without tracy: %v, want ErrNoTracy", err)
	}
	if err := goruntime.Stop(); err != nil {
		t.Fatalf("Stop after a failed Start: %v", err)
	}
}

// TestRestart: Start and Stop twice in one tracy session, the second run
// still sends context switches, and Stop without Start does nothing.
func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "restart.tracy")
	if err := tracyfile.Start(path); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := goruntime.Start(goruntime.WithMetricsPeriod(0)); err != nil {
			tracy.Stop()
			t.Fatalf("run %d: %v", i, err)
		}
		gotracetest.Spin(20 * time.Millisecond)
		if err := goruntime.Stop(); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		if st := goruntime.ReadStats(); st.ContextSwitches == 0 {
			t.Errorf("run %d: no context switches (%+v)", i, st)
		}
		if err := goruntime.Stop(); err != nil {
			t.Errorf("a second Stop: %v", err)
		}
	}
	if err := tracy.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.CtxSwitches) == 0 {
		t.Error("the file has no context switches")
	}
}
