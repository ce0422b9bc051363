package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/tracy"
)

func init() {
	register(&command{
		name:     "demo",
		graceful: true,
		summary:  "run an instrumented Go program (zones, frames, images, plots, messages, memory, locks) for a Tracy viewer or capture",
		usage: "demo [-a ADDR] [-p PORT] [--frames N | --duration SECONDS] [--fps N] [--on-demand] [--heavy N] [--broadcast-port P] [-o FILE.tracy] [-f] [--json]\n" +
			"            [--view [--http ADDR] [--open=false]]",
		help: "--view captures the demo in-process and opens it live in the browser, as gotracy view -a\n" +
			"would (without --frames, --duration or --heavy it runs for 60 s at 60 frames per second);\n" +
			"the page stays up after the demo ends, until Ctrl-C. With -o the capture is also saved.\n" +
			"Ctrl-C while the demo runs stops it after the current frame and delivers what it recorded\n" +
			"(to the connected viewer or capture, and into -o, saved whole).",
		setup: setupDemo,
	})
}

// demoCapture captures this process over loopback into a .tracy file while
// the demo runs (demo -o). It is set by demo_capture.go, which ties the
// command to the capture package; a build without it reports that -o is
// unavailable. start is called once the client listens; the returned wait
// blocks until the capture has ended and the file is written.
// With view set the capture is also shown live (demo --view); hold then
// keeps the page up until the user stops the process.
var demoCapture func(ctx context.Context, e *env, addr string, port int, out string, force bool, view *demoView) (wait func() error, hold func(), err error)

// demoView is demo --view's viewer: where it listens, whether to open a
// browser.
type demoView struct {
	http string
	open bool
}

// demoReport is the one JSON line `demo --json` prints: what the demo
// emitted, counted as it emitted it (the keys of the issue, in its order).
type demoReport struct {
	ZonesTotal       int            `json:"zones_total"`
	Zones            map[string]int `json:"zones"`
	Frames           int            `json:"frames"`
	FrameImages      int            `json:"frame_images"`
	PlotPointsTotal  int            `json:"plot_points_total"`
	Messages         int            `json:"messages"`
	Allocs           int            `json:"allocs"`
	Frees            int            `json:"frees"`
	LockAcquisitions int            `json:"lock_acquisitions"`
	EmitSeconds      float64        `json:"emit_seconds"`
}

