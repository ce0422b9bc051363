package viewer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/internal/tracereport"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
)

// smallTrace is a hand-made trace whose every figure a test can work out
// by hand: two threads, nested zones, one zone with text, name and colour,
// a plot, messages, frames and a lock.
func smallTrace(t testing.TB) *model.Trace {
	t.Helper()
	b := model.NewBuilder()
	src := func(key uint64, name, fn string, line uint32, color uint32) model.SrcLocID {
		return b.AddStaticSrcLoc(key, model.SourceLocation{Name: model.IdxRef(b.Intern(name)), Function: model.IdxRef(b.Intern(fn)),
			File: model.IdxRef(b.Intern("small.go")), Line: line, Color: color})
	}
	outer := src(1, "outer", "main.outer", 10, 0x0000FF) // BGR red
	inner := src(2, "inner", "main.inner", 20, 0)
	leaf := src(3, "leaf", "main.leaf", 30, 0)
	b.SetThreadName(100, "main")
	th := b.Thread(100)
	// outer [1000, 11000]: inner [2000, 6000] with leaves, inner [7000, 9000]
	o := b.BeginZone(th, 1000, outer)
	b.SetZoneText(th, o, "hello")
	b.BeginZone(th, 2000, inner)
	for i := int64(0); i < 10; i++ {
		b.BeginZone(th, 2100+i*300, leaf)
		b.EndZone(th, 2100+i*300+100)
	}
	b.EndZone(th, 6000)
	in2 := b.BeginZone(th, 7000, inner)
	b.SetZoneName(th, in2, "renamed")
	b.SetZoneColor(th, in2, 0x00FF00)
	b.EndZone(th, 9000)
	b.EndZone(th, 11000)
	b.SetThreadName(200, "worker")
	th2 := b.Thread(200)
	for i := int64(0); i < 5; i++ {
		b.BeginZone(th2, 1500+i*2000, inner)
		b.EndZone(th2, 2500+i*2000)
	}
	b.BeginZone(th2, 12000, outer) // never ends
	for i := int64(0); i < 4; i++ {
		b.FrameMark(0, 1000+i*3000)
	}
	b.PlotPoint(0x77, 1000, 1)
	b.PlotPoint(0x77, 5000, 3)
	b.PlotPoint(0x77, 9000, 2)
	b.SetPtrString(0x77, "load")
	b.AddMessage(100, model.Message{Time: 3000, Text: model.IdxRef(b.Intern("started")), Severity: model.SeverityInfo})
	b.AddMessage(200, model.Message{Time: 8000, Text: model.IdxRef(b.Intern("Warning: slow")), Severity: model.SeverityWarning, Color: 0xFF0000FF})
	b.LockAnnounce(7, leaf, model.LockLockable, 900)
	b.LockEvent(7, 100, 2000, model.LockWait, leaf)
	b.LockEvent(7, 100, 2100, model.LockObtain, leaf)
	b.LockEvent(7, 200, 2200, model.LockWait, leaf)
	b.LockEvent(7, 100, 3000, model.LockRelease, leaf)
	b.LockEvent(7, 200, 3000, model.LockObtain, leaf)
	b.LockEvent(7, 200, 3500, model.LockRelease, leaf)
	b.Observe(13000)
	return b.Finish()
}

