package analysis_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// byHand is one location's figures counted straight from the model's
// zones, sorting the durations for the median: no analysis code involved.
type byHand struct {
	count       uint64
	total, mean int64
	median      int64
	durs        []int64
}

func handKey(t *model.Trace, id model.SrcLocID) string {
	sl, _ := t.SrcLoc(id)
	name := "???"
	if sl.Name.Flags&model.RefActive != 0 {
		name = t.RefString(sl.Name)
	} else if sl.Function.Flags&model.RefActive != 0 {
		name = t.RefString(sl.Function)
	}
	file := "???"
	if sl.File.Flags&model.RefActive != 0 {
		file = t.RefString(sl.File)
	}
	return fmt.Sprintf("%s %s:%d", name, file, sl.Line)
}

func countByHand(t *model.Trace) map[string]*byHand {
	m := map[string]*byHand{}
	for ti := range t.Threads {
		zl := &t.Threads[ti].Zones
		for i := 0; i < zl.Len(); i++ {
			z := zl.At(i)
			if z.End() < 0 || z.End() <= z.Start() {
				continue
			}
			k := handKey(t, z.SrcLoc)
			h := m[k]
			if h == nil {
				h = &byHand{}
				m[k] = h
			}
			h.durs = append(h.durs, z.End()-z.Start())
		}
	}
	for _, h := range m {
		slices.Sort(h.durs)
		h.count = uint64(len(h.durs))
		for _, d := range h.durs {
			h.total += d
		}
		h.mean = h.total / int64(h.count)
		h.median = h.durs[len(h.durs)/2]
	}
	return m
}

func sideKey(s *analysis.CompareSide) string { return fmt.Sprintf("%s %s:%d", s.Name, s.File, s.Line) }

func checkSide(t *testing.T, what string, s *analysis.CompareSide, hand map[string]*byHand) {
	t.Helper()
	h := hand[sideKey(s)]
	if h == nil {
		t.Errorf("%s: %s is not a location with counted zones", what, sideKey(s))
		return
	}
	if s.Count != h.count || s.Total != h.total || s.Mean != h.mean || s.Median != h.median || s.Min != h.durs[0] || s.Max != h.durs[len(h.durs)-1] {
		t.Errorf("%s %s: count %d total %d mean %d median %d min %d max %d; by hand %d %d %d %d %d %d", what, sideKey(s),
			s.Count, s.Total, s.Mean, s.Median, s.Min, s.Max, h.count, h.total, h.mean, h.median, h.durs[0], h.durs[len(h.durs)-1])
	}
}

// checkAgainstModel holds every figure of c to the hand count and checks
// each location of either trace appears exactly once.
func checkAgainstModel(t *testing.T, a, b *model.Trace, c *analysis.Comparison) {
	t.Helper()
	ha, hb := countByHand(a), countByHand(b)
	seenA, seenB := map[string]int{}, map[string]int{}
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.A != nil {
			checkSide(t, "A", r.A, ha)
			seenA[sideKey(r.A)]++
		}
		if r.B != nil {
			checkSide(t, "B", r.B, hb)
			seenB[sideKey(r.B)]++
		}
	}
	for k := range ha {
		if seenA[k] != 1 {
			t.Errorf("A's %s is in %d rows, want 1", k, seenA[k])
		}
	}
	for k := range hb {
		if seenB[k] != 1 {
			t.Errorf("B's %s is in %d rows, want 1", k, seenB[k])
		}
	}
}

func rowsByName(c *analysis.Comparison) map[string][]*analysis.CompareRow {
	m := map[string][]*analysis.CompareRow{}
	for i := range c.Rows {
		m[c.Rows[i].Name] = append(m[c.Rows[i].Name], &c.Rows[i])
	}
	return m
}

