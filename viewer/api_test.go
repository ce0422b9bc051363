package viewer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
)

// synthTrace makes a deterministic trace of about n zones on threads
// threads: root zones with nested children down to depth 6, long ones
// mixed with bursts of tiny ones, so windows at every zoom both draw and
// merge zones. A few zones carry names; the last root of thread 0 never
// ends.
func synthTrace(n, threads int) *model.Trace {
	b := model.NewBuilder()
	locs := make([]model.SrcLocID, 8)
	for i := range locs {
		locs[i] = b.AddStaticSrcLoc(uint64(i+1), model.SourceLocation{Name: model.IdxRef(b.Intern(fmt.Sprintf("synth_%d", i))),
			File: model.IdxRef(b.Intern("synth.go")), Line: uint32(10 * i), Color: uint32(i * 0x101010)})
	}
	per := n / threads
	for th := 0; th < threads; th++ {
		r := rand.New(rand.NewPCG(uint64(th), 7))
		b.SetThreadName(uint64(100+th), fmt.Sprintf("synth-%d", th))
		ti := b.Thread(uint64(100 + th))
		made := 0
		tm := int64(1000 * th)
		var gen func(depth int, start, end int64)
		gen = func(depth int, start, end int64) {
			idx := b.BeginZone(ti, start, locs[(depth+made)%len(locs)])
			made++
			if made%997 == 0 {
				b.SetZoneName(ti, idx, fmt.Sprintf("named %d", made))
			}
			if depth < 6 && end-start > 40 {
				k := 1 + r.IntN(4)
				if r.IntN(8) == 0 {
					k = 20 + r.IntN(40) // a burst of tiny children
				}
				step := (end - start) / int64(k+1)
				for c := 0; c < k && made < per; c++ {
					cs := start + int64(c)*step + step/4
					gen(depth+1, cs, cs+step/2+int64(r.IntN(int(step/4)+1)))
				}
			}
			b.EndZone(ti, end)
		}
		for made < per {
			d := int64(2000 + r.IntN(200000))
			gen(0, tm, tm+d)
			tm += d + int64(r.IntN(5000))
		}
		if th == 0 {
			b.BeginZone(ti, tm+10, locs[0])
			b.Observe(tm + 1000)
		}
	}
	for f := int64(0); f < 50; f++ {
		b.FrameMark(0, f*1_000_000)
	}
	return b.Finish()
}

// zonesIn counts a lane's zones overlapping [t0, t1] the slow way.
func zonesIn(tr *model.Trace, th int, t0, t1 int64) uint64 {
	var n uint64
	last := tr.Metadata.LastTime
	for _, z := range tr.Threads[th].Zones.All() {
		e := z.End()
		if e < 0 {
			e = max(last, z.Start())
		}
		if z.Start() <= t1 && e >= t0 {
			n++
		}
	}
	return n
}

var loaded struct {
	sync.Mutex
	m map[string]*model.Trace
}

// loadFixture reads a shared fixture once per test binary.
func loadFixture(t testing.TB, name string) *model.Trace {
	t.Helper()
	p := fixtures.Path(t, name)
	loaded.Lock()
	defer loaded.Unlock()
	if tr, ok := loaded.m[p]; ok {
		return tr
	}
	tr, err := tracefile.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.m == nil {
		loaded.m = map[string]*model.Trace{}
	}
	loaded.m[p] = tr
	return tr
}

