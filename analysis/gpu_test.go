package analysis

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/model"
)

func TestGpuZonesByHand(t *testing.T) {
	b := model.NewBuilder()
	file := model.IdxRef(b.Intern("gpu.cpp"))
	s1 := b.AddStaticSrcLoc(0x10, model.SourceLocation{Name: model.IdxRef(b.Intern("draw")), File: file, Line: 1})
	s2 := b.AddStaticSrcLoc(0x20, model.SourceLocation{Function: model.IdxRef(b.Intern("blit")), File: file, Line: 2})
	tr := b.Finish()
	gz := func(start, end int64, sl model.SrcLocID, next uint32) model.GpuZone {
		return model.GpuZone{CPUStart: start, CPUEnd: end, GPUStart: start, GPUEnd: end, SrcLoc: sl, Next: next}
	}
	tr.GpuContexts = []model.GpuContext{{
		Type: model.GpuVulkan,
		Timelines: []model.GpuTimeline{
			{Thread: 7, Zones: []model.GpuZone{gz(100, 150, s1, 2), gz(110, 120, s2, 2), gz(200, -1, s1, 3)}},
			{Thread: 8}, // empty: dropped as Tracy does
			{Thread: 9, Zones: []model.GpuZone{gz(300, 300, s2, 1), gz(400, 460, s1, 2)}},
		},
	}}

	st := ComputeGpuZoneStats(tr)
	if st.Zones != 3 || st.Skipped != 2 {
		t.Errorf("counted %d, skipped %d; want 3 and 2", st.Zones, st.Skipped)
	}
	var g1, g2 *GpuSrcLocStats
	for i := range st.Locations {
		switch st.Locations[i].SrcLoc {
		case s1:
			g1 = &st.Locations[i]
		case s2:
			g2 = &st.Locations[i]
		}
	}
	if g1 == nil || g2 == nil || len(st.Locations) != 2 {
		t.Fatalf("locations = %+v", st.Locations)
	}
	if g1.Count != 2 || g1.Total != 110 || g1.Min != 50 || g1.Max != 60 || g1.SumSq != 50*50+60*60 {
		t.Errorf("draw stats = %+v", *g1)
	}
	if g2.Count != 1 || g2.Total != 10 || g2.Min != 10 || g2.Max != 10 {
		t.Errorf("blit stats = %+v", *g2)
	}

	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr, CSVOptions{GPU: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != "name,src_file,Time from start of program,GPU execution time" {
		t.Errorf("header %q", lines[0])
	}
	rows := slices.Clone(lines[1:])
	slices.Sort(rows)
	if want := []string{"blit,gpu.cpp,110,10", "draw,gpu.cpp,100,50", "draw,gpu.cpp,400,60"}; !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	buf.Reset()
	if err := WriteCSV(&buf, tr, CSVOptions{GPU: true, Filter: "BLI"}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasSuffix(got, "\nblit,gpu.cpp,110,10\n") || strings.Count(got, "\n") != 2 {
		t.Errorf("filtered -g output %q", got)
	}
}
