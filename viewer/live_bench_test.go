package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/playback"
	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/viewer"
)

// liveOf adapts a capture's publisher to the viewer, as the CLI does.
func liveOf(p *capture.Publisher) viewer.LiveSource {
	return func() viewer.LiveState {
		s := p.Latest()
		if s == nil {
			return viewer.LiveState{Status: "waiting for the client"}
		}
		return viewer.LiveState{Trace: s.Trace, Gen: s.Gen, Final: s.Final, Events: s.Events, Zones: s.Zones, Published: s.Published}
	}
}

// pollPage asks what the live page asks, every interval, until stop:
// /api/v1/live, and when a newer trace is served what the page reloads
// then (lanes, srclocs; trace at most every 5 s) and the timeline it redraws (1600 px, the
// whole trace, which costs the most).
func pollPage(base string, interval time.Duration, stop <-chan struct{}) (polls int) {
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(p string) []byte {
		resp, err := c.Get(base + p)
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	tk := time.NewTicker(interval)
	defer tk.Stop()
	var served uint64
	lastTrace := time.Now()
	for {
		select {
		case <-stop:
			return polls
		case <-tk.C:
		}
		var st struct{ Served uint64 }
		json.Unmarshal(get("/api/v1/live"), &st)
		polls++
		if st.Served == served {
			continue
		}
		served = st.Served
		get("/api/v1/lanes")
		if time.Since(lastTrace) > 5*time.Second {
			get("/api/v1/trace") // the page's summary: at most every 5 s
			lastTrace = time.Now()
		}
		get("/api/v1/srclocs")
		get("/api/v1/timeline?width=1600")
	}
}

// BenchmarkLiveIngest captures the real C++ client's heavy session
// (heavy10m: 10 M zones; GOTRACY_LIVE_BENCH=heavy1m for 1 M) over
// loopback, alternately without a viewer and with a live viewer polled at
// 10 Hz the way the page polls (live; on a newer trace lanes, trace,
// srclocs and a 1600 px timeline of everything),
// in one run so that both see the same machine load. It reports the
// zones/s of each and their ratio (goal: with-viewer >= 0.9 x alone).
func BenchmarkLiveIngest(b *testing.B) {
	name := os.Getenv("GOTRACY_LIVE_BENCH")
	if name == "" {
		name = "heavy10m"
	}
	raw, err := os.ReadFile(fixtures.Path(b, name+".c2s.bin"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * int64(len(raw)))
	var alone, viewed, aloneCPU, viewedCPU time.Duration
	var zones, polls, rebuilds, builds int
	var buildTime, pubTime time.Duration
	iter := 0
	for b.Loop() {
		// Alternate which goes first, and start each with a clean heap, so
		// neither pays for the other's garbage.
		order := []bool{false, true}
		if iter%2 == 1 {
			order = []bool{true, false}
		}
		iter++
		for _, withViewer := range order {
			runtime.GC()
			addr := playback.Client(b, raw)
			var opts []capture.Option
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var l *viewer.Live
			var p *capture.Publisher
			if withViewer {
				p = capture.NewPublisher(0)
				opts = append(opts, capture.WithPublisher(p))
				// Ingest only: the final trace, published as the capture
				// returns, is built after the ingest this measures.
				src := liveOf(p)
				var lastLive viewer.LiveState
				var mu sync.Mutex
				l, _ = viewer.NewLive(func() viewer.LiveState {
					st := src()
					mu.Lock()
					defer mu.Unlock()
					if st.Final {
						return lastLive
					}
					lastLive = st
					return st
				}, nil)
				srv := httptest.NewServer(l.Handler())
				defer srv.Close()
				wg.Add(1)
				go func() { defer wg.Done(); polls += pollPage(srv.URL, 100*time.Millisecond, stop) }()
			}
			start, cpu0 := time.Now(), cpuTime()
			res, err := capture.Connect(context.Background(), addr, append(opts, capture.WithLocalSources(false))...)
			d := time.Since(start)
			cpu := cpuTime() - cpu0
			close(stop)
			wg.Wait()
			if err != nil {
				b.Fatal(err)
			}
			zones = res.Trace.ZoneCount()
			if withViewer {
				viewed += d
				viewedCPU += cpu
				n, bt := l.Builds()
				builds += n
				buildTime += bt
				pt, gens := p.Spent()
				pubTime += pt
				rebuilds += int(gens)
			} else {
				alone += d
				aloneCPU += cpu
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(zones)*n/alone.Seconds(), "zones/s-alone")
	b.ReportMetric(float64(zones)*n/viewed.Seconds(), "zones/s-viewer")
	b.ReportMetric(alone.Seconds()/viewed.Seconds(), "ratio")
	if viewedCPU > 0 {
		// CPU per zone, both ways: what the ratio is when the machine has
		// no spare core (this process's CPU, the replaying client's
		// included, which is the same in both).
		b.ReportMetric(aloneCPU.Seconds()/viewedCPU.Seconds(), "cpu-ratio")
	}
	b.ReportMetric(float64(polls)/n, "polls/op")
	b.ReportMetric(float64(rebuilds)/n, "snapshots/op")
	b.ReportMetric(float64(builds)/n, "builds/op")
	// What viewing cost, against the capture's own time: the worker's
	// publishing (on the capture's goroutine) and the viewer's builds
	// (beside it).
	b.ReportMetric(pubTime.Seconds()/viewed.Seconds(), "publish-share")
	b.ReportMetric(buildTime.Seconds()/viewed.Seconds(), "build-share")
}

// BenchmarkLiveLatency measures how long an event takes from the client's
// call to an answer of the API: the Go client (in this process) sends a
// message, the capture applies it, publishes, the live viewer rebuilds,
// and GET /api/v1/messagelist finds it. A page-like poller asks every
// 100 ms meanwhile, so the capture keeps publishing; the probe itself polls
// every 5 ms. Goal: at most 1 s.
//
// The probes start once the trace holds GOTRACY_LATENCY_ZONES zones
// (default 10 M; -short: 0), sent as fast as the client goes, nested
// three deep, and the program goes on sending about a million zones a
// second while they run, so the latency is that of a large trace that
// grows.
func BenchmarkLiveLatency(b *testing.B) {
	target := 10_000_000
	if testing.Short() {
		target = 0
	}
	if v := os.Getenv("GOTRACY_LATENCY_ZONES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("GOTRACY_LATENCY_ZONES=%q: %v", v, err)
		}
		target = n
	}
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false), tracy.WithProgramName("latency")); err != nil {
		b.Fatal(err)
	}
	defer tracy.Stop()
	p := capture.NewPublisher(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		capture.Connect(ctx, fmt.Sprintf("127.0.0.1:%d", tracy.Port()), capture.WithPublisher(p))
	}()
	if err := tracy.WaitConnected(ctx); err != nil {
		b.Fatal(err)
	}
	l, _ := viewer.NewLive(liveOf(p), nil)
	srv := httptest.NewServer(l.Handler())
	defer srv.Close()
	stop := make(chan struct{})
	go pollPage(srv.URL, 100*time.Millisecond, stop)
	defer close(stop)
	// The program: zones nested three deep (1 + 10 + 100 a round), as
	// fast as it goes until the trace is large, then ~1M zones a second.
	var sent atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			for range 10 {
				a := tracy.BeginNamed("outer")
				for range 10 {
					m := tracy.BeginNamed("mid")
					for range 10 {
						tracy.BeginNamed("load").End()
					}
					m.End()
				}
				a.End()
			}
			if sent.Add(1110) > int64(target) {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	fill := time.Now()
	for {
		if s := p.Latest(); s != nil && s.Zones >= uint64(target) {
			break
		}
		if time.Since(fill) > 10*time.Minute {
			b.Fatalf("the trace did not reach %d zones in 10 minutes", target)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Logf("%d zones published after %.1f s", target, time.Since(fill).Seconds())
	var pubMu sync.Mutex
	var pubs []pubRec
	go func() {
		for {
			ch := p.Changed()
			if s := p.Latest(); s != nil {
				pubMu.Lock()
				if len(pubs) == 0 || pubs[len(pubs)-1].gen != s.Gen {
					pubs = append(pubs, pubRec{s.Gen, s.Published, s.Cost, len(s.Trace.Messages)})
				}
				pubMu.Unlock()
			}
			select {
			case <-ch:
			case <-stop:
				return
			}
		}
	}()
	base := 0
	if s := p.Latest(); s != nil {
		base = len(s.Trace.Messages)
	}
	var probes []probeRec
	var lat []time.Duration
	c := &http.Client{Timeout: 10 * time.Second}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		text := fmt.Sprintf("probe %d", i)
		sent := time.Now()
		tracy.Message(text)
		var gen uint64
		for {
			resp, err := c.Get(srv.URL + "/api/v1/messagelist?filter=" + url.QueryEscape(text))
			if err != nil {
				b.Fatal(err)
			}
			var a struct{ Total int }
			json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
			if a.Total > 0 {
				gen, _ = strconv.ParseUint(resp.Header.Get("X-Gotracy-Gen"), 10, 64)
				break
			}
			if time.Since(sent) > 10*time.Second {
				resp, err := c.Get(srv.URL + "/api/v1/live")
				var st []byte
				if err == nil {
					st, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				pt, gens := p.Spent()
				b.Fatalf("%q not visible after 10 s (live: %s; %d snapshots, %v publishing)", text, st, gens, pt)
			}
			time.Sleep(5 * time.Millisecond)
		}
		lat = append(lat, time.Since(sent))
		probes = append(probes, probeRec{sent, time.Now(), gen})
	}
	if path := os.Getenv("GOTRACY_LATENCY_DETAIL"); path != "" {
		pubMu.Lock()
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		latencyDetail(f, probes, base, pubs, l.BuildLog())
		pubMu.Unlock()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-max")
	if s := p.Latest(); s != nil {
		b.ReportMetric(float64(s.Zones), "zones-at-end")
	}
	n, bt := l.Builds()
	b.ReportMetric(float64(bt.Microseconds())/1000/float64(max(n, 1)), "ms/build")
}

// pubRec is a snapshot as the publisher made it.
type pubRec struct {
	gen       uint64
	published time.Time
	cost      time.Duration
	messages  int
}

// probeRec is one latency probe: sent, seen in the API, from which trace.
type probeRec struct {
	sent, seen time.Time
	gen        uint64
}

// latencyDetail writes where the time of the slowest probes went: until a
// snapshot held the probe, until a Server of it was built, until the
// probe's poll saw it; and the distributions of publish gaps and costs and
// of build costs and gaps.
func latencyDetail(w io.Writer, probes []probeRec, base int, pubs []pubRec, builds []viewer.BuildRecord) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	logf := func(f string, a ...any) { fmt.Fprintf(w, f+"\n", a...) }
	for i, pr := range probes {
		lat := pr.seen.Sub(pr.sent)
		if lat < 250*time.Millisecond {
			continue
		}
		k := slices.IndexFunc(pubs, func(p pubRec) bool { return p.messages >= base+i+1 })
		if k < 0 {
			logf("probe %d: %.0f ms, no snapshot recorded holds it", i+1, ms(lat))
			continue
		}
		pb := pubs[k]
		gap := time.Duration(0)
		if k > 0 {
			gap = pb.published.Sub(pubs[k-1].published)
		}
		j := slices.IndexFunc(builds, func(r viewer.BuildRecord) bool { return r.Gen >= pb.gen })
		line := fmt.Sprintf("probe %d: %.0f ms: published %.0f ms after (gen %d, gap %.0f ms, cost %.1f ms)", i+1, ms(lat), ms(pb.published.Sub(pr.sent)), pb.gen, ms(gap), ms(pb.cost))
		if j >= 0 {
			r := builds[j]
			line += fmt.Sprintf("; server gen %d build started %.0f ms after publish (%.0f ms after the previous build), cost %.0f ms, full %v %+v; seen %.0f ms after it (answered by gen %d)",
				r.Gen, ms(r.Start.Sub(pb.published)), ms(r.Since), ms(r.Cost), r.Full, r.Index, ms(pr.seen.Sub(r.Start.Add(r.Cost))), pr.gen)
		}
		logf("%s", line)
	}
	dist := func(name string, v []time.Duration) {
		if len(v) == 0 {
			return
		}
		slices.Sort(v)
		logf("%s: n=%d median %.1f ms, p90 %.1f, p99 %.1f, max %.1f", name, len(v), ms(v[len(v)/2]), ms(v[len(v)*9/10]), ms(v[len(v)*99/100]), ms(v[len(v)-1]))
	}
	var gaps, costs, bcost, bsince []time.Duration
	for k := 1; k < len(pubs); k++ {
		gaps = append(gaps, pubs[k].published.Sub(pubs[k-1].published))
		costs = append(costs, pubs[k].cost)
	}
	full := 0
	for _, r := range builds {
		if r.Cost > 200*time.Millisecond {
			logf("slow build: gen %d, %d zones (%d new), %.0f ms, full %v, %+v, %.0f ms after the previous", r.Gen, r.Zones, r.Added, ms(r.Cost), r.Full, r.Index, ms(r.Since))
		}
	}
	for _, r := range builds {
		bcost = append(bcost, r.Cost)
		bsince = append(bsince, r.Since)
		if r.Full {
			full++
		}
	}
	var moved []time.Duration
	for _, r := range builds {
		if r.Index.Moved > 0 {
			moved = append(moved, r.Cost)
		}
	}
	dist("build cost when positions moved", moved)
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var pauses []time.Duration
	for i := range min(int(ms0.NumGC), len(ms0.PauseNs)) {
		pauses = append(pauses, time.Duration(ms0.PauseNs[i]))
	}
	dist("GC pause (last 256)", pauses)
	logf("GC: %d cycles, heap %d MB", ms0.NumGC, ms0.HeapAlloc>>20)
	dist("publish gap", gaps)
	dist("publish cost", costs)
	dist("build cost", bcost)
	dist("build gap", bsince)
	logf("%d builds, %d full", len(builds), full)
}

// BenchmarkLiveIngestClient is the ingest goal measured on a real client
// run, repeatably: each iteration starts the client twice, once captured
// alone and once with a live viewer polled at 10 Hz as the page polls
// (pollPage), in alternating order, and compares the capture's own
// elapsed time (what `gotracy capture` prints as "Elapsed time") and this
// process's CPU time (the capture and the viewer; the client is another
// process) of the pair.
//
//	GOTRACY_INGEST_CLIENT=go  (default) `gotracy demo --heavy N`, built from ./cmd/gotracy
//	GOTRACY_INGEST_CLIENT=cxx the real C++ client's heavy mode (heavy= in /work/ext/tracy/READY,
//	                          or the path in GOTRACY_INGEST_CXX)
//	GOTRACY_INGEST_ZONES=N    zones the client sends (default 30,000,000)
//
// It logs every pair and reports the median and range of the ratios
// alone/with-viewer (goal: at least 0.9). Run it with -benchtime Nx for N
// pairs; at 30M zones a pair takes 10-20 s of a quiet machine.
func BenchmarkLiveIngestClient(b *testing.B) {
	zones := 30_000_000
	if v := os.Getenv("GOTRACY_INGEST_ZONES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("GOTRACY_INGEST_ZONES=%q: want a positive count", v)
		}
		zones = n
	}
	var argv []string
	var env []string
	switch kind := os.Getenv("GOTRACY_INGEST_CLIENT"); kind {
	case "", "go":
		bin := filepath.Join(b.TempDir(), "gotracy")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/gotracy/gotracy/cmd/gotracy").CombinedOutput()
		if err != nil {
			b.Fatalf("building gotracy: %v\n%s", err, out)
		}
		argv = []string{bin, "demo", "--heavy", strconv.Itoa(zones), "-p", "{port}"}
	case "cxx":
		path := os.Getenv("GOTRACY_INGEST_CXX")
		if path == "" {
			ready, err := os.ReadFile("/work/ext/tracy/READY")
			if err != nil {
				b.Skip("no C++ client: set GOTRACY_INGEST_CXX or build Tracy (/work/ext/tracy/READY)")
			}
			for _, line := range strings.Split(string(ready), "\n") {
				if p, ok := strings.CutPrefix(line, "heavy="); ok {
					path = strings.TrimSpace(p)
				}
			}
		}
		if path == "" {
			b.Skip("READY names no heavy client")
		}
		argv = []string{path, "--heavy", strconv.Itoa(zones)}
		env = []string{"TRACY_PORT={port}"}
	default:
		b.Fatalf("GOTRACY_INGEST_CLIENT=%q: want go or cxx", kind)
	}

	// run captures one client session, with or without a viewer, and
	// returns the capture's elapsed time and this process's CPU time.
	run := func(withViewer bool) (wall, cpu time.Duration, got int) {
		runtime.GC()
		port := freePort(b)
		args := slices.Clone(argv)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "{port}", strconv.Itoa(port))
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = os.Environ()
		for _, e := range env {
			cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "{port}", strconv.Itoa(port)))
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer cmd.Wait()
		defer cmd.Process.Kill() // only if the capture failed: it exits by itself
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var opts []capture.Option
		stop := make(chan struct{})
		var wg sync.WaitGroup
		if withViewer {
			p := capture.NewPublisher(0)
			opts = append(opts, capture.WithPublisher(p))
			src := liveOf(p)
			var lastLive viewer.LiveState
			var mu sync.Mutex
			l, _ := viewer.NewLive(func() viewer.LiveState {
				// Ingest only: the final trace is served after it.
				st := src()
				mu.Lock()
				defer mu.Unlock()
				if st.Final {
					return lastLive
				}
				lastLive = st
				return st
			}, nil)
			srv := httptest.NewServer(l.Handler())
			defer srv.Close()
			wg.Add(1)
			go func() { defer wg.Done(); pollPage(srv.URL, 100*time.Millisecond, stop) }()
		}
		cpu0 := cpuTime()
		res, err := capture.Connect(ctx, fmt.Sprintf("127.0.0.1:%d", port), append(opts, capture.WithLocalSources(false))...)
		cpu = cpuTime() - cpu0
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if res.Trace.ZoneCount() < zones {
			b.Fatalf("captured %d zones, the client sends %d", res.Trace.ZoneCount(), zones)
		}
		return res.Stats.Elapsed, cpu, res.Trace.ZoneCount()
	}

	var wallRatio, cpuRatio []float64
	var aloneWall, viewWall time.Duration
	iter := 0
	for b.Loop() {
		var w [2]time.Duration
		var c [2]time.Duration
		order := []int{0, 1}
		if iter%2 == 1 {
			order = []int{1, 0}
		}
		iter++
		for _, v := range order {
			w[v], c[v], _ = run(v == 1)
		}
		aloneWall += w[0]
		viewWall += w[1]
		wallRatio = append(wallRatio, w[0].Seconds()/w[1].Seconds())
		cpuRatio = append(cpuRatio, c[0].Seconds()/c[1].Seconds())
		b.Logf("pair %d: alone %.2f s (cpu %.2f s), with viewer %.2f s (cpu %.2f s): %.2f wall, %.2f cpu; load %s", iter,
			w[0].Seconds(), c[0].Seconds(), w[1].Seconds(), c[1].Seconds(), wallRatio[len(wallRatio)-1], cpuRatio[len(cpuRatio)-1], loadAvg())
	}
	med := func(v []float64) (float64, float64, float64) {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2], s[0], s[len(s)-1]
	}
	m, lo, hi := med(wallRatio)
	b.ReportMetric(m, "ratio-median")
	b.ReportMetric(lo, "ratio-min")
	b.ReportMetric(hi, "ratio-max")
	m, lo, hi = med(cpuRatio)
	b.ReportMetric(m, "cpu-ratio-median")
	b.ReportMetric(lo, "cpu-ratio-min")
	b.ReportMetric(hi, "cpu-ratio-max")
	b.ReportMetric(float64(zones)*float64(iter)/aloneWall.Seconds(), "zones/s-alone")
	b.ReportMetric(float64(zones)*float64(iter)/viewWall.Seconds(), "zones/s-viewer")
}

// freePort is a TCP port nothing listens on now.
func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// loadAvg is /proc/loadavg's first three figures ("?" elsewhere).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
