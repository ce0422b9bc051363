package viewer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer"
)

// handLoc is one source location's figures counted straight from the
// model's zones (sorting for the median), not through package analysis.
type handLoc struct {
	name, file string
	line       uint32
	count      uint64
	total      int64
	mean       int64
	median     int64
	min, max   int64
}

func handStats(t *model.Trace) map[model.SrcLocID]*handLoc {
	durs := map[model.SrcLocID][]int64{}
	for ti := range t.Threads {
		zl := &t.Threads[ti].Zones
		for i := 0; i < zl.Len(); i++ {
			z := zl.At(i)
			if z.End() >= 0 && z.End() > z.Start() {
				durs[z.SrcLoc] = append(durs[z.SrcLoc], z.End()-z.Start())
			}
		}
	}
	out := map[model.SrcLocID]*handLoc{}
	for id, d := range durs {
		slices.Sort(d)
		sl, _ := t.SrcLoc(id)
		h := &handLoc{name: t.RefString(sl.Function), file: t.RefString(sl.File), line: sl.Line, count: uint64(len(d)), median: d[len(d)/2], min: d[0], max: d[len(d)-1]}
		if sl.Name.Flags&model.RefActive != 0 {
			h.name = t.RefString(sl.Name)
		}
		for _, v := range d {
			h.total += v
		}
		h.mean = h.total / int64(len(d))
		out[id] = h
	}
	return out
}