func setupDemo(fs *flag.FlagSet) func(*env, []string) error {
	addr := fs.String("a", "127.0.0.1", "`address` to listen on (loopback by default; 0.0.0.0 for every interface)")
	port := fs.Int("p", 0, "data `port` (default: 8086, or the next free one up to 8105)")
	frames := fs.Int("frames", 20, "number of `frames` to emit")
	heavy := fs.Int("heavy", 0, "instead of the frame workload, emit `N` tiny zones from one goroutine as fast as possible")
	out := fs.String("o", "", "capture the demo in-process over loopback and write this .tracy `file`")
	force := fs.Bool("f", false, "overwrite the -o file if it exists")
	asJSON := fs.Bool("json", false, "print one JSON line of what was emitted")
	duration := fs.Float64("duration", 0, "run the frame workload for `seconds` instead of --frames frames")
	fps := fs.Int("fps", 0, "at most `N` frames per second (0: a 2 ms pause between frames)")
	bport := fs.Int("broadcast-port", 0, "send the UDP announcement to this `port` (default 8086, where Tracy's viewer and gotracy daemon listen)")
	onDemand := fs.Bool("on-demand", false, "record only while a server is connected and accept any number of successive captures (TRACY_ON_DEMAND)")
	view := fs.Bool("view", false, "capture the demo in-process and view it live in the browser (the one command to see everything work)")
	httpAddr := fs.String("http", "", "with --view: serve the viewer on `host:port` (default 127.0.0.1 and a free port)")
	open := fs.Bool("open", true, "with --view: open the page in the default browser (--open=false: only print its address)")
	return func(e *env, args []string) error {
		if len(args) != 0 {
			return usagef("demo takes no positional arguments (got %q)", args[0])
		}
		if *frames < 0 || *heavy < 0 || *fps < 0 || !(*duration >= 0) {
			return usagef("--frames, --duration, --fps and --heavy must not be negative")
		}
		if *onDemand && (*out != "" || *view) {
			return usagef("--on-demand excludes -o and --view: they capture the one session in-process")
		}
		if !*view && *httpAddr != "" {
			return usagef("--http goes with --view")
		}
		inProcess := *out != "" || *view
		if *view {
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if !set["frames"] && !set["duration"] && !set["heavy"] {
				// A newcomer's live demo: long enough to look around.
				*duration = 60
				if !set["fps"] {
					*fps = 60
				}
			}
		}
		if *port < 0 || *port > 65535 {
			return usagef("-p %d is not a TCP port", *port)
		}
		if *bport < 0 || *bport > 65535 {
			return usagef("--broadcast-port %d is not a UDP port", *bport)
		}
		opts := []tracy.Option{tracy.WithAddress(*addr), tracy.WithProgramName("gotracy-demo"), tracy.WithOnDemand(*onDemand), tracy.WithBroadcastPort(*bport)}
		if *port != 0 {
			opts = append(opts, tracy.WithPort(*port))
		} else if inProcess {
			opts = append(opts, tracy.WithPort(0), tracy.WithBroadcast(false))
		}
		if inProcess {
			if demoCapture == nil {
				return fmt.Errorf("demo -o: this build has no in-process capture")
			}
			if *out != "" {
				if err := fileio.CheckOutput(*out, *force); err != nil {
					return err
				}
			}
		}
		if err := tracy.Start(opts...); err != nil {
			return err
		}
		stopped := false
		defer func() {
			if !stopped {
				tracy.Stop()
			}
		}()
		// The in-process capture runs on its own context: at Ctrl-C the
		// workload stops, tracy.Stop delivers what it recorded, and the
		// capture ends with the client's Terminate and is saved whole.
		ctx := context.Background()
		var wait func() error
		var hold func()
		capEnv := e
		if *asJSON {
			// Keep stdout for the one JSON line.
			// (A copy of e, so the capture sees the same signals.)
			c := *e
			c.stdout = e.stderr
			capEnv = &c
		}
		if inProcess {
			host := *addr
			if host == "" || host == "0.0.0.0" {
				host = "127.0.0.1"
			}
			var dv *demoView
			if *view {
				dv = &demoView{http: *httpAddr, open: *open}
			}
			var err error
			if wait, hold, err = demoCapture(ctx, capEnv, host, tracy.Port(), *out, *force, dv); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(e.stderr, "gotracy demo: waiting for a Tracy viewer or capture on %s\n",
				net.JoinHostPort(*addr, strconv.Itoa(tracy.Port())))
		}
		if err := tracy.WaitConnected(e.context()); err != nil {
			if in := signalCause(e); in != nil {
				return fmt.Errorf("%w before a viewer or capture connected", in)
			}
			return err
		}
		stop := e.context().Done()
		var rep *demoReport
		if *heavy > 0 {
			rep = runHeavy(*heavy, stop)
		} else {
			var until time.Time
			if *duration > 0 {
				until = time.Now().Add(time.Duration(*duration * float64(time.Second)))
			}
			rep = runDemo(*frames, until, *fps, stop)
		}
		interrupted := e.context().Err() != nil
		stopped = true
		if err := tracy.Stop(); err != nil {
			return fmt.Errorf("delivering the profile: %w", err)
		}
		if wait != nil {
			if err := wait(); err != nil {
				return err
			}
		}
		if *asJSON {
			if err := writeDemoJSON(e.stdout, rep); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(e.stderr, "gotracy demo: emitted %d zones, %d frames in %.3f s\n", rep.ZonesTotal, rep.Frames, rep.EmitSeconds)
		}
		if interrupted {
			// Stopped by the user: what was recorded is delivered (and
			// saved with -o); the page goes with the process.
			return nil
		}
		if hold != nil {
			hold()
		}
		return nil
	}
}

// stopped reports whether stop has been closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func writeDemoJSON(w io.Writer, rep *demoReport) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// counter tallies what the demo emits, from several goroutines.
type counter struct {
	mu sync.Mutex
	r  demoReport
}

func (c *counter) zone(name string) {
	c.mu.Lock()
	c.r.Zones[name]++
	c.r.ZonesTotal++
	c.mu.Unlock()
}

