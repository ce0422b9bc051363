package analysis_test

import (
	"io"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

var heavy struct {
	once sync.Once
	t    *model.Trace
	err  error
}

// heavy10m loads the 10-million-zone fixture once per test binary.
func heavy10m(b *testing.B) *model.Trace {
	p := fixtures.Path(b, "heavy10m.tracy")
	heavy.once.Do(func() { heavy.t, heavy.err = tracefile.ReadFile(p) })
	if heavy.err != nil {
		b.Fatal(heavy.err)
	}
	return heavy.t
}

func reportZones(b *testing.B, zones int) {
	b.ReportMetric(float64(zones)*float64(b.N)/b.Elapsed().Seconds(), "zones/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(zones), "ns/zone")
}

// BenchmarkZoneStatsHeavy10m: statistics (what `gotracy csv` prints with no
// flag) over heavy10m.tracy's 10 M zones.
func BenchmarkZoneStatsHeavy10m(b *testing.B) {
	t := heavy10m(b)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		st := analysis.ComputeZoneStats(t, analysis.StatsOptions{})
		if st.Zones == 0 {
			b.Fatal("no zones counted")
		}
	}
	reportZones(b, n)
}

// BenchmarkZoneStatsKeepZonesHeavy10m also builds the per-zone lists (-u, -t).
func BenchmarkZoneStatsKeepZonesHeavy10m(b *testing.B) {
	t := heavy10m(b)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		analysis.ComputeZoneStats(t, analysis.StatsOptions{KeepZones: true})
	}
	reportZones(b, n)
}

// BenchmarkCSVTruncatedMeanHeavy10m: `csv -e -t` (lists, self times, a sort
// of 10 M samples).
func BenchmarkCSVTruncatedMeanHeavy10m(b *testing.B) {
	t := heavy10m(b)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := analysis.WriteCSV(io.Discard, t, analysis.CSVOptions{SelfTime: true, TruncatedMean: 90}); err != nil {
			b.Fatal(err)
		}
	}
	reportZones(b, n)
}

// BenchmarkCSVUnwrapHeavy10m: `csv -u`, one 40-byte row per zone (~400 MB).
func BenchmarkCSVUnwrapHeavy10m(b *testing.B) {
	t := heavy10m(b)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := analysis.WriteCSV(io.Discard, t, analysis.CSVOptions{Unwrap: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportZones(b, n)
}

// synthetic builds a trace with no fixture: 4 threads, nested zones over 64
// source locations (a realistic tree, unlike heavy's flat list).
func synthetic(zones int) *model.Trace {
	b := model.NewBuilder()
	file := model.IdxRef(b.Intern("synthetic.go"))
	var sls []model.SrcLocID
	for i := range 64 {
		sls = append(sls, b.AddStaticSrcLoc(uint64(0x1000+i), model.SourceLocation{Function: model.IdxRef(b.Intern("fn" + string(rune('A'+i%26)))), File: file, Line: uint32(i)}))
	}
	now := int64(0)
	for th := range 4 {
		ti := b.Thread(uint64(100 + th))
		for i := 0; i < zones/4; {
			// a parent with 3 children, one of which has a child
			b.BeginZone(ti, now, sls[i%64])
			for c := range 3 {
				b.BeginZone(ti, now+int64(10+c*100), sls[(i+c+1)%64])
				if c == 1 {
					b.BeginZone(ti, now+120, sls[(i+7)%64])
					b.EndZone(ti, now+150)
				}
				b.EndZone(ti, now+int64(80+c*100))
			}
			b.EndZone(ti, now+400)
			now += 500
			i += 5
		}
	}
	return b.Finish()
}

func BenchmarkZoneStatsSynthetic1M(b *testing.B) {
	t := synthetic(1_000_000)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		analysis.ComputeZoneStats(t, analysis.StatsOptions{})
	}
	reportZones(b, n)
}

// BenchmarkZoneWalkBaselineHeavy10m is the floor the statistics are
// measured against: one pass reading every zone's start and end, summing
// durations, nothing else.
func BenchmarkZoneWalkBaselineHeavy10m(b *testing.B) {
	t := heavy10m(b)
	n := t.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	var sink int64
	for b.Loop() {
		var sum int64
		for ti := range t.Threads {
			for _, zones := range t.Threads[ti].Zones.Chunks() {
				for zi := range zones {
					sum += zones[zi].End() - zones[zi].Start()
				}
			}
		}
		sink += sum
	}
	if sink == 0 {
		b.Fatal("no durations")
	}
	reportZones(b, n)
}
