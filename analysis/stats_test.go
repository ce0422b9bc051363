package analysis

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/model"
)

// smallTrace builds, through the model's Builder, a trace whose statistics
// are worked out by hand in the tests below:
//
//	thread 10:  P  s1 [100,200]            children C1, C2
//	              C1 s2 [110,130]
//	              C2 s2 [140,170]          child G
//	                G s1 [150,160]         (re-enters s1)
//	            Q  s1 [300,300]            0 ns: left out
//	            R  s2 [400, never ended]   left out; child S
//	              S  dyn [410,420]
//	thread 20:  B  s1 [50,90]
func smallTrace(t testing.TB) (*model.Trace, map[string]model.SrcLocID) {
	t.Helper()
	b := model.NewBuilder()
	file := model.IdxRef(b.Intern("file.cpp"))
	s1 := b.AddStaticSrcLoc(0x1000, model.SourceLocation{Name: model.IdxRef(b.Intern("Alpha")), Function: model.IdxRef(b.Intern("fa")), File: file, Line: 10})
	s2 := b.AddStaticSrcLoc(0x2000, model.SourceLocation{Function: model.IdxRef(b.Intern("beta_fn")), File: file, Line: 20})
	s3 := b.AddDynSrcLoc(model.SourceLocation{Name: model.IdxRef(b.Intern("gamma")), Function: model.IdxRef(b.Intern("fg")), File: file, Line: 30})

	a := b.Thread(10)
	p := b.BeginZone(a, 100, s1)
	b.BeginZone(a, 110, s2)
	b.EndZone(a, 130)
	c2 := b.BeginZone(a, 140, s2)
	b.SetZoneText(a, c2, "c2 text")
	b.BeginZone(a, 150, s1)
	b.EndZone(a, 160)
	b.EndZone(a, 170)
	b.EndZone(a, 200)
	b.SetZoneText(a, p, "p text")
	b.BeginZone(a, 300, s1)
	b.EndZone(a, 300)
	b.BeginZone(a, 400, s2)
	b.BeginZone(a, 410, s3)
	b.EndZone(a, 420)
	// R never ends.

	bt := b.Thread(20)
	b.BeginZone(bt, 50, s1)
	b.EndZone(bt, 90)

	tr := b.Finish()
	tr.Metadata.LastTime = 1000
	return tr, map[string]model.SrcLocID{"s1": s1, "s2": s2, "s3": s3}
}

func statsFor(t *testing.T, st *ZoneStats, id model.SrcLocID) *SrcLocStats {
	t.Helper()
	for i := range st.Locations {
		if st.Locations[i].SrcLoc == id {
			return &st.Locations[i]
		}
	}
	t.Fatalf("no statistics for srcloc %d", id)
	return nil
}

func TestZoneStatsByHand(t *testing.T) {
	tr, ids := smallTrace(t)
	st := ComputeZoneStats(tr, StatsOptions{KeepZones: true})
	if len(st.Locations) != 3 {
		t.Fatalf("locations = %d, want 3 (two static, one dynamic)", len(st.Locations))
	}
	if st.Zones != 6 || st.Skipped != 2 {
		t.Errorf("counted %d zones, skipped %d; want 6 and 2", st.Zones, st.Skipped)
	}

	s1 := statsFor(t, st, ids["s1"])
	want1 := SrcLocStats{SrcLoc: ids["s1"], Count: 3, Total: 150, Min: 10, Max: 100, SumSq: 11700,
		SelfTotal: 100, SelfMin: 10, SelfMax: 50,
		NonReentrantCount: 2, NonReentrantTotal: 140, NonReentrantMin: 40, NonReentrantMax: 100}
	got1 := *s1
	got1.Zones = nil
	if !reflect.DeepEqual(got1, want1) {
		t.Errorf("s1 stats:\n got %+v\nwant %+v", got1, want1)
	}
	// Zone order: thread 10 depth first (P, then G inside C2), then thread 20.
	if want := []ZoneRef{{0, 0}, {0, 3}, {1, 0}}; !slices.Equal(s1.Zones, want) {
		t.Errorf("s1 zones = %v, want %v", s1.Zones, want)
	}
	if s1.Mean() != 50 {
		t.Errorf("s1 mean = %d, want 50", s1.Mean())
	}
	// ss = 11700 - 2*150*50 + 50*50*3 = 4200; sqrt(4200/2).
	if got, want := s1.StdDev(), math.Sqrt(2100); got != want {
		t.Errorf("s1 std = %v, want %v", got, want)
	}

	s2 := statsFor(t, st, ids["s2"])
	if s2.Count != 2 || s2.Total != 50 || s2.Min != 20 || s2.Max != 30 || s2.SumSq != 1300 ||
		s2.SelfTotal != 40 || s2.SelfMin != 20 || s2.SelfMax != 20 {
		t.Errorf("s2 stats = %+v", *s2)
	}
	if got, want := s2.StdDev(), math.Sqrt(50); got != want {
		t.Errorf("s2 std = %v, want %v", got, want)
	}
	s3 := statsFor(t, st, ids["s3"])
	if s3.Count != 1 || s3.Total != 10 || s3.StdDev() != 0 {
		t.Errorf("s3 stats = %+v", *s3)
	}
}