// checkTimeline fetches a window in both encodings and checks that every
// zone of the window is accounted for, lane by lane, and that the binary
// body says what the JSON says.
func checkTimeline(t *testing.T, ts *httptest.Server, tr *model.Trace, t0, t1 int64, width int) (items int, size int) {
	t.Helper()
	q := fmt.Sprintf("/api/v1/timeline?t0=%d&t1=%d&width=%d", t0, t1, width)
	var js lod.Timeline
	getJSON(t, ts, q+"&format=json", &js)
	code, ct, body := get(t, ts, q)
	if code != 200 || ct != "application/octet-stream" {
		t.Fatalf("%s: %d %s", q, code, ct)
	}
	bin, _, err := decodeBinary(body)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(bin.Lanes) != len(js.Lanes) || len(js.Lanes) != len(tr.Threads) {
		t.Fatalf("%s: %d binary lanes, %d JSON lanes, %d threads", q, len(bin.Lanes), len(js.Lanes), len(tr.Threads))
	}
	for li := range js.Lanes {
		jl, bl := &js.Lanes[li], &bin.Lanes[li]
		var drawn, merged uint64
		for _, it := range jl.Items {
			if it.Merged {
				merged += uint64(it.Count)
			} else {
				drawn++
			}
		}
		want := zonesIn(tr, jl.Thread, t0, t1)
		if drawn+merged != want || jl.Zones != want {
			t.Errorf("%s lane %d: %d drawn + %d merged = %d, lane says %d, the window holds %d", q, li, drawn, merged, drawn+merged, jl.Zones, want)
		}
		if bl.Zones != jl.Zones || len(bl.Items) != len(jl.Items) || bl.Depth != jl.Depth || bl.Thread != jl.Thread {
			t.Fatalf("%s lane %d: binary (%d zones, %d items) != JSON (%d, %d)", q, li, bl.Zones, len(bl.Items), jl.Zones, len(jl.Items))
		}
		for i := range jl.Items {
			a, b := jl.Items[i], bl.Items[i]
			if a.Merged {
				b.SrcLoc = a.SrcLoc // a merged run carries no srcloc on the wire
			}
			if a != b {
				t.Fatalf("%s lane %d item %d: binary %+v, JSON %+v", q, li, i, b, a)
			}
		}
		items += len(jl.Items)
	}
	return items, len(body)
}

func TestAPITimelineAccountsForEveryZone(t *testing.T) {
	tr := synthTrace(60000, 3)
	ts := newTestServer(t, tr)
	last := tr.Metadata.LastTime
	for _, w := range []struct {
		t0, t1 int64
		width  int
	}{
		{0, last, 2000}, {0, last, 50}, {last / 3, last/3 + last/1000, 2000}, {last / 2, last/2 + 5000, 1000},
		{last / 5, last/5 + 200, 3}, {-1000, last + 1000, 16384}, {last - 100, last + 5000, 700},
	} {
		checkTimeline(t, ts, tr, w.t0, w.t1, w.width)
	}
}

func TestAPITimelineFixtures(t *testing.T) {
	for _, name := range []string{"demo.tracy", "heavy1m.tracy"} {
		tr := loadFixture(t, name)
		ts := newTestServer(t, tr)
		last := tr.Metadata.LastTime
		for _, div := range []int64{1, 10, 1000, 100000} {
			checkTimeline(t, ts, tr, last/3, last/3+last/div, 1500)
		}
	}
}

// heavyTrace is n back-to-back tiny zones on one thread, like the
// heavy1m fixture: a zone of 40 ns every 100 ns, a few longer ones.
func heavyTrace(n int) *model.Trace {
	b := model.NewBuilder()
	sl := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("tiny")), File: model.IdxRef(b.Intern("h.go"))})
	th := b.Thread(1)
	for i := 0; i < n; i++ {
		d := int64(40)
		if i%50000 == 0 {
			d = 90
		}
		b.BeginZone(th, int64(i)*100, sl)
		b.EndZone(th, int64(i)*100+d)
	}
	return b.Finish()
}

// TestAPITimelineSizeFollowsPixels: ten times the zones behind the same
// pixels answer about the same bytes, and every answer keeps within what
// its pixels allow (per lane and depth, a drawn item is at least minpx
// wide or a merged run followed by a gap of minpx).
func TestAPITimelineSizeFollowsPixels(t *testing.T) {
	var sizes [2]int
	for i, n := range []int{100_000, 1_000_000} {
		tr := heavyTrace(n)
		ts := newTestServer(t, tr)
		_, sizes[i] = checkTimeline(t, ts, tr, 0, tr.Metadata.LastTime, 2000)
		// The same share of the trace: 0.1%.
		checkTimeline(t, ts, tr, tr.Metadata.LastTime/2, tr.Metadata.LastTime/2+tr.Metadata.LastTime/1000, 2000)
	}
	if sizes[1] > 2*sizes[0]+64 {
		t.Errorf("10x the zones made the full-range answer %d bytes from %d: it must follow the pixels", sizes[1], sizes[0])
	}
	tr := synthTrace(100000, 2)
	ts := newTestServer(t, tr)
	for _, width := range []int{100, 2000} {
		var tl lod.Timeline
		getJSON(t, ts, fmt.Sprintf("/api/v1/timeline?width=%d&format=json", width), &tl)
		for _, l := range tl.Lanes {
			perDepth := map[uint16]int{}
			for _, it := range l.Items {
				perDepth[it.Depth]++
			}
			for d, n := range perDepth {
				if limit := 2*int(float64(width)/tl.MinPx) + 2; n > limit {
					t.Errorf("width %d, thread %d depth %d: %d items, more than the %d its pixels allow", width, l.Thread, d, n, limit)
				}
			}
		}
	}
}