func (c *counter) add(f func(r *demoReport)) {
	c.mu.Lock()
	f(&c.r)
	c.mu.Unlock()
}

// The demo's static locations, one per call site, as Tracy's ZoneScopedN.
var (
	locMainFrame     = tracy.NewLoc("main_frame")
	locMainWait      = tracy.NewLoc("main_wait_workers")
	locMakeImage     = tracy.NewLoc("make_image")
	locWorkerFrame   = tracy.NewLoc("worker_frame")
	locWorkItem      = tracy.NewLoc("work_item")
	locWorkItemInner = tracy.NewColorLoc("work_item_inner", 0xF0A020)
	locLocked        = tracy.NewLoc("locked_section")
	locTiny          = tracy.NewLoc("tiny")
	// Locations built from explicit parts, as Tracy's C API allocates them.
	locCAPI = [2]*tracy.Loc{
		tracy.LocAt("capi_zone_t0", "capi_named_fn", "demo.go", 1000, 0),
		tracy.LocAt("capi_zone_t1", "capi_named_fn", "demo.go", 1001, 0),
	}
	locCAPIUnnamed = [2]*tracy.Loc{
		tracy.LocAt("", "capi_unnamed_fn", "demo.go", 2000, 0),
		tracy.LocAt("", "capi_unnamed_fn", "demo.go", 2001, 0),
	}
)

const demoW, demoH = 320, 180

// leafName is how the viewer names leafCompute's unnamed zone: after its
// function ("main.leafCompute", or the package path in a test binary).
var leafName string

func init() { leafName = runtime.FuncForPC(reflect.ValueOf(leafCompute).Pointer()).Name() }

// runDemo is the frame workload of Tracy's reference demo (the C++ program
// behind the fixture recordings): the main goroutine and two workers.
// With until set it runs until then instead of for frames frames; fps > 0
// paces the frames instead of the fixed 2 ms pause.
// runDemo emits the frame workload for frames frames, or until a time,
// and ends early, after a whole frame, once stop is closed.
func runDemo(frames int, until time.Time, fps int, stop <-chan struct{}) *demoReport {
	c := &counter{r: demoReport{Zones: map[string]int{}}}
	shared := tracy.NewMutex("g_sharedLock")
	start := time.Now()
	tracy.MessageL("demo start")
	c.add(func(r *demoReport) { r.Messages++ })

	var startCh [2]chan int
	done := make(chan int, 2)
	var wg sync.WaitGroup
	for t := 0; t < 2; t++ {
		startCh[t] = make(chan int)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tracy.SetThreadName(fmt.Sprintf("worker-%d", t))
			for f := range startCh[t] {
				workerFrame(c, shared, t, f)
				done <- t
			}
		}()
	}
	img := make([]byte, demoW*demoH*4)
	next := time.Now()
	for f := 0; ((until.IsZero() && f < frames) || (!until.IsZero() && time.Now().Before(until))) && !stopped(stop); f++ {
		for t := 0; t < 2; t++ {
			startCh[t] <- f
		}
		mz := tracy.Begin(locMainFrame)
		wz := tracy.Begin(locMainWait)
		<-done
		<-done
		wz.End()
		tracy.PlotInt("frame_index", int64(f))
		iz := tracy.Begin(locMakeImage)
		for y := 0; y < demoH; y++ {
			for x := 0; x < demoW; x++ {
				p := img[(y*demoW+x)*4:]
				p[0] = byte(x + 8*f)
				p[1] = byte(y + 4*f)
				p[2] = byte((x+y)/2 + 2*f)
				p[3] = 255
			}
		}
		images := 0
		if err := tracy.FrameImage(img, demoW, demoH, 0, false); err == nil {
			images = 1
		}
		iz.End()
		mz.End()
		tracy.FrameMark()
		c.zone("main_frame")
		c.zone("main_wait_workers")
		c.zone("make_image")
		c.add(func(r *demoReport) {
			r.PlotPointsTotal++
			r.Frames++
			r.FrameImages += images
		})
		if fps > 0 {
			next = next.Add(time.Second / time.Duration(fps))
			time.Sleep(time.Until(next))
		} else {
			time.Sleep(2 * time.Millisecond)
		}
	}
	for t := 0; t < 2; t++ {
		close(startCh[t])
	}
	wg.Wait()
	tracy.MessageL("demo end")
	c.add(func(r *demoReport) { r.Messages++ })
	c.r.EmitSeconds = time.Since(start).Seconds()
	return &c.r
}