func TestCompareSyntheticPair(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := analysis.Compare(a, b, analysis.CompareOptions{})
	checkAgainstModel(t, a, b, c)
	m := rowsByName(c)
	want := map[string][]string{ // name -> how each of its rows is paired
		"update": {"line"}, "render": {"file"}, "physics": {"name"}, "tick": {"line", "line"},
		"fast": {"line"}, "load": {""}, "net": {""},
	}
	for name, hows := range want {
		rows := m[name]
		if len(rows) != len(hows) {
			t.Errorf("%s: %d rows, want %d", name, len(rows), len(hows))
			continue
		}
		for i, r := range rows {
			if r.MatchedBy != hows[i] {
				t.Errorf("%s row %d matched by %q, want %q", name, i, r.MatchedBy, hows[i])
			}
			if hows[i] == "line" && r.A.Line != r.B.Line {
				t.Errorf("%s paired line %d with line %d", name, r.A.Line, r.B.Line)
			}
		}
	}
	if len(c.Rows) != 8 {
		t.Errorf("%d rows, want 8", len(c.Rows))
	}
	if r := m["load"][0]; r.A == nil || r.B != nil {
		t.Errorf("load should be A's only: %+v", r)
	}
	if r := m["net"][0]; r.A != nil || r.B == nil {
		t.Errorf("net should be B's only: %+v", r)
	}
	// The shapes the pair was built with: update slower by about 18%,
	// fast faster by about 40%.
	if q := m["update"][0].MeanRatio(); q < 1.1 || q > 1.25 {
		t.Errorf("update's ratio %.3f, built to be about 1.18", q)
	}
	if q := m["fast"][0].MeanRatio(); q < 0.5 || q > 0.7 {
		t.Errorf("fast's ratio %.3f, built to be about 0.6", q)
	}
	if !math.IsNaN(m["load"][0].MeanRatio()) {
		t.Errorf("an unmatched row has a ratio")
	}

	// Ignoring lines pairs render by file and still pairs the two ticks
	// in order; names only pair everything by name.
	cf := analysis.Compare(a, b, analysis.CompareOptions{Match: analysis.MatchFile})
	mf := rowsByName(cf)
	if mf["update"][0].MatchedBy != "file" || mf["physics"][0].MatchedBy != "name" || mf["tick"][0].A.Line != mf["tick"][0].B.Line {
		t.Errorf("--match file: update %q, physics %q, tick %d-%d", mf["update"][0].MatchedBy, mf["physics"][0].MatchedBy, mf["tick"][0].A.Line, mf["tick"][0].B.Line)
	}
	cn := analysis.Compare(a, b, analysis.CompareOptions{Match: analysis.MatchName})
	for _, r := range cn.Rows {
		if r.Matched() && r.MatchedBy != "name" {
			t.Errorf("--match name paired %s by %q", r.Name, r.MatchedBy)
		}
	}
	checkAgainstModel(t, a, b, cn)

	// The filter keeps names containing it, ASCII case folded unless
	// case-sensitive.
	cu := analysis.Compare(a, b, analysis.CompareOptions{Filter: "TiCk"})
	if len(cu.Rows) != 2 || cu.Rows[0].Name != "tick" {
		t.Errorf("filter TiCk kept %d rows", len(cu.Rows))
	}
	if cs := analysis.Compare(a, b, analysis.CompareOptions{Filter: "TiCk", CaseSensitive: true}); len(cs.Rows) != 0 {
		t.Errorf("case-sensitive filter TiCk kept %d rows", len(cs.Rows))
	}
}

func TestCompareSlowerThanIsExact(t *testing.T) {
	row := func(a, b int64, n uint64) analysis.CompareRow {
		return analysis.CompareRow{A: &analysis.CompareSide{Mean: a, Count: n}, B: &analysis.CompareSide{Mean: b, Count: n}}
	}
	for _, c := range []struct {
		a, b int64
		pct  float64
		n    uint64
		want bool
	}{
		{1000, 1100, 10, 5, false}, // exactly 10%: not more than
		{1000, 1101, 10, 5, true},
		{1000, 900, 0, 5, false},
		{1000, 1001, 0, 5, true},
		{1000, 2000, 10, 2, false}, // too few zones for minCount 3
		{0, 5, 10, 5, true},
		{0, 0, 0, 5, false},
	} {
		r := row(c.a, c.b, c.n)
		if got := r.SlowerThan(c.pct, 3); got != c.want {
			t.Errorf("%d -> %d, %g%%, %d zones: %v, want %v", c.a, c.b, c.pct, c.n, got, c.want)
		}
	}
	if (&analysis.CompareRow{A: &analysis.CompareSide{Mean: 1, Count: 9}}).SlowerThan(0, 0) {
		t.Errorf("a row of A only counted as slower")
	}
}

