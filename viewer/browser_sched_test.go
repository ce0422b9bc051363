package viewer_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotracy/gotracy/formats/gotrace"
	"github.com/gotracy/gotracy/internal/gotrace/gotracetest"
	"github.com/gotracy/gotracy/model"
)

// schedTrace records the Go-runtime workload with the execution tracer and
// the CPU profiler, and imports it: goroutines with context switches, the
// GC lane, CPUs and samples.
func schedTrace(t *testing.T) *model.Trace {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(&buf); err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	gotracetest.Run(300*time.Millisecond, nil)
	trace.Stop()
	pprof.StopCPUProfile()
	tr, err := gotrace.Import(&buf, gotrace.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func stackHas(tr *model.Trace, cs uint32, fn string) bool {
	for _, f := range tr.CallStack(cs) {
		for _, in := range tr.Frames[f].Frames {
			if strings.HasSuffix(tr.Str(in.Name), fn) {
				return true
			}
		}
	}
	return false
}

// waitSched waits until the scheduling answers for the drawn lanes have
// arrived and been drawn.
func waitSched(b *browser) {
	b.tb.Helper()
	b.waitFor("the scheduling answers", `(() => { const t = __gotracy.timeline; return !!(t.schedIdle && t.schedIdle()) })()`)
	b.eval(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
}

// longestRun is the longest running span of a thread whose name starts
// with prefix, found in the model (not through the viewer).
func longestRun(tr *model.Trace, prefix string) (tid uint64, run model.CtxSwitch) {
	for _, cs := range tr.CtxSwitches {
		name := tr.ThreadName(cs.Thread)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, e := range cs.Events {
			if e.Start >= 0 && e.End > e.Start && e.End-e.Start > run.End-run.Start {
				tid, run = cs.Thread, e
			}
		}
	}
	return tid, run
}

func schedLaneKey(tr *model.Trace, tid uint64) string {
	for i := range tr.Threads {
		if tr.Threads[i].ID == tid {
			return fmt.Sprintf("c%d", i)
		}
	}
	return fmt.Sprintf("s%d", tid)
}

func (l *layout) lane(tb testing.TB, key string) (y float64) {
	tb.Helper()
	for _, ln := range l.Lanes {
		if ln.Key == key {
			return ln.Y
		}
	}
	tb.Fatalf("the timeline has no lane %q", key)
	return 0
}

// TestBrowserSched: the page draws context-switch bands on goroutine
// lanes, a CPUs lane, the GC lane and sample dots, and says why a
// goroutine waited; with the trace's host line removed (codes that are not
// Go's, as in an OS capture) the same bands show raw codes.
func TestBrowserSched(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip(noChromium)
	}
	tr := schedTrace(t)
	tid, run := longestRun(tr, gotracetest.WorkerFn)
	if run.End <= run.Start {
		t.Fatal("the workload has no worker run")
	}
	b := newBrowser(t, tr, "sched", 1400, 900, 1)
	b.open("#timeline")
	b.waitDrawn()
	waitSched(b)
	b.shot("overview")
	l := b.layout()
	l.lane(t, "cpus")
	gcKey := ""
	for i := range tr.Threads {
		if tr.ThreadName(tr.Threads[i].ID) == "GC" {
			gcKey = fmt.Sprintf("c%d", i)
		}
	}
	if gcKey == "" {
		t.Fatal("the import has no GC thread")
	}
	l.lane(t, gcKey)

	// Zoom to the worker's longest run: its band is solid green in the
	// middle, and the tooltip says it ran on its CPU.
	key := schedLaneKey(tr, tid)
	b.eval(fmt.Sprintf(`__gotracy.timeline.zoomTo(%d, %d, 0.3); __gotracy.timeline.scrollToLane(%q, 0)`, run.Start, run.End, key), nil)
	b.waitDrawn()
	waitSched(b)
	l = b.layout()
	x := (float64(run.Start+run.End)/2 - l.T0) / (l.T1 - l.T0) * l.Width
	y := l.lane(t, key) + l.HeadH + 3
	if px := b.pixel(x, y); px != rgbOf(0x4fb06a) && px != rgbOf(0x3d8a53) {
		b.shot("run-miss")
		t.Errorf("band of %s at (%.0f, %.0f) is %v, want the running green", key, x, y, px)
	}
	b.move(l.Left+x, l.Top+y)
	var tip string
	b.waitFor("the run's tooltip", `!__gotracy.timeline.tip.hidden && __gotracy.timeline.tip.textContent.includes("running")`)
	b.eval(`__gotracy.timeline.tip.textContent`, &tip)
	if !strings.Contains(tip, fmt.Sprintf("on CPU %d", run.CPU)) {
		t.Errorf("tooltip %q does not name CPU %d", tip, run.CPU)
	}
	// The CPU's row shows something running at the same time.
	var cpus []int
	for c := range tr.CPUData {
		if len(tr.CPUData[c]) > 0 {
			cpus = append(cpus, c)
		}
	}
	row := slices.Index(cpus, int(run.CPU))
	cy := l.lane(t, "cpus") + l.HeadH + float64(row)*9 + 4.5
	if px := b.pixel(x, cy); isBackground(px) || px == [3]int{0x1a, 0x1c, 0x21} {
		t.Errorf("CPU %d row at (%.0f, %.0f) is background %v while %s runs there", run.CPU, x, cy, px, key)
	}
	// Hover the wait after the run: the reason is named.
	b.shot("run")

	// Sample dots: zoom around a sample of a thread that has runs.
	var st int64
	var sk string
	for i := range tr.Threads {
		th := &tr.Threads[i]
		if !strings.HasPrefix(tr.ThreadName(th.ID), gotracetest.WorkerFn) {
			continue
		}
		// A sample whose stack (in the model) passes through Spin.
		for _, smp := range th.Samples {
			if stackHas(tr, smp.CallStack, gotracetest.SpinFunc) {
				st, sk = smp.Time, fmt.Sprintf("c%d", i)
				break
			}
		}
		if sk != "" {
			break
		}
	}
	if sk == "" {
		t.Fatal("no worker has a sample in Spin")
	}
	b.eval(fmt.Sprintf(`__gotracy.timeline.zoomTo(%d, %d, 0); __gotracy.timeline.scrollToLane(%q, 0)`, st-200000, st+200000, sk), nil)
	b.waitDrawn()
	waitSched(b)
	l = b.layout()
	sx := (float64(st) - l.T0) / (l.T1 - l.T0) * l.Width
	sy := l.lane(t, sk) + l.HeadH + 7 + 3.5
	if px := b.pixel(sx, sy); px[0] < 0xc0 || px[1] < 0xc0 {
		b.shot("sample-miss")
		t.Errorf("sample dot at (%.0f, %.0f) is %v, want the pale yellow dot", sx, sy, px)
	}
	b.move(l.Left+sx, l.Top+sy)
	b.waitFor("the sample's tooltip", `!__gotracy.timeline.tip.hidden && __gotracy.timeline.tip.textContent.includes("sample")`)
	// Its call stack resolves to the workload's functions (the sample was
	// taken in a worker, which runs only the workload's code and the
	// runtime's).
	b.waitFor("the sample's call stack", `__gotracy.timeline.tip.innerHTML.split("<br>").slice(2).join(" ").includes("gotracetest.Spin")`)
	b.shot("sample")
}

// TestBrowserSchedWaitReason hovers the gap after a worker's run that
// ended on the channel and expects the reason, named for a Go trace and as
// a raw code for one whose codes are an OS's.
func TestBrowserSchedWaitReason(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip(noChromium)
	}
	tr := schedTrace(t)
	// A worker run followed by a wait of at least 200 µs on a channel.
	var tid uint64
	var gap [2]int64
	for _, cs := range tr.CtxSwitches {
		if !strings.HasPrefix(tr.ThreadName(cs.Thread), gotracetest.WorkerFn) {
			continue
		}
		for i := 0; i+1 < len(cs.Events); i++ {
			e, n := cs.Events[i], cs.Events[i+1]
			if e.End > 0 && n.Start-e.End > 200000 && e.Reason == 8 { // goreason "chan receive"
				tid, gap = cs.Thread, [2]int64{e.End, n.Start}
				break
			}
		}
		if tid != 0 {
			break
		}
	}
	if tid == 0 {
		t.Fatal("no worker waited 200 µs on the channel")
	}
	for _, goCodes := range []bool{true, false} {
		if !goCodes {
			os := *tr // another trace, as a capture of an OS's switches would be
			os.Metadata.HostInfo = "OS: Linux\n"
			tr = &os
		}
		b := newBrowser(t, tr, fmt.Sprintf("sched-wait-%v", goCodes), 1200, 800, 1)
		b.open("#timeline")
		b.waitDrawn()
		waitSched(b)
		b.eval(fmt.Sprintf(`__gotracy.timeline.zoomTo(%d, %d, 0.2); __gotracy.timeline.scrollToLane(%q, 0)`, gap[0], gap[1], schedLaneKey(tr, tid)), nil)
		b.waitDrawn()
		waitSched(b)
		l := b.layout()
		x := (float64(gap[0]+gap[1])/2 - l.T0) / (l.T1 - l.T0) * l.Width
		y := l.lane(t, schedLaneKey(tr, tid)) + l.HeadH + 4
		b.move(l.Left+x, l.Top+y)
		want := "chan receive"
		if !goCodes {
			want = "reason 8"
		}
		b.waitFor("the wait's tooltip", fmt.Sprintf(`!__gotracy.timeline.tip.hidden && __gotracy.timeline.tip.textContent.includes(%q)`, want))
		b.shot("wait")
	}
}