func workerFrame(c *counter, shared *tracy.Mutex, t, f int) {
	z := tracy.Begin(locWorkerFrame)
	z.Text(fmt.Sprintf("frame %d thread %d", f, t))
	z.Value(uint64(f*10 + t))
	z.Color(0x2080F0 + uint32(t))
	c.zone("worker_frame")
	for i := 0; i < 3; i++ {
		w := tracy.Begin(locWorkItem)
		leafCompute(c, i)
		if i == 1 {
			tracy.Begin(locWorkItemInner).End()
			c.zone("work_item_inner")
		}
		w.End()
		c.zone("work_item")
	}
	dyn := fmt.Sprintf("dyn_t%d_m%d", t, f%3)
	tracy.BeginNamed(dyn).End()
	c.zone(dyn)

	capi := tracy.Begin(locCAPI[t])
	tracy.Begin(locCAPIUnnamed[t]).End()
	capi.End()
	c.zone(locCAPI[t].Name())
	c.zone("capi_unnamed_fn")

	for i := 0; i < 5; i++ {
		shared.Lock()
		l := tracy.Begin(locLocked)
		spin(200)
		l.End()
		shared.Unlock()
		c.zone("locked_section")
	}
	c.add(func(r *demoReport) { r.LockAcquisitions += 5 })

	// Memory on real heap blocks: the block's address is the key.
	a := make([]byte, 64+16*t+f)
	tracy.Alloc(addr(a), uint64(len(a)))
	s := make([]byte, 256+32*t+f%4)
	tracy.AllocCallstack(addr(s), uint64(len(s)), 8)
	n := make([]byte, 1024*(t+1))
	tracy.AllocNamed(addr(n), uint64(len(n)), "demo_pool")
	tracy.Free(addr(a))
	tracy.FreeCallstack(addr(s), 8)
	tracy.FreeNamed(addr(n), "demo_pool")
	keep(a, s, n)
	c.add(func(r *demoReport) { r.Allocs += 3; r.Frees += 3 })

	if t == 0 {
		tracy.PlotInt("worker0_value", int64(3*f))
	} else {
		tracy.Plot("worker1_value", float64(f)*0.5)
	}
	msg := fmt.Sprintf("worker %d frame %d", t, f)
	tracy.Message(msg)
	tracy.MessageL("literal message")
	tracy.MessageColor(msg, 0xFF00FF)
	c.add(func(r *demoReport) { r.PlotPointsTotal++; r.Messages += 3 })
	z.End()
}

// leafCompute is an unnamed zone: the viewer shows the function's name.
func leafCompute(c *counter, i int) {
	defer tracy.BeginHere().End()
	spin(100 + i)
	c.zone(leafName)
}

var sink atomic.Int64

// spin is a little work for zones to measure.
func spin(n int) {
	x := 0
	for i := 0; i < n; i++ {
		x += i * i
	}
	if x == -1 {
		sink.Add(1) // never: keeps the loop from being optimised away
	}
}

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

//go:noinline
func keep(...[]byte) {}

// runHeavy is the reference client's heavy mode: n tiny zones from one
// goroutine, a frame mark every 100,000.
// runHeavy emits n tiny zones from one goroutine, and ends early, at a
// frame mark, once stop is closed.
func runHeavy(n int, stop <-chan struct{}) *demoReport {
	r := &demoReport{Zones: map[string]int{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		tracy.SetThreadName("heavy")
		start := time.Now()
		i := 1
		for ; i <= n; i++ {
			tracy.Begin(locTiny).End()
			if i%100000 == 0 {
				tracy.FrameMark()
				r.Frames++
				if stopped(stop) {
					break
				}
			}
		}
		r.ZonesTotal = min(i, n)
		r.Zones["tiny"] = r.ZonesTotal
		r.EmitSeconds = time.Since(start).Seconds()
	}()
	<-done
	return r
}

// sortedZoneNames is used by tests.
func sortedZoneNames(m map[string]int) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