func TestSortCompareRows(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := analysis.Compare(a, b, analysis.CompareOptions{})
	if err := analysis.SortCompareRows(c.Rows, "ratio", true); err != nil {
		t.Fatal(err)
	}
	if c.Rows[0].Name != "update" && c.Rows[0].Name != "tick" && c.Rows[0].Name != "render" {
		t.Errorf("slowest first: got %s", c.Rows[0].Name)
	}
	last := c.Rows[len(c.Rows)-2:]
	for _, r := range last {
		if r.Matched() {
			t.Errorf("unmatched rows go last, found %s", r.Name)
		}
	}
	for i := 1; i < len(c.Rows)-2; i++ {
		if c.Rows[i-1].MeanRatio() < c.Rows[i].MeanRatio() {
			t.Errorf("ratio order broken at %d", i)
		}
	}
	for _, k := range analysis.CompareSortKeys {
		if err := analysis.SortCompareRows(c.Rows, k, false); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := analysis.SortCompareRows(c.Rows, "nope", false); err == nil {
		t.Errorf("an unknown key sorted")
	}
}

func TestCompareHist(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := analysis.Compare(a, b, analysis.CompareOptions{})
	for _, r := range c.Rows {
		var da, db []int64
		if r.A != nil {
			da = analysis.Durations(a, r.A.SrcLoc)
		}
		if r.B != nil {
			db = analysis.Durations(b, r.B.SrcLoc)
		}
		for _, logTime := range []bool{false, true} {
			h := analysis.CompareHist(da, db, 50, logTime)
			var na, nb uint64
			var ta, tb int64
			for i := range h.CountsA {
				na += h.CountsA[i]
				nb += h.CountsB[i]
				ta += h.TimeA[i]
				tb += h.TimeB[i]
				if h.Edges[i+1] < h.Edges[i] {
					t.Errorf("%s: edges not increasing at %d", r.Name, i)
				}
			}
			var wantNA, wantNB uint64
			var wantTA, wantTB int64
			if r.A != nil {
				wantNA, wantTA = r.A.Count, r.A.Total
			}
			if r.B != nil {
				wantNB, wantTB = r.B.Count, r.B.Total
			}
			if na != wantNA || nb != wantNB || ta != wantTA || tb != wantTB {
				t.Errorf("%s log=%v: bins hold %d/%d zones and %d/%d ns, want %d/%d and %d/%d", r.Name, logTime, na, nb, ta, tb, wantNA, wantNB, wantTA, wantTB)
			}
			// Every duration lies in its bin's edges.
			for _, d := range da {
				k := slices.IndexFunc(h.Edges[1:], func(e float64) bool { return float64(d) <= e })
				if k < 0 || h.CountsA[k] == 0 {
					t.Errorf("%s: %d ns has no bin", r.Name, d)
				}
			}
		}
	}
	if h := analysis.CompareHist(nil, nil, 10, true); h.Min != 0 || h.Max != 0 || len(h.CountsA) != 10 {
		t.Errorf("empty histogram: %+v", h)
	}
}

func TestCompareRowJSON(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := analysis.Compare(a, b, analysis.CompareOptions{Filter: "load"})
	out, err := json.Marshal(c.Rows)
	if err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0]["b"] != nil || back[0]["mean_ratio"] != nil || back[0]["mean_diff_ns"] != nil {
		t.Errorf("unmatched row as JSON: %s", out)
	}
}

