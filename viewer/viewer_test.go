package viewer

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/model"
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
	code, ct, body := get(t, ts, "/api/v1/timeline?t0=0&t1=13000&width=10")
	if code != 200 || ct != "application/octet-stream" || !strings.HasPrefix(string(body), lod.BinaryMagic) {
		t.Errorf("binary: %d %q %q", code, ct, body[:min(8, len(body))])
	}
}