// readCSV reads a tracy-csvexport statistics file.
func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rows[1:]
}

// TestAPIStatisticsEqualsCSV: every row of /api/v1/statistics[?self=1]
// has the numbers of the real csvexport's output for the same file, in
// the same order.
func TestAPIStatisticsEqualsCSV(t *testing.T) {
	names := []string{"demo", "demo-ondemand", "heavy1m"}
	if !race.Enabled && !testing.Short() {
		names = append(names, "heavy10m")
	}
	for _, name := range names {
		tr := loadFixture(t, name+".tracy")
		ts := newTestServer(t, tr)
		for _, self := range []bool{false, true} {
			path, file := "/api/v1/statistics", name+".csv"
			if self {
				path, file = path+"?self=1", name+".self.csv"
			}
			want := readCSV(t, file)
			var got []statRow
			getJSON(t, ts, path, &got)
			if len(got) != len(want) {
				t.Fatalf("%s %s: %d rows, csv has %d", name, path, len(got), len(want))
			}
			for i, g := range got {
				f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
				row := []string{g.Name, g.SrcFile, fmt.Sprint(g.SrcLine), fmt.Sprint(g.TotalNs), f(g.TotalPerc), fmt.Sprint(g.Counts),
					fmt.Sprint(g.MeanNs), fmt.Sprint(g.MinNs), fmt.Sprint(g.MaxNs), f(g.StdNs)}
				if !slices.Equal(row, want[i]) {
					t.Errorf("%s %s row %d:\n got %q\nwant %q", name, path, i, row, want[i])
				}
				if g.MedianNs < g.MinNs || g.MedianNs > g.MaxNs {
					t.Errorf("%s %s row %d: median %d outside %d..%d", name, path, i, g.MedianNs, g.MinNs, g.MaxNs)
				}
			}
		}
	}
}

// TestAPIFindCountsEqualStatistics: for every source location find's
// instance total and histogram add up to the statistics' count, pages
// cover every instance once and come sorted.
func TestAPIFindCountsEqualStatistics(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	var stats []statRow
	getJSON(t, ts, "/api/v1/statistics", &stats)
	for _, st := range stats {
		for _, logBins := range []string{"0", "1"} {
			var a findAnswer
			getJSON(t, ts, fmt.Sprintf("/api/v1/find?srcloc=%d&bins=16&log=%s&limit=10000", st.SrcLoc, logBins), &a)
			var sum uint64
			var tot int64
			for i, c := range a.Counts {
				sum += c
				tot += a.TotalNs[i]
			}
			if uint64(a.Total) != st.Counts || sum != st.Counts || tot != st.TotalNs || a.Min != st.MinNs || a.Max != st.MaxNs {
				t.Errorf("%s log=%s: find total %d, bins %d, %d ns, %d..%d; statistics %d, %d ns, %d..%d", st.Name, logBins,
					a.Total, sum, tot, a.Min, a.Max, st.Counts, st.TotalNs, st.MinNs, st.MaxNs)
			}
			ds := make([]int64, 0, len(a.Instances))
			for _, in := range a.Instances {
				ds = append(ds, in.Duration)
			}
			slices.Sort(ds)
			if len(ds) > 0 && ds[len(ds)/2] != st.MedianNs {
				t.Errorf("%s: median %d, the sorted instances say %d", st.Name, st.MedianNs, ds[len(ds)/2])
			}
			if len(a.Instances) != a.Total || !slices.IsSortedFunc(a.Instances, func(x, y findInstance) int { return cmp64(x.Start, y.Start) }) {
				t.Errorf("%s: %d instances (of %d), sorted by time: %v", st.Name, len(a.Instances), a.Total,
					slices.IsSortedFunc(a.Instances, func(x, y findInstance) int { return cmp64(x.Start, y.Start) }))
			}
		}
	}
	var selfStats []statRow
	getJSON(t, ts, "/api/v1/statistics?self=1", &selfStats)
	for _, st := range selfStats {
		var a findAnswer
		getJSON(t, ts, fmt.Sprintf("/api/v1/find?srcloc=%d&self=1&bins=5&limit=10000", st.SrcLoc), &a)
		var tot int64
		for _, v := range a.TotalNs {
			tot += v
		}
		var inst int64
		for _, in := range a.Instances {
			inst += in.Duration
		}
		if tot != st.TotalNs || inst != st.TotalNs || a.Min != st.MinNs || a.Max != st.MaxNs || uint64(a.Total) != st.Counts {
			t.Errorf("%s self: find %d ns (instances %d), %d..%d, %d; statistics %d ns, %d..%d, %d", st.Name, tot, inst, a.Min, a.Max, a.Total,
				st.TotalNs, st.MinNs, st.MaxNs, st.Counts)
		}
	}
	// Paging by duration, longest first, three at a time.
	id := stats[0].SrcLoc
	var all findAnswer
	getJSON(t, ts, fmt.Sprintf("/api/v1/find?srcloc=%d&sort=-duration&limit=10000", id), &all)
	var paged []findInstance
	for off := 0; off < all.Total; off += 3 {
		var a findAnswer
		getJSON(t, ts, fmt.Sprintf("/api/v1/find?srcloc=%d&sort=-duration&offset=%d&limit=3", id, off), &a)
		paged = append(paged, a.Instances...)
	}
	if !slices.Equal(paged, all.Instances) {
		t.Errorf("pages of 3 differ from the whole list")
	}
	if !slices.IsSortedFunc(all.Instances, func(x, y findInstance) int { return cmp64(y.Duration, x.Duration) }) {
		t.Errorf("sort=-duration is not longest first")
	}
}