func newTestServer(t testing.TB, tr *model.Trace, opts ...Option) *httptest.Server {
	t.Helper()
	s, err := New(tr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// get fetches path and returns status, content type and body.
func get(t testing.TB, ts *httptest.Server, path string) (int, string, []byte) {
	t.Helper()
	resp, err := ts.Client().Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// getJSON fetches path, wants 200 and decodes into v.
func getJSON(t testing.TB, ts *httptest.Server, path string, v any) {
	t.Helper()
	code, ct, b := get(t, ts, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: status %d, body %s", path, code, b)
	}
	if ct != "application/json" {
		t.Fatalf("GET %s: content type %q", path, ct)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func TestAPILanesSmall(t *testing.T) {
	ts := newTestServer(t, smallTrace(t), WithName("small"))
	var a lanesAnswer
	getJSON(t, ts, "/api/v1/lanes", &a)
	if len(a.Threads) != 2 || a.Threads[0].Name != "main" || a.Threads[1].Name != "worker" {
		t.Fatalf("threads %+v", a.Threads)
	}
	if a.Threads[0].Zones != 13 || a.Threads[0].Depth != 3 || a.Threads[1].Zones != 6 || a.Threads[1].Depth != 1 {
		t.Errorf("thread zones/depth %+v", a.Threads)
	}
	if a.LastTime != 13000 || a.FirstTime != 0 || a.Messages != 2 {
		t.Errorf("range %d..%d messages %d", a.FirstTime, a.LastTime, a.Messages)
	}
	if len(a.FrameSets) != 1 || a.FrameSets[0].Name != "Frame" || a.FrameSets[0].Count != 4 || !a.FrameSets[0].Continuous {
		t.Errorf("frame sets %+v", a.FrameSets)
	}
	if len(a.Plots) != 1 || a.Plots[0].Name != "load" || a.Plots[0].Count != 3 || a.Plots[0].Min != 1 || a.Plots[0].Max != 3 {
		t.Errorf("plots %+v", a.Plots)
	}
	if len(a.Locks) != 1 || a.Locks[0].Name != "leaf" || len(a.Locks[0].Threads) != 2 || a.Locks[0].Threads[0] != 0 || a.Locks[0].Threads[1] != 1 {
		t.Errorf("locks %+v", a.Locks)
	}
}

func TestAPISrcLocs(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	var sl []srcLocJSON
	getJSON(t, ts, "/api/v1/srclocs", &sl)
	if len(sl) != 3 {
		t.Fatalf("%d srclocs, want 3", len(sl))
	}
	want := srcLocJSON{ID: 1, Name: "outer", Function: "main.outer", File: "small.go", Line: 10, Color: 0xFF0000}
	if sl[0] != want {
		t.Errorf("srcloc 1 = %+v, want %+v (colour as 0xRRGGBB)", sl[0], want)
	}
}

func TestAPITimelineSmall(t *testing.T) {
	tr := smallTrace(t)
	ts := newTestServer(t, tr)
	var tl lod.Timeline
	getJSON(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=13000&format=json", &tl)
	if len(tl.Lanes) != 2 {
		t.Fatalf("%d lanes", len(tl.Lanes))
	}
	// At 1 ns a pixel and minpx 3 every zone is drawn alone.
	if n := len(tl.Lanes[0].Items); n != 13 || tl.Lanes[0].Zones != 13 {
		t.Errorf("main lane: %d items for %d zones, want 13", n, tl.Lanes[0].Zones)
	}
	last := tl.Lanes[1].Items[len(tl.Lanes[1].Items)-1]
	if !last.Unended || last.End != 13000 {
		t.Errorf("unended zone drawn as %+v", last)
	}
	// At 10 px for 13 µs the leaves (100 ns = 0.08 px) merge into one run.
	getJSON(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=10&format=json", &tl)
	var merged int
	var count uint64
	for _, it := range tl.Lanes[0].Items {
		if it.Merged {
			merged++
		}
		count += uint64(it.Count)
	}
	if merged == 0 || count != 13 || tl.Lanes[0].Zones != 13 {
		t.Errorf("10 px: %d merged items, counts sum %d (lane says %d), want merges and 13", merged, count, tl.Lanes[0].Zones)
	}
	// A window with no zones: lanes with empty item lists, not null.
	_, _, empty := get(t, ts, "/api/v1/timeline?t0=20000&t1=30000&width=10&format=json")
	if strings.Contains(string(empty), "null") || !strings.Contains(string(empty), `"items":[]`) {
		t.Errorf("empty window: %s", empty)
	}
	code, ct, body := get(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=10")
	if code != 200 || ct != "application/octet-stream" || !strings.HasPrefix(string(body), lod.BinaryMagic) {
		t.Errorf("binary: %d %q %q", code, ct, body[:min(8, len(body))])
	}
}

// gpuTrace is smallTrace with a Vulkan context of one timeline: a parent
// GPU zone [1000, 5000] with two children, and an unended one.
func gpuTrace(t testing.TB) *model.Trace {
	tr := smallTrace(t)
	b := model.BuilderFor(tr)
	sl := b.AddStaticSrcLoc(9, model.SourceLocation{Name: model.IdxRef(b.Intern("gpu_pass")), File: model.IdxRef(b.Intern("gpu.go")), Line: 5, Color: 0x00FFFF})
	cs := b.InternCallStack([]uint64{0xA0, 0xB0})
	tr.Frames[0xA0] = model.FrameData{ImageName: b.Intern("app"), Frames: []model.InlineFrame{
		{Name: b.Intern("inlined"), File: b.Intern("a.go"), Line: 7}, {Name: b.Intern("caller"), File: b.Intern("a.go"), Line: 9}}}
	tr.GpuContexts = append(tr.GpuContexts, model.GpuContext{Name: b.Intern("vk"), Type: model.GpuVulkan, Timelines: []model.GpuTimeline{{
		Thread: 100,
		Zones: []model.GpuZone{
			{CPUStart: 900, CPUEnd: 950, GPUStart: 1000, GPUEnd: 5000, Next: 3, SrcLoc: sl, CallStack: cs, Thread: b.LocalThread(100)},
			{GPUStart: 1100, GPUEnd: 2000, Next: 2, SrcLoc: sl},
			{GPUStart: 3000, GPUEnd: 4000, Next: 3, SrcLoc: sl},
			{GPUStart: 8000, GPUEnd: -1, Next: 4, SrcLoc: sl},
		}}}})
	th := 0
	b.SetZoneCallStack(th, 0, cs)
	return tr
}

func TestAPIGPUAndCallStacks(t *testing.T) {
	tr := gpuTrace(t)
	ts := newTestServer(t, tr)
	var a lanesAnswer
	getJSON(t, ts, "/api/v1/lanes", &a)
	if len(a.GPU) != 1 || a.GPU[0].Name != "vk" || a.GPU[0].Type != "Vulkan" || a.GPU[0].Zones != 4 || a.GPU[0].Depth != 2 || a.GPU[0].Thread != 100 {
		t.Errorf("gpu lanes %+v", a.GPU)
	}
	var tl lod.Timeline
	getJSON(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=13000&format=json", &tl)
	if len(tl.Lanes) != 3 || tl.Lanes[2].Kind != lod.LaneGPU || tl.Lanes[2].Zones != 4 || len(tl.Lanes[2].Items) != 4 {
		t.Fatalf("lanes %+v", tl.Lanes)
	}
	code, _, body := get(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=13000")
	bin, _, err := decodeBinary(body)
	if code != 200 || err != nil || bin.Lanes[2].Kind != lod.LaneGPU || bin.Lanes[2].Context != 0 || len(bin.Lanes[2].Items) != 4 {
		t.Errorf("binary GPU lane: %d %v %+v", code, err, bin)
	}
	var g gpuZoneInfo
	getJSON(t, ts, "/api/v1/zone?gpu=0:0&index=0", &g)
	if g.Name != "gpu_pass" || g.Duration != 4000 || g.CPUStart != 900 || g.ChildCount != 2 || g.Color != 0xFFFF00 || g.Thread != 100 ||
		len(g.Frames) != 2 || !g.Frames[0].Resolved || g.Frames[0].Image != "app" || len(g.Frames[0].Inlines) != 2 || g.Frames[1].Resolved {
		t.Errorf("gpu zone %+v", g)
	}
	getJSON(t, ts, "/api/v1/zone?gpu=0:0&index=3", &g)
	if !g.Unended || g.End != 13000 {
		t.Errorf("unended gpu zone %+v", g)
	}
	var z zoneInfo
	getJSON(t, ts, "/api/v1/zone?thread=0&index=0", &z)
	if z.CallStack != 1 || len(z.Frames) != 2 || z.Frames[0].Inlines[1].Name != "caller" || z.Frames[0].Addr != 0xA0 {
		t.Errorf("zone call stack %d %+v", z.CallStack, z.Frames)
	}
	var cs struct {
		ID     uint32       `json:"id"`
		Frames []stackFrame `json:"frames"`
	}
	getJSON(t, ts, "/api/v1/callstack?id=1", &cs)
	if cs.ID != 1 || len(cs.Frames) != 2 || cs.Frames[0].Inlines[0] != (inlineFrame{Name: "inlined", File: "a.go", Line: 7}) {
		t.Errorf("callstack %+v", cs)
	}
	for _, p := range []string{"/api/v1/callstack?id=0", "/api/v1/callstack?id=2", "/api/v1/zone?gpu=1:0&index=0", "/api/v1/zone?gpu=0:1&index=0",
		"/api/v1/zone?gpu=0:0&index=4", "/api/v1/zone?gpu=0:0&index=0&thread=0"} {
		if code, _, body := get(t, ts, p); code != 400 {
			t.Errorf("GET %s: %d %s, want 400", p, code, body)
		}
	}
}

// TestAPIPlotKeepsSpikes: 200,000 points at 100 px keep their one spike
// and their count; a window inside gets its edge points.
func TestAPIPlotKeepsSpikes(t *testing.T) {
	b := model.NewBuilder()
	b.SetPtrString(0x99, "wave")
	for i := int64(0); i < 200_000; i++ {
		v := float64(i % 7)
		if i == 123_457 {
			v = 1000
		}
		b.PlotPoint(0x99, i*10, v)
	}
	ts := newTestServer(t, b.Finish())
	var pl struct {
		Buckets []lod.Bucket `json:"buckets"`
	}
	getJSON(t, ts, "/api/v1/plot?id=0&t0=0&t1=2000000&width=100", &pl)
	n, top := 0, 0.0
	for _, bk := range pl.Buckets {
		n += int(bk.Count)
		top = max(top, bk.Max)
	}
	if n != 200_000 || top != 1000 || len(pl.Buckets) > 100 {
		t.Errorf("%d buckets hold %d points, max %v; want <= 100, 200000, 1000", len(pl.Buckets), n, top)
	}
	if _, _, b := get(t, newTestServer(t, model.NewBuilder().Finish()), "/api/v1/lanes"); strings.Contains(string(b), "null") {
		t.Errorf("empty trace lanes: %s", b)
	}
	getJSON(t, ts, "/api/v1/plot?id=0&t0=1000005&t1=1000095&width=10", &pl)
	if len(pl.Buckets) != 11 || pl.Buckets[0].Start != 1000000 || pl.Buckets[10].Start != 1000100 {
		t.Errorf("inner window: %d buckets %+v", len(pl.Buckets), pl.Buckets)
	}
}

// TestPageEmbedded: "/" is the embedded page, every embedded file is
// served, and none loads anything from the network (no CDN).
func TestPageEmbedded(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	code, ct, body := get(t, ts, "/")
	if code != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(strings.ToLower(string(body)), "<html") {
		t.Fatalf("GET /: %d %s", code, ct)
	}
	resp, err := ts.Client().Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("page CSP %q: want nothing but the server itself", csp)
	}
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|from\s+["'](https?:)?//|import\(\s*["'](https?:)?//|url\(\s*["']?(https?:)?//`)
	n := 0
	err = fs.WalkDir(uiFiles, "ui", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		code, _, body := get(t, ts, strings.TrimPrefix(p, "ui"))
		if code != 200 {
			t.Errorf("GET %s: %d", p, code)
		}
		if m := external.Find(body); m != nil {
			t.Errorf("%s loads from the network: %q", p, m)
		}
		return nil
	})
	if err != nil || n < 2 {
		t.Errorf("embedded files: %d, %v", n, err)
	}
}

// TestZoneAncestryFastEqualsWalk: the lod-based ancestor chain and click
// lookup agree with the plain walk over siblings, zone by zone.
func TestZoneAncestryFastEqualsWalk(t *testing.T) {
	tr := synthTrace(20000, 2)
	// Zero-length zones take the walk; put some in (on thread 1: thread
	// 0's last zone never ends and so overlaps anything after it).
	b := model.BuilderFor(tr)
	th := b.Thread(101)
	sl := tr.Threads[th].Zones.At(0).SrcLoc
	last := tr.Metadata.LastTime
	b.BeginZone(th, last+10, sl)
	b.BeginZone(th, last+20, sl)
	b.EndZone(th, last+20)
	b.EndZone(th, last+30)
	tr = b.Finish()
	s, err := New(tr)
	if err != nil {
		t.Fatal(err)
	}
	for ti := range tr.Threads {
		zl := &tr.Threads[ti].Zones
		idx := []int{}
		for i := 0; i < zl.Len(); i += 1 + i%7 {
			idx = append(idx, i)
		}
		if ti == th {
			idx = append(idx, zl.Len()-3, zl.Len()-2, zl.Len()-1) // the zones added above
		}
		for _, i := range idx {
			fast, walk := s.ancestors(ti, uint32(i)), walkAncestors(zl, uint32(i))
			if !slices.Equal(fast, walk) {
				t.Fatalf("thread %d zone %d: ancestors %v, the walk says %v", ti, i, fast, walk)
			}
			z := zl.At(i)
			if d := z.Duration(); d >= 2 {
				j, ok := s.zoneAtFast(ti, z.Start()+d/2, len(walk))
				if !ok || j != uint32(i) {
					t.Fatalf("thread %d zone %d (depth %d): zoneat its middle found %d, %v", ti, i, len(walk), j, ok)
				}
			}
		}
	}
}

// TestAPIConcurrent: requests in parallel (the pools, the lazily built
// statistics, find orders and lock states) answer what they answer one at
// a time. Run with -race.
func TestAPIConcurrent(t *testing.T) {
	tr := gpuTrace(t)
	paths := []string{
		"/api/v1/timeline?width=700", "/api/v1/timeline?width=50&format=json", "/api/v1/statistics", "/api/v1/statistics?self=1",
		"/api/v1/find?srcloc=3&sort=-duration&limit=4", "/api/v1/find?srcloc=2&log=1&bins=7", "/api/v1/locks?width=300",
		"/api/v1/zone?thread=0&index=5", "/api/v1/zoneat?thread=0&t=2150&depth=2", "/api/v1/messages?width=9", "/api/v1/plot?id=0&width=4",
		"/api/v1/frames?width=30",
	}
	// One server for the sequential answers, a fresh one for the race, so
	// the lazy state is built under contention.
	seq := newTestServer(t, tr)
	want := map[string]string{}
	for _, p := range paths {
		code, _, b := get(t, seq, p)
		if code != 200 {
			t.Fatalf("%s: %d %s", p, code, b)
		}
		want[p] = string(b)
	}
	par := newTestServer(t, tr)
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(paths))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range paths {
				p := paths[(i+g)%len(paths)]
				resp, err := par.Client().Get(par.URL + p)
				if err != nil {
					errs <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != want[p] {
					errs <- fmt.Sprintf("%s: parallel answer differs", p)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestAPIGzip: a big JSON answer is gzipped for a client that takes it,
// and decompresses to the plain answer; small ones and the binary
// timeline are sent as they are.
func TestAPIGzip(t *testing.T) {
	ts := newTestServer(t, synthTrace(20000, 2))
	fetch := func(path, enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Accept-Encoding", enc)
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	const big = "/api/v1/find?srcloc=1&limit=2000"
	plainResp, plain := fetch(big, "identity")
	zResp, zb := fetch(big, "br, gzip;q=0.8")
	if plainResp.Header.Get("Content-Encoding") != "" || zResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("encodings %q and %q", plainResp.Header.Get("Content-Encoding"), zResp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unz, plain) || len(zb)*2 > len(plain) {
		t.Errorf("gzip: %d bytes to %d, equal %v, err %v", len(plain), len(zb), bytes.Equal(unz, plain), err)
	}
	if r, _ := fetch(big, "gzip;q=0"); r.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 still got gzip")
	}
	for _, p := range []string{"/api/v1/lanes", "/api/v1/timeline?width=2000"} {
		if r, _ := fetch(p, "gzip"); r.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: gzipped", p)
		}
	}
}

func TestAPITraceOptions(t *testing.T) {
	tr := smallTrace(t)
	var r tracereport.Report
	getJSON(t, newTestServer(t, tr, WithName("cap")), "/api/v1/trace", &r)
	if r.File.Name != "cap" || r.Summary == nil || r.Summary.Zones != 19 || r.Summary.LastTime != 13000 {
		t.Errorf("WithName: %+v", r)
	}
	getJSON(t, newTestServer(t, tr, WithReport(&tracereport.Report{File: tracereport.File{Name: "given", Streams: 3}})), "/api/v1/trace", &r)
	if r.File.Name != "given" || r.File.Streams != 3 || r.Summary == nil || r.Summary.Zones != 19 {
		t.Errorf("WithReport without summary: %+v", r)
	}
	rep := &tracefile.Report{Version: 0x000E0000, Compression: "Zstd", Streams: 4, FileBytes: 10, PayloadBytes: 40}
	getJSON(t, newTestServer(t, tr, WithFileInfo("/some/dir/x.tracy", rep)), "/api/v1/trace", &r)
	if r.File.Name != "x.tracy" || r.File.Compression != "Zstd" || r.File.PayloadBytes != 40 {
		t.Errorf("WithFileInfo: %+v", r.File)
	}
	if _, err := New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// TestAPIEmptyTrace: a trace with nothing in it answers every endpoint
// without a 500, with empty lists rather than nulls.
func TestAPIEmptyTrace(t *testing.T) {
	ts := newTestServer(t, model.NewBuilder().Finish())
	for _, c := range []struct {
		path string
		code int
	}{
		{"/api/v1/trace", 200}, {"/api/v1/lanes", 200}, {"/api/v1/srclocs", 200}, {"/api/v1/timeline?width=10&format=json", 200},
		{"/api/v1/timeline?width=10", 200}, {"/api/v1/statistics", 200}, {"/api/v1/find?srcloc=1", 404}, {"/api/v1/zone?thread=0&index=0", 404},
		{"/api/v1/zoneat?thread=0&t=0&depth=0", 404}, {"/api/v1/callstack?id=1", 404}, {"/api/v1/frames?width=10", 200},
		{"/api/v1/plot?id=0&width=10", 404}, {"/api/v1/locks?width=10", 200}, {"/api/v1/messages?width=10", 200},
		{"/api/v1/messagelist", 200}, {"/api/v1/frameimages", 200}, {"/api/v1/frameimage?frame=0", 404}, {"/api/v1/sources", 200},
		{"/api/v1/source?file=a", 404},
	} {
		code, _, body := get(t, ts, c.path)
		// trace is info --json's object, nulls and all.
		if code != c.code || (code == 200 && c.path != "/api/v1/trace" && strings.Contains(string(body), "null")) {
			t.Errorf("GET %s: %d %s, want %d without nulls", c.path, code, body, c.code)
		}
	}
}
