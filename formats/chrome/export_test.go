package chrome

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// builtTrace is a small trace with nesting, texts, a name override, an
// unfinished zone, messages, a plot and frames, on two threads.
func builtTrace() *model.Trace {
	b := model.NewBuilder()
	sl := func(name, file string, line uint32) model.SrcLocID {
		return b.AddStaticSrcLoc(uint64(len(name))<<32|uint64(line), model.SourceLocation{
			Name: model.IdxRef(b.Intern(name)), Function: model.IdxRef(b.Intern("fn_" + name)),
			File: model.IdxRef(b.Intern(file)), Line: line})
	}
	outer, inner := sl("outer", "a.go", 10), sl("inner", "b.go", 20)
	b.FrameMark(0, 0)
	for th, tid := range []uint64{100, 200} {
		ti := b.Thread(tid)
		b.SetThreadName(tid, "worker \""+strconv.Itoa(th)+"\"")
		base := int64(1000 + th*7)
		for i := range 3 {
			s := base + int64(i)*10_001
			z := b.BeginZone(ti, s, outer)
			b.SetZoneText(ti, z, "text\n"+strconv.Itoa(i))
			b.BeginZone(ti, s+1, inner)
			b.EndZone(ti, s+2_003)
			c := b.BeginZone(ti, s+3_000, inner)
			b.SetZoneName(ti, c, "renamed")
			b.EndZone(ti, s+9_999)
			b.EndZone(ti, s+10_000)
		}
		b.AddMessage(tid, model.Message{Time: base + 5, Text: model.IdxRef(b.Intern("msg " + strconv.Itoa(th))), Color: 0xFFFFFFFF})
	}
	b.SetPtrString(77, "load")
	b.PlotPoint(77, 500, 1.25)
	b.PlotPoint(77, 40_000, -3)
	b.FrameMark(0, 20_000)
	ti := b.Thread(100)
	b.BeginZone(ti, 50_000, outer) // never ends
	return b.Finish()
}

func TestExportBuilt(t *testing.T) {
	orig := builtTrace()
	var js bytes.Buffer
	if err := Export(&js, orig, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("export is not valid JSON: %v\n%s", err, js.Bytes())
	}
	count := map[string]int{}
	for _, e := range doc.TraceEvents {
		count[e["ph"].(string)]++
	}
	// 18 finished zones, 1 unfinished, 2 thread names, 2 messages + 2
	// frames, 2 plot points.
	want := map[string]int{"X": 18, "B": 1, "M": 2, "i": 4, "C": 2}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("%d %q events, want %d (all: %v)", count[k], k, v, count)
		}
	}

	back, err := Import(bytes.NewReader(js.Bytes()), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Statistics per zone name must survive exactly (times included).
	stats := func(tr *model.Trace) []string {
		st := analysis.ComputeZoneStats(tr, analysis.StatsOptions{})
		var rows []string
		for _, s := range st.Locations {
			if s.Count == 0 {
				continue
			}
			sl, _ := tr.SrcLoc(s.SrcLoc)
			rows = append(rows, tr.SrcLocName(sl)+" "+strconv.FormatUint(s.Count, 10)+" "+
				strconv.FormatInt(s.Total, 10)+" "+strconv.FormatInt(s.SelfTotal, 10)+" "+
				strconv.FormatInt(s.Min, 10)+" "+strconv.FormatInt(s.Max, 10))
		}
		slices.Sort(rows)
		return rows
	}
	// The override "renamed" is a zone name in Chrome, so the imported
	// trace has it as its own location; compare by display name.
	byName := func(tr *model.Trace) map[string][2]int64 {
		m := map[string][2]int64{}
		for i := range tr.Threads {
			zs := &tr.Threads[i].Zones
			for j, z := range zs.All() {
				if z.End() < 0 {
					continue
				}
				v := m[tr.ZoneName(z)]
				v[0]++
				v[1] += model.SelfTime(zs, j)
				m[tr.ZoneName(z)] = v
			}
		}
		return m
	}
	if a, b := byName(orig), byName(back); len(a) != len(b) || a["outer"] != b["outer"] || a["inner"] != b["inner"] || a["renamed"] != b["renamed"] {
		t.Errorf("zones by name: %v before, %v after", a, b)
	}
	if s := stats(back); len(s) != 3 {
		t.Errorf("imported stats %v, want 3 locations", s)
	}
	if back.ZoneCount() != orig.ZoneCount() {
		t.Errorf("zone count %d, want %d", back.ZoneCount(), orig.ZoneCount())
	}
	if len(back.Messages) != 2 || back.RefString(back.Messages[0].Text) != "msg 0" {
		t.Errorf("messages %v", back.Messages)
	}
	if len(back.Plots) != 1 || len(back.Plots[0].Points) != 2 || back.Plots[0].Points[1] != (model.PlotPoint{Time: 40_000, Value: -3}) {
		t.Errorf("plots %+v", back.Plots)
	}
	// Texts gain Tracy's "key: " prefix and trailing newline.
	found := false
	for _, e := range back.ZoneExtras {
		if back.Str(e.Text) == "text: text\n0\n" {
			found = true
		}
	}
	if !found {
		t.Error("zone text \"text: text\\n0\\n\" not found after the round trip")
	}
}

func TestExportFilter(t *testing.T) {
	var js bytes.Buffer
	if err := Export(&js, builtTrace(), ExportOptions{Filter: "INNER"}); err != nil {
		t.Fatal(err)
	}
	back, err := Import(&js, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range back.Threads {
		for _, z := range back.Threads[i].Zones.All() {
			if n := back.ZoneName(z); n != "inner" {
				t.Errorf("zone %q passed the filter \"INNER\"", n)
			}
		}
	}
	if back.ZoneCount() != 6 {
		t.Errorf("%d zones passed, want 6", back.ZoneCount())
	}
}

// Times past Tracy's 48-bit zone range are refused, not wrapped.
func TestImportTimeRange(t *testing.T) {
	in := `[{"ph":"X","name":"a","ts":0,"dur":1,"tid":1},{"ph":"X","name":"b","ts":2e11,"dur":1,"tid":1}]`
	_, err := Import(strings.NewReader(in), ImportOptions{})
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "48-bit") {
		t.Errorf("error %v, want a SyntaxError about the 48-bit range", err)
	}
}

func TestAppendMicros(t *testing.T) {
	for ns := int64(0); ns < 3_000_000; ns += 7 {
		s := string(AppendMicros(nil, ns))
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(f * 1000); got != ns {
			t.Fatalf("%d ns written as %s reads back as %d", ns, s, got)
		}
	}
	if s := string(AppendMicros(nil, 1_234_500)); s != "1234.5" {
		t.Errorf("1234500 ns as %q, want 1234.5", s)
	}
}