// TestAPIZoneWorkerFrame: zone info of the demo's worker_frame zones says
// what the demo program set: ZoneText, ZoneValue, ZoneColor.
func TestAPIZoneWorkerFrame(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	var sls []srcLocJSON
	getJSON(t, ts, "/api/v1/srclocs", &sls)
	id := int16(0)
	for _, sl := range sls {
		if sl.Name == "worker_frame" {
			id = sl.ID
		}
	}
	if id == 0 {
		t.Fatal("no worker_frame source location in demo.tracy")
	}
	var a findAnswer
	getJSON(t, ts, fmt.Sprintf("/api/v1/find?srcloc=%d&limit=10000", id), &a)
	if a.Total != 40 {
		t.Fatalf("%d worker_frame zones, want 40 (20 frames x 2 workers)", a.Total)
	}
	seen := map[string]bool{}
	for _, in := range a.Instances {
		var z zoneInfo
		getJSON(t, ts, fmt.Sprintf("/api/v1/zone?thread=%d&index=%d", in.Thread, in.Index), &z)
		var f, th int
		if _, err := fmt.Sscanf(z.Text, "frame %d thread %d", &f, &th); err != nil {
			t.Fatalf("zone text %q: %v", z.Text, err)
		}
		if z.Text != fmt.Sprintf("frame %d thread %d", f, th) || z.Value == nil || *z.Value != uint64(f*10+th) ||
			z.Color != uint32(0x2080F0+th) || z.Name != "worker_frame" || z.File != "demo.cpp" {
			t.Errorf("zone %d/%d: text %q value %v colour %#x name %q file %q", in.Thread, in.Index, z.Text, z.Value, z.Color, z.Name, z.File)
		}
		if z.Depth != 0 || z.Parent != nil || z.ChildCount != len(z.Children) || z.ChildCount < 10 {
			t.Errorf("zone %q: depth %d parent %v children %d (%d listed)", z.Text, z.Depth, z.Parent, z.ChildCount, len(z.Children))
		}
		if z.Thread.Name != fmt.Sprintf("worker-%d", th) {
			t.Errorf("zone %q on thread %q", z.Text, z.Thread.Name)
		}
		seen[z.Text] = true
		// A child points back at it, and a click inside finds it.
		if len(z.Children) > 0 {
			var c zoneInfo
			getJSON(t, ts, fmt.Sprintf("/api/v1/zone?thread=%d&index=%d", in.Thread, z.Children[0].Index), &c)
			if c.Parent == nil || c.Parent.Index != in.Index || c.Depth != 1 || c.ShareOfParent <= 0 || c.ShareOfParent > 1 {
				t.Errorf("child of %q: parent %v depth %d share %v", z.Text, c.Parent, c.Depth, c.ShareOfParent)
			}
		}
		var at zoneInfo
		getJSON(t, ts, fmt.Sprintf("/api/v1/zoneat?thread=%d&t=%d&depth=0", in.Thread, z.Start+z.Duration/2), &at)
		if at.Index != in.Index {
			t.Errorf("zoneat inside %q found zone %d", z.Text, at.Index)
		}
	}
	if len(seen) != 40 {
		t.Errorf("%d distinct worker_frame texts, want 40", len(seen))
	}
}