func newCompareServer(t *testing.T, a, b *model.Trace, names ...string) *viewer.Compare {
	t.Helper()
	if len(names) < 2 {
		names = []string{"before.tracy", "after.tracy"}
	}
	sa, err := viewer.New(a, viewer.WithName(names[0]))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := viewer.New(b, viewer.WithName(names[1]))
	if err != nil {
		t.Fatal(err)
	}
	c, err := viewer.NewCompare(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t *testing.T, h http.Handler, url string) (int, http.Header, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, rec.Header(), b
}

type cmpSide struct {
	SrcLoc int16  `json:"srcloc"`
	Name   string `json:"name"`
	File   string `json:"src_file"`
	Line   uint32 `json:"src_line"`
	Count  uint64 `json:"counts"`
	Total  int64  `json:"total_ns"`
	Mean   int64  `json:"mean_ns"`
	Median int64  `json:"median_ns"`
	Min    int64  `json:"min_ns"`
	Max    int64  `json:"max_ns"`
}

type cmpRow struct {
	Name      string   `json:"name"`
	A         *cmpSide `json:"a"`
	B         *cmpSide `json:"b"`
	MatchedBy string   `json:"matched_by"`
	MeanDiff  *int64   `json:"mean_diff_ns"`
	MeanRatio *float64 `json:"mean_ratio"`
}

func checkHandSide(t *testing.T, what string, s *cmpSide, hand map[model.SrcLocID]*handLoc) {
	t.Helper()
	h := hand[model.SrcLocID(s.SrcLoc)]
	if h == nil {
		t.Errorf("%s: location %d has no counted zones", what, s.SrcLoc)
		return
	}
	got := []int64{int64(s.Count), s.Total, s.Mean, s.Median, s.Min, s.Max}
	want := []int64{int64(h.count), h.total, h.mean, h.median, h.min, h.max}
	if !slices.Equal(got, want) || s.Name != h.name || s.File != h.file || s.Line != h.line {
		t.Errorf("%s %s: %v %s:%d, by hand %v %s %s:%d", what, s.Name, got, s.File, s.Line, want, h.name, h.file, h.line)
	}
}

func TestCompareAPI(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := newCompareServer(t, a, b)
	h := c.Handler()
	ha, hb := handStats(a), handStats(b)

	for _, match := range []string{"", "file", "name"} {
		url := "/api/v1/compare"
		if match != "" {
			url += "?match=" + match
		}
		code, _, body := get(t, h, url)
		if code != 200 {
			t.Fatalf("%s: %d %s", url, code, body)
		}
		var ans struct {
			A     struct{ Name string } `json:"a"`
			Match string                `json:"match"`
			Rows  []cmpRow              `json:"rows"`
		}
		if err := json.Unmarshal(body, &ans); err != nil {
			t.Fatal(err)
		}
		if ans.A.Name != "before.tracy" || len(ans.Rows) != 8 {
			t.Errorf("%s: a %q, %d rows", url, ans.A.Name, len(ans.Rows))
		}
		seenA, seenB := 0, 0
		for _, r := range ans.Rows {
			if r.A != nil {
				checkHandSide(t, "A", r.A, ha)
				seenA++
			}
			if r.B != nil {
				checkHandSide(t, "B", r.B, hb)
				seenB++
			}
			if r.A != nil && r.B != nil {
				if r.A.Name != r.B.Name {
					t.Errorf("paired %s with %s", r.A.Name, r.B.Name)
				}
				if r.MeanRatio == nil || *r.MeanRatio != float64(r.B.Mean)/float64(r.A.Mean) || *r.MeanDiff != r.B.Mean-r.A.Mean {
					t.Errorf("%s: ratio/diff wrong", r.Name)
				}
			} else if r.MeanRatio != nil || r.MatchedBy != "" {
				t.Errorf("%s: unpaired row with a ratio or a match", r.Name)
			}
		}
		if seenA != len(ha) || seenB != len(hb) {
			t.Errorf("%s: %d/%d locations of A, %d/%d of B", url, seenA, len(ha), seenB, len(hb))
		}
	}

	// The histogram of update holds every zone of both traces.
	var ida, idb int16 = -1, -1
	for id, l := range ha {
		if l.name == "update" {
			ida = int16(id)
		}
	}
	for id, l := range hb {
		if l.name == "update" {
			idb = int16(id)
		}
	}
	for _, q := range []string{"", "&log=1"} {
		code, _, body := get(t, h, "/api/v1/comparehist?bins=30&a="+itoa(ida)+"&b="+itoa(idb)+q)
		if code != 200 {
			t.Fatalf("comparehist: %d %s", code, body)
		}
		var hist struct {
			CountsA []uint64 `json:"counts_a"`
			CountsB []uint64 `json:"counts_b"`
			Min     int64    `json:"min_ns"`
			Max     int64    `json:"max_ns"`
		}
		if err := json.Unmarshal(body, &hist); err != nil {
			t.Fatal(err)
		}
		var na, nb uint64
		for i := range hist.CountsA {
			na += hist.CountsA[i]
			nb += hist.CountsB[i]
		}
		la, lb := ha[model.SrcLocID(ida)], hb[model.SrcLocID(idb)]
		if len(hist.CountsA) != 30 || na != la.count || nb != lb.count || hist.Min != min(la.min, lb.min) || hist.Max != max(la.max, lb.max) {
			t.Errorf("comparehist%s: %d bins, %d+%d zones in %d..%d; want 30, %d+%d in %d..%d", q, len(hist.CountsA), na, nb, hist.Min, hist.Max,
				la.count, lb.count, min(la.min, lb.min), max(la.max, lb.max))
		}
	}

	// Each trace's own viewer, unchanged, under a/ and b/.
	single, _ := viewer.New(a, viewer.WithName("before.tracy"))
	_, _, want := get(t, single.Handler(), "/api/v1/statistics")
	if code, _, got := get(t, h, "/a/api/v1/statistics"); code != 200 || string(got) != string(want) {
		t.Errorf("/a/api/v1/statistics: %d, differs from the single-trace server's", code)
	}
	if code, _, got := get(t, h, "/b/api/v1/trace"); code != 200 || !strings.Contains(string(got), `"after.tracy"`) {
		t.Errorf("/b/api/v1/trace: %d %s", code, got)
	}
	if code, hdr, body := get(t, h, "/a/"); code != 200 || !strings.Contains(string(body), "js/main.js") || hdr.Get("Content-Security-Policy") == "" {
		t.Errorf("/a/: %d, not the single-trace page", code)
	}
	if code, hdr, body := get(t, h, "/"); code != 200 || !strings.Contains(string(body), "js/compare.js") || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("/: %d, not the compare page with its policy", code)
	}
	for url, wantCode := range map[string]int{
		"/api/v1/compare?match=lines":        400,
		"/api/v1/compare?widht=3":            400,
		"/api/v1/compare?sort=speed":         400,
		"/api/v1/comparehist":                400,
		"/api/v1/comparehist?a=12345":        404,
		"/api/v1/comparehist?a=1&bins=0":     400,
		"/api/v1/comparehist?a=x":            400,
		"/api/v1/timeline":                   404,
		"/index.html":                        302,
		"/a":                                 301,
		"/api/v1/compare?sort=ratio&desc=1":  200,
		"/api/v1/compare?filter=tick&case=1": 200,
	} {
		if code, _, body := get(t, h, url); code != wantCode {
			t.Errorf("%s: %d, want %d (%s)", url, code, wantCode, body)
		}
	}
	// Frame sets: Frame and render pass in both, gc in B only; each
	// side's count and total counted by hand from the model's frames.
	code, _, body := get(t, h, "/api/v1/compare?kind=frames")
	if code != 200 {
		t.Fatalf("kind=frames: %d %s", code, body)
	}
	var fr struct {
		Kind string   `json:"kind"`
		Rows []cmpRow `json:"rows"`
	}
	if err := json.Unmarshal(body, &fr); err != nil {
		t.Fatal(err)
	}
	handFrames := func(tr *model.Trace, fs int16) (n uint64, total int64) {
		set := &tr.FrameSets[fs]
		for i, f := range set.Frames {
			switch {
			case !set.Continuous:
				total += f.End - f.Start
			case i+1 < len(set.Frames):
				total += set.Frames[i+1].Start - f.Start
			default:
				continue // still running at the end
			}
			n++
		}
		return n, total
	}
	if fr.Kind != "frames" || len(fr.Rows) != 3 {
		t.Errorf("kind=frames: %q, %d rows", fr.Kind, len(fr.Rows))
	}
	for _, r := range fr.Rows {
		for _, side := range []struct {
			s  *cmpSide
			tr *model.Trace
			ab string
		}{{r.A, a, "a"}, {r.B, b, "b"}} {
			if side.s == nil {
				continue
			}
			n, total := handFrames(side.tr, side.s.SrcLoc)
			if side.s.Count != n || side.s.Total != total {
				t.Errorf("frames %s (%s): %d frames, %d ns; by hand %d, %d", r.Name, side.ab, side.s.Count, side.s.Total, n, total)
			}
			if code, _, body := get(t, h, "/api/v1/comparehist?kind=frames&"+side.ab+"="+itoa(side.s.SrcLoc)); code != 200 || !strings.Contains(string(body), `"zones_`+side.ab+`":`+strconv.FormatUint(n, 10)) {
				t.Errorf("comparehist of frame set %s: %d %s", r.Name, code, body)
			}
		}
	}
	if code, _, _ := get(t, h, "/api/v1/comparehist?kind=frames&a=9"); code != 404 {
		t.Errorf("a frame set A lacks: %d, want 404", code)
	}
	if _, _, body := get(t, h, "/api/v1/compare?filter=TICK"); strings.Count(string(body), `"name":"tick"`) != 6 /* row, A, B; two rows */ {
		t.Errorf("filter TICK: %s", body)
	}
}

func itoa(v int16) string {
	b, _ := json.Marshal(v)
	return string(b)
}