func TestPercentileTruncatedMean(t *testing.T) {
	for _, c := range []struct {
		data    []int64
		p       float64
		pct, tm int64
	}{
		{[]int64{100, 10, 40}, 0.9, 88, 25}, // idx 1.8: 40 + 60*0.8
		{[]int64{100, 10, 40}, 0.5, 40, 25},
		{[]int64{100, 10, 40}, 0.99, 99, 25}, // 98.8 rounds to 99, 100 > 98.8
		{[]int64{5}, 0.9, 5, 5},
		{[]int64{1, 2}, 0.25, 1, 1}, // 1.25 rounds to 1; values <= 1.25
		{[]int64{1, 2}, 0.5, 2, 1},  // 1.5 rounds half away from zero
		{nil, 0.9, 0, 0},
	} {
		d := slices.Clone(c.data)
		pct, tm := PercentileTruncatedMean(d, c.p)
		if pct != c.pct || tm != c.tm {
			t.Errorf("PercentileTruncatedMean(%v, %v) = %d, %d; want %d, %d", c.data, c.p, pct, tm, c.pct, c.tm)
		}
	}
}

// csvRows returns the output lines after the header, sorted, so a test can
// check content independently of the hash-map row order (which the
// fixture tests check).
func csvRows(t *testing.T, tr *model.Trace, o CSVOptions) (string, []string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr, o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	rows := slices.Clone(lines[1:])
	slices.Sort(rows)
	return lines[0], rows
}

func TestCSVStatisticsByHand(t *testing.T) {
	tr, _ := smallTrace(t)
	hdr, rows := csvRows(t, tr, CSVOptions{TruncatedMean: 90})
	if want := "name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns,percentile_ns,truncated_mean_ns"; hdr != want {
		t.Errorf("header = %q", hdr)
	}
	want := []string{
		"Alpha,file.cpp,10,150,15.000000,3,50,10,100,45.825757,88,25",
		"beta_fn,file.cpp,20,50,5.000000,2,25,20,30,7.071068,29,20", // idx 0.9 -> 29; 20 <= 29
		"gamma,file.cpp,30,10,1.000000,1,10,10,10,0.000000,10,10",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// -e: self totals, and the standard deviation quirk: the self mean is
	// subtracted from sums of full durations. s1: avg 100/3 = 33,
	// ss = 11700 - 2*150*33 + 33*33*3 = 5067, sqrt(5067/2).
	_, rows = csvRows(t, tr, CSVOptions{SelfTime: true, Separator: ";"})
	want = []string{
		"Alpha;file.cpp;10;100;10.000000;3;33;10;50;" + string(appendCFloat(nil, math.Sqrt(5067./2))),
		"beta_fn;file.cpp;20;40;4.000000;2;20;20;20;" + string(appendCFloat(nil, math.Sqrt(1300-2*50*20+20*20*2))),
		"gamma;file.cpp;30;10;1.000000;1;10;10;10;0.000000",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("-e rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// Filter: case-insensitive by default.
	_, rows = csvRows(t, tr, CSVOptions{Filter: "ALP"})
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "Alpha,") {
		t.Errorf("filter ALP rows = %q", rows)
	}
	_, rows = csvRows(t, tr, CSVOptions{Filter: "ALP", CaseSensitive: true})
	if len(rows) != 0 {
		t.Errorf("case-sensitive filter ALP rows = %q", rows)
	}
}

func TestCSVUnwrapByHand(t *testing.T) {
	tr, _ := smallTrace(t)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr, CSVOptions{Unwrap: true, SelfTime: true}); err != nil {
		t.Fatal(err)
	}
	// Group rows by location; within a location the order is fixed.
	groups := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:] {
		name := l[:strings.IndexByte(l, ',')]
		groups[name] = append(groups[name], l)
	}
	// Thread 10 is local thread 1, thread 20 local thread 2. G has no text
	// and repeats P's (tracy-csvexport's reused row buffer); B too.
	want := map[string][]string{
		"Alpha":   {"Alpha,file.cpp,10,100,50,1,p text", "Alpha,file.cpp,10,150,10,1,p text", "Alpha,file.cpp,10,50,40,2,p text"},
		"beta_fn": {"beta_fn,file.cpp,20,110,20,1,", "beta_fn,file.cpp,20,140,20,1,c2 text"},
		"gamma":   {"gamma,file.cpp,30,410,10,1,"},
	}
	for k, w := range want {
		if !slices.Equal(groups[k], w) {
			t.Errorf("%s rows:\n%s\nwant:\n%s", k, strings.Join(groups[k], "\n"), strings.Join(w, "\n"))
		}
	}
}