func TestAPIZoneSmall(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	var z zoneInfo
	getJSON(t, ts, "/api/v1/zone?thread=0&index=0&children=1", &z)
	// outer [1000, 11000]: children inner [2000,6000] and renamed [7000,9000].
	if z.Name != "outer" || z.Duration != 10000 || z.SelfNs != 10000-4000-2000 || z.ChildCount != 2 || len(z.Children) != 1 ||
		z.Text != "hello" || z.Value != nil || z.Color != 0xFF0000 || z.Parent != nil {
		t.Errorf("outer: %+v", z)
	}
	var r zoneInfo
	getJSON(t, ts, "/api/v1/zoneat?thread=0&t=8000&depth=1", &r)
	if r.Name != "renamed" || r.SrcName != "inner" || r.Color != 0x00FF00 || r.ShareOfParent != 0.2 || r.Parent == nil || r.Parent.Index != 0 {
		t.Errorf("renamed: %+v", r)
	}
	var u zoneInfo
	getJSON(t, ts, "/api/v1/zoneat?thread=1&t=12500&depth=0", &u)
	if !u.Unended || u.End != 13000 {
		t.Errorf("unended zone: %+v", u)
	}
	if code, _, b := get(t, ts, "/api/v1/zoneat?thread=0&t=500&depth=0"); code != 404 {
		t.Errorf("zoneat on empty space: %d %s", code, b)
	}
}

func TestAPILocksSmall(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	var lanes []lockLane
	getJSON(t, ts, "/api/v1/locks?t0=0&t1=13000&width=13000&minpx=1", &lanes)
	if len(lanes) != 1 || len(lanes[0].Threads) != 2 {
		t.Fatalf("lanes %+v", lanes)
	}
	want := [][]lockSpan{
		{{2000, 2100, "wait", 1}, {2100, 2200, "hold", 1}, {2200, 3000, "contended", 1}},
		{{2200, 3000, "wait", 1}, {3000, 3500, "hold", 1}},
	}
	for k, row := range lanes[0].Threads {
		if row.Thread != k || !slices.Equal(row.Spans, want[k]) {
			t.Errorf("lock thread %d (trace thread %d): %+v, want %+v", k, row.Thread, row.Spans, want[k])
		}
	}
	// Zoomed out to 2 px, each thread's states merge into one group.
	getJSON(t, ts, "/api/v1/locks?t0=0&t1=13000&width=2", &lanes)
	for k, row := range lanes[0].Threads {
		if len(row.Spans) != 1 || row.Spans[0].Count != uint32(len(want[k])) {
			t.Errorf("2 px, thread %d: %+v", k, row.Spans)
		}
	}
}

func TestAPIMessagesSmall(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	var lanes []msgLane
	getJSON(t, ts, "/api/v1/messages?t0=0&t1=13000&width=100", &lanes)
	if len(lanes) != 2 || lanes[0].Ticks[0].Time != 3000 || lanes[1].Ticks[0].Time != 8000 || lanes[1].Ticks[0].First != 1 {
		t.Errorf("ticks %+v", lanes)
	}
	var list struct {
		Total    int           `json:"total"`
		Offset   int           `json:"offset"`
		Messages []messageJSON `json:"messages"`
	}
	getJSON(t, ts, "/api/v1/messagelist?filter=WARN", &list)
	if list.Total != 1 || len(list.Messages) != 1 || list.Messages[0].Text != "Warning: slow" || list.Messages[0].Severity != "warning" ||
		list.Messages[0].Color != 0xFF0000 || list.Messages[0].Thread != 1 {
		t.Errorf("filtered list %+v", list)
	}
	getJSON(t, ts, "/api/v1/messagelist?t=5000", &list)
	if list.Total != 2 || list.Offset != 1 || len(list.Messages) != 1 || list.Messages[0].Time != 8000 {
		t.Errorf("list from t=5000: %+v", list)
	}
}

