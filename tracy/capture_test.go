//go:build !notracy

package tracy_test

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracy"
)

// selfCapture starts the client on a free loopback port and the gotracy
// capture server on it, in this process. finish stops the client (which
// delivers everything) and returns the capture's trace.
func selfCapture(tb testing.TB) (finish func() *model.Trace) {
	tb.Helper()
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false)); err != nil {
		tb.Fatal(err)
	}
	type result struct {
		res *capture.Result
		err error
	}
	ch := make(chan result, 1)
	go func() {
		res, err := capture.Connect(context.Background(), capture.JoinAddr("127.0.0.1", tracy.Port()))
		ch <- result{res, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tracy.WaitConnected(ctx); err != nil {
		tracy.Stop()
		tb.Fatal(err)
	}
	return func() *model.Trace {
		tb.Helper()
		if err := tracy.Stop(); err != nil {
			tb.Fatalf("Stop: %v", err)
		}
		r := <-ch
		if r.err != nil {
			tb.Fatalf("capture: %v", r.err)
		}
		return r.res.Trace
	}
}

// zoneLines renders each thread's zones as "thread: indent name [text]"
// lines, the form the test compares.
func zoneLines(tr *model.Trace) map[string][]string {
	out := map[string][]string{}
	for i := range tr.Threads {
		th := &tr.Threads[i]
		name := tr.ThreadName(th.ID)
		model.Walk(&th.Zones, func(z, depth int) bool {
			s := strings.Repeat(" ", depth) + tr.ZoneName(th.Zones.At(z))
			if x := th.Zones.At(z).Extra(); x != 0 {
				if txt := tr.Str(tr.ZoneExtras[x].Text); txt != "" {
					s += " [" + strings.ReplaceAll(txt, "\n", "|") + "]"
				}
			}
			out[name] = append(out[name], s)
			return true
		})
	}
	return out
}

var (
	locFrame = tracy.NewLoc("frame")
	locWork  = tracy.NewLoc("work")
	locLeaf  = tracy.NewColorLoc("leaf", 0x00FF00)
	locHeld  = tracy.NewLoc("held")
)

// TestCaptureStoresWhatWasEmitted: what the client emits is exactly what the
// capture package stores: zones per goroutine with their nesting and texts,
// frames, images, plots, messages, allocations and lock events.
// captureRuns counts TestCaptureStoresWhatWasEmitted's runs in this process.
var captureRuns int

func TestCaptureStoresWhatWasEmitted(t *testing.T) {
	finish := selfCapture(t)
	const frames, workers = 4, 3
	// A name of this run's own: locks are announced to every later
	// session too (deferred, as in Tracy's client), so a rerun in one
	// process (-count) also sees the earlier run's lock, without events.
	captureRuns++
	lockName := fmt.Sprintf("work lock %d", captureRuns)
	mu := tracy.NewMutex(lockName)
	want := map[string][]string{}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		name := fmt.Sprintf("worker-%d", w)
		for f := 0; f < frames; f++ {
			want[name] = append(want[name], fmt.Sprintf("work [w%d f%d]", w, f), " leaf", "  held", fmt.Sprintf(" dyn-%d", f%2))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tracy.SetThreadName(name)
			for f := 0; f < frames; f++ {
				z := tracy.Begin(locWork)
				z.Text(fmt.Sprintf("w%d f%d", w, f))
				l := tracy.Begin(locLeaf)
				mu.Lock()
				tracy.Begin(locHeld).End()
				mu.Unlock()
				l.End()
				tracy.BeginNamed(fmt.Sprintf("dyn-%d", f%2)).End()
				buf := make([]byte, 100+w)
				p := uintptr(0x100000 + w*0x1000 + f)
				tracy.AllocNamed(p, uint64(len(buf)), "pool")
				tracy.FreeNamed(p, "pool")
				tracy.PlotInt(name, int64(f))
				tracy.Message(fmt.Sprintf("%s frame %d", name, f))
				z.End()
			}
		}()
	}
	wg.Wait()
	img := make([]byte, 64*32*4)
	for f := 0; f < frames; f++ {
		z := tracy.Begin(locFrame)
		tracy.Plot("frame", float64(f))
		if err := tracy.FrameImage(img, 64, 32, 0, false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // let the compressor attach it to this frame
		z.End()
		tracy.FrameMark()
	}
	tr := finish()

	got := zoneLines(tr)
	for name, w := range want {
		if g := strings.Join(got[name], "\n"); g != strings.Join(w, "\n") {
			t.Errorf("thread %s zones:\n%s\nwant:\n%s", name, g, strings.Join(w, "\n"))
		}
	}
	if n := tr.ZoneCount(); n != workers*frames*4+frames {
		t.Errorf("zones %d, want %d", n, workers*frames*4+frames)
	}
	// Frames: the capture adds two (start, init end), as for the C++ client.
	if n := len(tr.FrameSets[0].Frames); n != frames+2 {
		t.Errorf("frames %d, want %d", n, frames+2)
	}
	if n := len(tr.FrameImages); n != frames {
		t.Errorf("frame images %d, want %d", n, frames)
	}
	plots := map[string]int{}
	for _, p := range tr.Plots {
		name, _ := tr.PtrString(p.Name)
		plots[name] = len(p.Points)
	}
	for w := 0; w < workers; w++ {
		if plots[fmt.Sprintf("worker-%d", w)] != frames {
			t.Errorf("plot points %v", plots)
		}
	}
	if plots["frame"] != frames {
		t.Errorf("plot points %v", plots)
	}
	var msgs []string
	for _, m := range tr.Messages {
		if m.Source == model.MsgSourceUser {
			msgs = append(msgs, tr.RefString(m.Text))
		}
	}
	sort.Strings(msgs)
	if len(msgs) != workers*frames || msgs[0] != "worker-0 frame 0" {
		t.Errorf("messages %q", msgs)
	}
	pools := map[string]int{}
	for _, p := range tr.MemPools {
		name, _ := tr.PtrString(p.Name)
		freed := 0
		for _, e := range p.Events {
			if e.TimeFree >= 0 {
				freed++
			}
		}
		if freed != len(p.Events) {
			t.Errorf("pool %q: %d of %d freed", name, freed, len(p.Events))
		}
		pools[name] = len(p.Events)
	}
	if pools["pool"] != workers*frames {
		t.Errorf("memory pools %v", pools)
	}
	found := false
	for _, l := range tr.Locks {
		if tr.Str(l.CustomName) == lockName {
			found = true
			// wait, obtain, release per acquisition
			if len(l.Events) != 3*workers*frames {
				t.Errorf("lock events %d, want %d", len(l.Events), 3*workers*frames)
			}
		}
	}
	if !found {
		t.Errorf("lock not in capture")
	}
}

// Package-level locations: the site is the first Begin's, not the var's.
var (
	pkgLoc      = tracy.NewLoc("")
	pkgNamedLoc = tracy.NewColorLoc("named", 0x102030)
)

// zoneSite returns function, file and line of the first zone called name.
func zoneSite(tr *model.Trace, name string) (fn, file string, line int, ok bool) {
	for i := range tr.Threads {
		th := &tr.Threads[i]
		model.Walk(&th.Zones, func(z, depth int) bool {
			zz := th.Zones.At(z)
			if ok || tr.ZoneName(zz) != name {
				return !ok
			}
			sl, _ := tr.SrcLoc(zz.SrcLoc)
			fn, file, line, ok = tr.RefString(sl.Function), tr.RefString(sl.File), int(sl.Line), true
			return false
		})
	}
	return
}

// TestPackageLocSite: a Loc made at package level records the function,
// file and line of the Begin call in the capture, and so do BeginHere and
// named zones; a Loc used again at another site keeps its first site.
func TestPackageLocSite(t *testing.T) {
	finish := selfCapture(t)
	_, thisFile, lineA, _ := runtime.Caller(0)
	tracy.Begin(pkgLoc).End()      // lineA + 1
	tracy.Begin(pkgNamedLoc).End() // lineA + 2
	tracy.BeginHere().End()        // lineA + 3
	tracy.BeginNamed("dyn-site").End()
	tracy.Begin(pkgLoc).End() // a second site: still lineA + 1
	tr := finish()
	const fn = "github.com/gotracy/gotracy/tracy_test.TestPackageLocSite"
	for _, c := range []struct {
		zone string
		line int
	}{{fn, lineA + 1}, {"named", lineA + 2}, {"dyn-site", lineA + 4}} {
		gotFn, gotFile, gotLine, ok := zoneSite(tr, c.zone)
		if !ok {
			t.Errorf("zone %q not in the capture", c.zone)
			continue
		}
		if gotFn != fn || gotFile != thisFile || gotLine != c.line {
			t.Errorf("zone %q at %s %s:%d, want %s %s:%d", c.zone, gotFn, gotFile, gotLine, fn, thisFile, c.line)
		}
	}
	n := 0
	for i := range tr.Threads {
		th := &tr.Threads[i]
		model.Walk(&th.Zones, func(z, depth int) bool {
			sl, _ := tr.SrcLoc(th.Zones.At(z).SrcLoc)
			if tr.RefString(sl.Function) == fn && int(sl.Line) == lineA+3 {
				n++
			}
			return true
		})
	}
	if n != 1 {
		t.Errorf("%d BeginHere zones at line %d, want 1", n, lineA+3)
	}
	if pkgLoc.Line() != lineA+1 || pkgLoc.Function() != fn {
		t.Errorf("pkgLoc reports %s:%d", pkgLoc.Function(), pkgLoc.Line())
	}
}

var locFiberStep = tracy.NewLoc("step")

// TestFibersAndHostInfo: work for one fiber done by two goroutines in turn
// is one fiber lane in the capture, named after the fiber; the welcome
// carries Tracy's host lines and a measured timer resolution; on Linux the
// capture has the CPU usage plot.
func TestFibersAndHostInfo(t *testing.T) {
	finish := selfCapture(t)
	start := time.Now()
	for i := 0; i < 2; i++ {
		done := make(chan struct{})
		go func() {
			defer close(done)
			tracy.FiberEnter("job 7")
			tracy.Begin(locFiberStep).End()
			tracy.FiberLeave()
			tracy.FiberLeave() // a second leave does nothing
		}()
		<-done
	}
	tracy.Begin(locFiberStep).End() // outside the fiber: the goroutine's own
	if d := 350*time.Millisecond - time.Since(start); d > 0 {
		time.Sleep(d) // a few CPU usage reports
	}
	tr := finish()
	var fiberZones, otherZones int
	var fiberName string
	for i := range tr.Threads {
		th := &tr.Threads[i]
		n := 0
		model.Walk(&th.Zones, func(z, depth int) bool {
			if tr.ZoneName(th.Zones.At(z)) == "step" {
				n++
			}
			return true
		})
		if th.IsFiber {
			fiberZones += n
			fiberName = tr.ThreadName(th.ID)
		} else {
			otherZones += n
		}
	}
	if fiberZones != 2 || otherZones != 1 || fiberName != "job 7" {
		t.Errorf("fiber %q has %d step zones and the goroutines %d; want \"job 7\" with 2, and 1", fiberName, fiberZones, otherZones)
	}
	hi := tr.Metadata.HostInfo
	prev := -1
	for _, key := range []string{"OS: ", "Compiler: Go ", "User: ", "Arch: ", "CPU: ", "CPU cores: ", "RAM: "} {
		i := strings.Index(hi, "\n"+key)
		if strings.HasPrefix(hi, key) {
			i = 0
		}
		if i < 0 || i < prev {
			t.Errorf("host info lacks %q in Tracy's order:\n%s", key, hi)
		}
		prev = i
	}
	wantArch := map[string]string{"amd64": "Arch: x64\n", "arm64": "Arch: ARM64\n"}[runtime.GOARCH]
	if wantArch != "" && !strings.Contains(hi, wantArch) {
		t.Errorf("host info %q lacks %q", hi, wantArch)
	}
	// Tracy's measure, the smallest positive step between two reads, can be
	// one tick (0.4 ns, stored as 0) where the counter is virtualised.
	if tr.Metadata.Resolution < 0 || tr.Metadata.Resolution > 1000 {
		t.Errorf("timer resolution %d ns, want a measured 0..1000", tr.Metadata.Resolution)
	}
	if runtime.GOOS == "linux" {
		points := -1
		for _, p := range tr.Plots {
			if p.Type == model.PlotSysTime {
				points = len(p.Points)
				for _, pt := range p.Points {
					if pt.Value < 0 || pt.Value > 100 {
						t.Errorf("CPU usage %v%%", pt.Value)
					}
				}
			}
		}
		if points < 1 {
			t.Errorf("no CPU usage plot points (%d) after 350 ms", points)
		}
	}
}

// TestIdleClientSendsKeepAlives: an idle program stays connected to a
// capture that ends silent peers, because the client sends Tracy's
// KeepAlive when it has nothing else to send and says so in its HostInfo.
func TestIdleClientSendsKeepAlives(t *testing.T) {
	defer tracy.SetKeepAliveEvery(100 * time.Millisecond)()
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res *capture.Result
		err error
	}
	ch := make(chan result, 1)
	go func() {
		res, err := capture.Connect(context.Background(), capture.JoinAddr("127.0.0.1", tracy.Port()), capture.WithIdleTimeout(time.Second))
		ch <- result{res, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tracy.WaitConnected(ctx); err != nil {
		tracy.Stop()
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // three idle timeouts' worth of silence
	z := tracy.Begin(locWork)
	z.End()
	if err := tracy.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatalf("capture of an idle client: %v", r.err)
	}
	if !strings.Contains(r.res.Trace.Metadata.HostInfo, capture.ExtKeepAliveHostInfo) {
		t.Fatalf("HostInfo does not advertise keepalives: %q", r.res.Trace.Metadata.HostInfo)
	}
	if n := r.res.Trace.ZoneCount(); n == 0 {
		t.Fatal("the zone after the idle time was not captured")
	}
}