func TestCSVMessagesAndPlots(t *testing.T) {
	b := model.NewBuilder()
	b.SetPtrString(0, "Frame")
	b.SetPtrString(0x77, "lit")
	b.SetPtrString(0x88, "pool")
	b.SetPtrString(0x99, "myplot")
	b.AddMessage(5, model.Message{Time: 10, Text: model.IdxRef(b.Intern("hello"))})
	b.AddMessage(5, model.Message{Time: 20, Text: model.PtrRef(0x77)})
	b.AddMessage(5, model.Message{Time: 30, Text: model.PtrRef(0x1234)})
	b.PlotPoint(0x99, 15, 1.5)
	b.PlotPoint(0x99, 25, -2)
	b.MemPool(0)
	b.MemAlloc(0x88, 0xa0, 100, 5, 1, 0)
	b.MemAlloc(0x88, 0xb0, 50, 6, 1, 0)
	b.MemFree(0x88, 0xa0, 7, 1, 0)
	tr := b.Finish()

	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr, CSVOptions{Messages: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "MessageName,total_ns\nhello,10\nlit,20\n???,30\n"; got != want {
		t.Errorf("messages:\n%s\nwant:\n%s", got, want)
	}

	buf.Reset()
	if err := WriteCSV(&buf, tr, CSVOptions{Unwrap: true, Plots: true}); err != nil {
		t.Fatal(err)
	}
	// The empty default pool has no plot; "pool" is rebuilt: 0 at the first
	// time, +100, +50, -100. Then the stored plot.
	want := "name,src_file,src_line,ns_since_start,exec_time_ns,thread,value\n" +
		"pool,,,0,,,0.000000\npool,,,5,,,100.000000\npool,,,6,,,150.000000\npool,,,7,,,50.000000\n" +
		"myplot,,,15,,,1.500000\nmyplot,,,25,,,-2.000000\n"
	if got := buf.String(); got != want {
		t.Errorf("plots:\n%s\nwant:\n%s", got, want)
	}

	empty := model.New()
	buf.Reset()
	if err := WriteCSV(&buf, empty, CSVOptions{Messages: true}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "There are currently no messages!\n" {
		t.Errorf("no messages: %q", got)
	}
}

func TestAppendCFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.000000"}, {1.0 / 3, "0.333333"}, {2.5e-7, "0.000000"}, {1234567.8915, "1234567.891500"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {math.Copysign(math.NaN(), -1), "-nan"},
	} {
		if got := string(appendCFloat(nil, c.v)); got != c.want {
			t.Errorf("appendCFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{0, "0 ns"}, {999, "999 ns"}, {1000, "1 \u03bcs"}, {1010, "1.01 \u03bcs"}, {1500, "1.5 \u03bcs"},
		{1999, "2 \u03bcs"}, {623_270_000, "623.27 ms"}, {967_500_000, "967.5 ms"}, {648_330_123, "648.33 ms"},
		{1_610_000_000, "1.61 s"}, {62_300_000_000, "1:02.3"}, {(2*3600 + 3*60 + 4) * 1e9, "2:03:04"},
		{(26*3600 + 3*60 + 4) * 1e9, "1d02:03:04"}, {-1500, "-1.5 \u03bcs"},
	} {
		if got := FormatTime(c.ns); got != c.want {
			t.Errorf("FormatTime(%d) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestMemoryPlotOrderAndFirstTime(t *testing.T) {
	b := model.NewBuilder()
	b.MemAlloc(0, 0x10, 100, 5, 1, 0)
	b.MemAlloc(0, 0x20, 7, 10, 1, 0) // at the same time as the free below
	b.MemFree(0, 0x10, 10, 1, 0)     // a free wins a tie with an allocation
	b.MemAlloc(0, 0x30, 1, 12, 1, 0) // never freed
	b.FrameMark(0, 100)
	b.FrameMark(0, 200)
	b.FrameMark(0, 300)
	tr := b.Finish()
	p := MemoryPlot(tr, &tr.MemPools[0])
	want := []model.PlotPoint{{Time: 0, Value: 0}, {Time: 5, Value: 100}, {Time: 10, Value: 0}, {Time: 10, Value: 7}, {Time: 12, Value: 8}}
	if !slices.Equal(p.Points, want) {
		t.Errorf("points %v, want %v", p.Points, want)
	}
	if p.Max != 100 || p.Sum != 115 || p.Min != 0 {
		t.Errorf("min/max/sum = %v/%v/%v, want 0/100/115", p.Min, p.Max, p.Sum)
	}
	// On-demand captures start at base frame 2 (the connection).
	tr.Metadata.OnDemand = true
	if got := FirstTime(tr); got != 300 {
		t.Errorf("on-demand first time = %d, want 300", got)
	}
	if got := MemoryPlot(tr, &tr.MemPools[0]).Points[0].Time; got != 300 {
		t.Errorf("on-demand memory plot starts at %d, want 300", got)
	}
}