func TestAPIMessagesFixture(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	var lanes []msgLane
	last := tr.Metadata.LastTime
	getJSON(t, ts, fmt.Sprintf("/api/v1/messages?t0=0&t1=%d&width=300", last), &lanes)
	n := 0
	for _, l := range lanes {
		for _, tk := range l.Ticks {
			n += int(tk.Count)
		}
	}
	if n != len(tr.Messages) {
		t.Errorf("ticks stand for %d messages, the trace has %d", n, len(tr.Messages))
	}
	var list struct {
		Total int `json:"total"`
	}
	getJSON(t, ts, "/api/v1/messagelist?filter=literal%20message&limit=0", &list)
	if list.Total != 40 {
		t.Errorf("%d messages matching \"literal message\", want 40 (2 workers x 20 frames)", list.Total)
	}
}

func TestAPIFramesAndPlots(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	last := tr.Metadata.LastTime
	var fr struct {
		Frames []frameBar `json:"frames"`
	}
	for _, w := range []int{5, 100, 5000} {
		getJSON(t, ts, fmt.Sprintf("/api/v1/frames?t0=0&t1=%d&width=%d", last, w), &fr)
		n := 0
		for _, b := range fr.Frames {
			n += int(b.Count)
			if b.LongestNs <= 0 {
				t.Errorf("width %d: bar %+v has no height", w, b)
			}
		}
		if n != len(tr.FrameSets[0].Frames) {
			t.Errorf("width %d: bars stand for %d frames, the set has %d", w, n, len(tr.FrameSets[0].Frames))
		}
	}
	var lanes lanesAnswer
	getJSON(t, ts, "/api/v1/lanes", &lanes)
	for _, p := range lanes.Plots {
		var pl struct {
			Buckets []lod.Bucket `json:"buckets"`
		}
		getJSON(t, ts, fmt.Sprintf("/api/v1/plot?id=%d&t0=0&t1=%d&width=50", p.Index, last+1), &pl)
		n := 0
		for _, b := range pl.Buckets {
			n += int(b.Count)
			if b.Min < p.Min || b.Max > p.Max {
				t.Errorf("plot %q bucket %+v outside %v..%v", p.Name, b, p.Min, p.Max)
			}
		}
		if n != p.Count || len(pl.Buckets) > 50 {
			t.Errorf("plot %q: %d buckets hold %d points, want %d in at most 50", p.Name, len(pl.Buckets), n, p.Count)
		}
	}
	if len(lanes.Plots) < 5 {
		t.Errorf("%d plots, want the demo's 3 user plots, 2 memory plots and CPU usage", len(lanes.Plots))
	}
}