// On the real fixtures each side equals what tracy-csvexport printed for
// its file (count, total, mean), and every figure the hand count.
func TestCompareFixturesEqualCSV(t *testing.T) {
	pa, pb := fixtures.Path(t, "demo.tracy"), fixtures.Path(t, "demo-ondemand.tracy")
	a, err := tracefile.ReadFile(pa)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tracefile.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	c := analysis.Compare(a, b, analysis.CompareOptions{})
	checkAgainstModel(t, a, b, c)
	csvOf := func(name string) map[string][]string {
		f, err := os.Open(fixtures.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]string{}
		for _, r := range recs[1:] {
			m[r[0]+" "+r[1]+":"+r[2]] = r
		}
		return m
	}
	for _, side := range []struct {
		csv string
		get func(*analysis.CompareRow) *analysis.CompareSide
	}{
		{"demo.csv", func(r *analysis.CompareRow) *analysis.CompareSide { return r.A }},
		{"demo-ondemand.csv", func(r *analysis.CompareRow) *analysis.CompareSide { return r.B }},
	} {
		want := csvOf(side.csv)
		n := 0
		for i := range c.Rows {
			s := side.get(&c.Rows[i])
			if s == nil {
				continue
			}
			n++
			rec := want[sideKey(s)]
			if rec == nil {
				t.Errorf("%s has no row %s", side.csv, sideKey(s))
				continue
			}
			got := []string{strconv.FormatInt(s.Total, 10), strconv.FormatUint(s.Count, 10), strconv.FormatInt(s.Mean, 10),
				strconv.FormatInt(s.Min, 10), strconv.FormatInt(s.Max, 10), strconv.FormatFloat(s.Std, 'f', 6, 64)}
			exp := []string{rec[3], rec[5], rec[6], rec[7], rec[8], rec[9]}
			if !slices.Equal(got, exp) {
				t.Errorf("%s %s: total,count,mean,min,max,std %v, csv %v", side.csv, sideKey(s), got, exp)
			}
		}
		if n != len(want) {
			t.Errorf("%d rows of %s, the csv has %d", n, side.csv, len(want))
		}
	}
	for _, r := range c.Rows {
		if !r.Matched() || r.MatchedBy != "line" {
			t.Errorf("demo vs demo-ondemand: %s paired by %q (the same program: every location should pair by line)", r.Name, r.MatchedBy)
		}
	}
}

// Frame sets: the figures of each set's frame times, counted by hand from
// the model's frames (a continuous set's frame lasts until the next
// starts; the frame still running at the end is left out, as Tracy's
// compare window does).
func TestCompareFramesByHand(t *testing.T) {
	a, b := synthtrace.ComparePair()
	c := analysis.CompareFrames(a, b, analysis.CompareOptions{})
	hand := func(tr *model.Trace, name string) (n uint64, total, median int64) {
		for fs := range tr.FrameSets {
			set := &tr.FrameSets[fs]
			nm := "Frame"
			if set.Name != 0 {
				nm, _ = tr.PtrString(set.Name)
			}
			if nm != name {
				continue
			}
			var d []int64
			for i, f := range set.Frames {
				if set.Continuous {
					if i+1 == len(set.Frames) {
						break
					}
					d = append(d, set.Frames[i+1].Start-f.Start)
				} else {
					d = append(d, f.End-f.Start)
				}
			}
			slices.Sort(d)
			for _, v := range d {
				total += v
			}
			return uint64(len(d)), total, d[len(d)/2]
		}
		return 0, 0, 0
	}
	names := map[string]bool{}
	for _, r := range c.Rows {
		names[r.Name] = true
		for _, side := range []struct {
			s  *analysis.CompareSide
			tr *model.Trace
		}{{r.A, a}, {r.B, b}} {
			if side.s == nil {
				continue
			}
			n, total, median := hand(side.tr, r.Name)
			if side.s.Count != n || side.s.Total != total || side.s.Median != median || side.s.Mean != total/int64(n) {
				t.Errorf("%s: %d frames, total %d, median %d, mean %d; by hand %d, %d, %d", r.Name, side.s.Count, side.s.Total, side.s.Median, side.s.Mean, n, total, median)
			}
		}
	}
	if len(c.Rows) != 3 || !names["Frame"] || !names["render pass"] || !names["gc"] {
		t.Errorf("frame sets compared: %v", names)
	}
	for _, r := range c.Rows {
		switch r.Name {
		case "Frame":
			if r.A.Count != 39 || r.B.Count != 39 || r.MeanRatio() < 1.1 {
				t.Errorf("Frame: %d and %d frames, ratio %.3f (39 each, B slower)", r.A.Count, r.B.Count, r.MeanRatio())
			}
		case "gc":
			if r.A != nil || r.B == nil || r.B.Count != 5 {
				t.Errorf("gc should be B's only, 5 frames: %+v", r)
			}
		}
	}
}