func TestAPIFrameImageFixture(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	var list []frameImageJSON
	getJSON(t, ts, "/api/v1/frameimages", &list)
	if len(list) != 20 {
		t.Fatalf("%d frame images, want 20", len(list))
	}
	code, ct, body := get(t, ts, fmt.Sprintf("/api/v1/frameimage?frame=%d", list[3].Frame))
	if code != 200 || ct != "image/png" {
		t.Fatalf("frameimage: %d %s %s", code, ct, body)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 180 {
		t.Errorf("PNG is %v, want 320x180", b)
	}
}

// TestAPIFrameImageBuilt: an image stored through the texture encoder
// comes back as a PNG of its size and, within BC1's loss, its colours.
func TestAPIFrameImageBuilt(t *testing.T) {
	b := model.NewBuilder()
	const w, h = 64, 32
	rgba := make([]byte, w*h*4)
	for i := 0; i < w*h; i++ {
		rgba[4*i], rgba[4*i+1], rgba[4*i+2], rgba[4*i+3] = 200, 40, 90, 255
	}
	dxt, err := texture.AppendDXT1(nil, rgba, w, h, false)
	if err != nil {
		t.Fatal(err)
	}
	texture.FixOrder(dxt) // the client's index order to standard BC1, as the capture does
	b.FrameMark(0, 100)
	b.FrameMark(0, 200)
	b.AddFrameImage(model.FrameImage{W: w, H: h, Data: dxt}, 1)
	b.Observe(300)
	ts := newTestServer(t, b.Finish())
	if code, _, _ := get(t, ts, "/api/v1/frameimage?frame=0"); code != 404 {
		t.Errorf("frame without image: %d, want 404", code)
	}
	code, ct, body := get(t, ts, "/api/v1/frameimage?frame=1")
	if code != 200 || ct != "image/png" {
		t.Fatalf("frameimage: %d %s %s", code, ct, body)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if bd := img.Bounds(); bd.Dx() != w || bd.Dy() != h {
		t.Fatalf("PNG is %v, want %dx%d", bd, w, h)
	}
	r, g, bl, _ := img.At(10, 10).RGBA()
	if d := absDiff(r>>8, 200) + absDiff(g>>8, 40) + absDiff(bl>>8, 90); d > 24 {
		t.Errorf("pixel is %d,%d,%d, want about 200,40,90", r>>8, g>>8, bl>>8)
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestAPISourceNeverReadsDisk: a file the trace does not hold is a 404
// even when it exists on disk, and a file it holds is served from the
// trace even when the disk says otherwise.
func TestAPISourceNeverReadsDisk(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "real.go")
	if err := os.WriteFile(onDisk, []byte("package disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := smallTrace(t)
	tr.SourceCache = []model.SourceFile{{Name: onDisk, Data: []byte("package cache\n")}}
	ts := newTestServer(t, tr)
	code, ct, body := get(t, ts, "/api/v1/source?file="+onDisk)
	if code != 200 || string(body) != "package cache\n" || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("cached file: %d %q %q", code, ct, body)
	}
	for _, f := range []string{self, "/etc/passwd", "../../../../etc/passwd", dir + "/x/../real.go", onDisk + " ", "file:///etc/passwd"} {
		code, _, body := get(t, ts, "/api/v1/source?file="+url.QueryEscape(f))
		if code != 404 || bytes.Contains(body, []byte("package")) || bytes.Contains(body, []byte("root:")) {
			t.Errorf("source %s: %d %s, want 404 without the file's contents", f, code, body)
		}
	}
	var list []struct {
		File  string `json:"file"`
		Bytes int    `json:"bytes"`
	}
	getJSON(t, ts, "/api/v1/sources", &list)
	if len(list) != 1 || list[0].File != onDisk || list[0].Bytes != 14 {
		t.Errorf("sources %+v", list)
	}
}

// TestAPIBadParameters: every malformed request is a 400 whose body is
// one JSON sentence; unknown paths are 404s; nothing panics.
func TestAPIBadParameters(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	for _, path := range []string{
		"/api/v1/timeline", // width is required
		"/api/v1/timeline?width=abc",
		"/api/v1/timeline?width=0",
		"/api/v1/timeline?width=100000",
		"/api/v1/timeline?width=100&t0=500&t1=100",
		"/api/v1/timeline?width=100&t0=5&t1=5",
		"/api/v1/timeline?width=100&t0=1e3",
		"/api/v1/timeline?width=100&t1=99999999999999999999",
		"/api/v1/timeline?width=100&minpx=-1",
		"/api/v1/timeline?width=100&minpx=NaN",
		"/api/v1/timeline?width=100&minpx=200",
		"/api/v1/timeline?width=100&format=xml",
		"/api/v1/timeline?width=100&widht=5",
		"/api/v1/timeline?width=100&width=200",
		"/api/v1/timeline?width=100&t0=%zz",
		"/api/v1/timeline?width=100;t0=5",
		"/api/v1/trace?x=1",
		"/api/v1/statistics?self=maybe",
		"/api/v1/find",
		"/api/v1/find?srcloc=1&bins=0",
		"/api/v1/find?srcloc=1&sort=name",
		"/api/v1/find?srcloc=1&limit=-1",
		"/api/v1/find?srcloc=40000",
		"/api/v1/zone?thread=5&index=0",
		"/api/v1/zone?thread=0&index=13",
		"/api/v1/zone?thread=0",
		"/api/v1/zone?thread=-1&index=0",
		"/api/v1/zone?gpu=0:0&index=0",
		"/api/v1/zone?gpu=x&index=0",
		"/api/v1/zoneat?thread=0&t=100",
		"/api/v1/callstack?id=x",
		"/api/v1/frames?width=10&set=3",
		"/api/v1/plot?id=9&width=10",
		"/api/v1/plot?width=10",
		"/api/v1/locks?t0=0",
		"/api/v1/messages?width=10&t1=-5",
		"/api/v1/messagelist?limit=100000",
		"/api/v1/messagelist?t=10&offset=1",
		"/api/v1/frameimage",
		"/api/v1/frameimage?frame=1&image=1",
		"/api/v1/frameimage?frame=99",
		"/api/v1/source",
		"/api/v1/source?file=" + strings.Repeat("a", 5000),
	} {
		code, ct, body := get(t, ts, path)
		var e struct {
			Error string `json:"error"`
		}
		err := json.Unmarshal(body, &e)
		if code != http.StatusBadRequest || ct != "application/json" || err != nil || e.Error == "" ||
			strings.Contains(strings.TrimSuffix(e.Error, "."), ". ") || strings.Contains(e.Error, "\n") || strings.HasPrefix(e.Error, "lod:") {
			t.Errorf("GET %s: %d %s %s, want 400 with one sentence", path, code, ct, body)
		}
	}
	for _, path := range []string{"/api/v1/nope", "/api/v2/trace", "/api/v1/find?srcloc=77"} {
		if code, ct, body := get(t, ts, path); code != 404 || ct != "application/json" {
			t.Errorf("GET %s: %d %s %s, want a JSON 404", path, code, ct, body)
		}
	}
	resp, err := ts.Client().Post(ts.URL+"/api/v1/trace", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	resp, err = ts.Client().Get(ts.URL + "/api/v1/lanes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("API Cache-Control %q, want no-store", cc)
	}
}

func TestAPIIndexListsEveryEndpoint(t *testing.T) {
	ts := newTestServer(t, smallTrace(t))
	var idx struct {
		Endpoints []string `json:"endpoints"`
	}
	getJSON(t, ts, "/api/v1/", &idx)
	doc, err := os.ReadFile("../docs/viewer-api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range idx.Endpoints {
		code, _, _ := get(t, ts, "/api/v1/"+e)
		if code == 404 {
			t.Errorf("endpoint %s listed but not served", e)
		}
		if !bytes.Contains(doc, []byte("GET /api/v1/"+e)) {
			t.Errorf("endpoint %s is not documented in docs/viewer-api.md", e)
		}
	}
}

// TestAPIStatisticsEqualsWriteCSV: without fixtures, the statistics of a
// built trace equal what `gotracy csv` (analysis.WriteCSV) prints for it,
// with and without self times.
func TestAPIStatisticsEqualsWriteCSV(t *testing.T) {
	for _, tr := range []*model.Trace{gpuTrace(t), synthTrace(30000, 3)} {
		ts := newTestServer(t, tr)
		for _, self := range []bool{false, true} {
			var buf bytes.Buffer
			if err := analysis.WriteCSV(&buf, tr, analysis.CSVOptions{SelfTime: self}); err != nil {
				t.Fatal(err)
			}
			want, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			want = want[1:]
			path := "/api/v1/statistics"
			if self {
				path += "?self=1"
			}
			var got []statRow
			getJSON(t, ts, path, &got)
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%s: %d rows, csv has %d", path, len(got), len(want))
			}
			for i, g := range got {
				f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
				row := []string{g.Name, g.SrcFile, fmt.Sprint(g.SrcLine), fmt.Sprint(g.TotalNs), f(g.TotalPerc), fmt.Sprint(g.Counts),
					fmt.Sprint(g.MeanNs), fmt.Sprint(g.MinNs), fmt.Sprint(g.MaxNs), f(g.StdNs)}
				if !slices.Equal(row, want[i]) {
					t.Errorf("%s row %d:\n got %q\nwant %q", path, i, row, want[i])
				}
			}
		}
	}
}

// TestFindBinsMatchEdges: every value lands in the bin whose edges hold
// it (up to float rounding at an edge), on both scales.
func TestFindBinsMatchEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, logBins := range []bool{false, true} {
		for _, c := range []struct{ lo, hi int64 }{{10, 3621792}, {1, 2}, {5, 5}, {0, 100}} {
			d := []int64{c.lo, c.hi}
			for range 2000 {
				d = append(d, c.lo+r.Int64N(c.hi-c.lo+1))
			}
			h := (&Server{}).findHistogram(&statsCache{hists: map[histKey]*histogram{}}, histKey{0, false, 37, logBins}, func() []int64 { return d })
			lo, hi := float64(c.lo), float64(c.hi)
			if logBins {
				lo = max(lo, 1)
				hi = max(hi, lo)
			}
			bn := newBinner(lo, hi, 37, logBins)
			var n uint64
			for _, v := range d {
				b := bn.bin(float64(v))
				fv := max(float64(v), lo)
				if hi > lo && (fv < h.edges[b]*(1-1e-9) || fv > h.edges[b+1]*(1+1e-9)) {
					t.Errorf("log=%v %d..%d: %d in bin %d [%v, %v]", logBins, c.lo, c.hi, v, b, h.edges[b], h.edges[b+1])
				}
			}
			for _, k := range h.counts {
				n += k
			}
			if n != uint64(len(d)) || h.min != c.lo || h.max != c.hi {
				t.Errorf("log=%v %d..%d: %d counted of %d, range %d..%d", logBins, c.lo, c.hi, n, len(d), h.min, h.max)
			}
		}
	}
}
