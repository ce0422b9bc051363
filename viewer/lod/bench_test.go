package lod

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

var synthCache = map[int]*Index{}

func synthIndex(b *testing.B, zones int) *Index {
	if ix, ok := synthCache[zones]; ok {
		return ix
	}
	clear(synthCache) // keep one huge trace in memory at a time
	start := time.Now()
	tr := synthtrace.Make(synthtrace.Spec{Zones: zones, Threads: 16, MaxDepth: 20, Seed: 42})
	made := time.Since(start)
	start = time.Now()
	ix := Build(tr)
	fmt.Fprintf(os.Stderr, "synthetic %d zones: made in %v, indexed in %v (%.2f B/zone)\n", tr.ZoneCount(), made, time.Since(start), float64(ix.Bytes())/float64(tr.ZoneCount()))
	synthCache[zones] = ix
	return ix
}

// BenchmarkTimeline is the viewer's hot request at 1M, 10M and 100M zones:
// the whole trace and a 0.1% window at 2,000 pixels, encoded. The goal is
// a cost that follows the pixels: the 100M figure within 2x the 1M one.
// The 100M case needs about 3 GB; -short skips it.
func BenchmarkTimeline(b *testing.B) {
	for _, zones := range []int{1_000_000, 10_000_000, 100_000_000} {
		if zones > 10_000_000 && testing.Short() {
			continue
		}
		for _, win := range []struct {
			name string
			frac float64
		}{{"full", 1}, {"window0.1%", 0.001}} {
			b.Run(fmt.Sprintf("zones=%dM/%s", zones/1_000_000, win.name), func(b *testing.B) {
				ix := synthIndex(b, zones)
				tr := ix.Trace()
				last := tr.Metadata.LastTime
				span := int64(float64(last) * win.frac)
				var tl Timeline
				var buf []byte
				n := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					// Slide the window so the benchmark is not one cached spot.
					t0 := (last - span) / 7 * int64(i%7)
					if err := ix.Timeline(Query{T0: t0, T1: t0 + span, Width: 2000}, &tl); err != nil {
						b.Fatal(err)
					}
					buf = tl.AppendBinary(buf[:0], tr)
					n = max(n, len(buf))
				}
				b.ReportMetric(float64(n), "max-resp-bytes")
				b.ReportMetric(float64(tl.Items()), "items")
			})
		}
	}
}

// BenchmarkBuildVsLoad measures the index's build time against loading the
// same file, in one run: the goal is at most 25% of the load. Each
// iteration loads heavy10m.tracy twice, in alternating order: once as
// before 2026-12-02 (ReadFile, then Build: load-ms, build-ms, build/load),
// and once with a Stream fed by the reader (stream-load-ms; stream-ms is
// what is left of the index after the load, Stream.Index, and
// stream/load its share of that load, the wait `gotracy view` has
// between "file loaded" and "index ready"). load-cores and
// stream-load-cores are the process's CPU time over each load's wall time. GOTRACY_LOD_LOADFILE names
// another file to measure (the synthetic 100M-zone one of the DESIGN
// figures: synthtrace.Spec{Zones: 100M, Threads: 16, MaxDepth: 20, Seed:
// 42}, BenchmarkTimeline's, saved by TestWriteSynthFile).
func BenchmarkBuildVsLoad(b *testing.B) {
	path := os.Getenv("GOTRACY_LOD_LOADFILE")
	if path == "" {
		path = fixtures.Path(b, "heavy10m.tracy")
	}
	var loadNs, buildNs, sLoadNs, sIndexNs time.Duration
	var loadCPU, sLoadCPU int64
	plain := func() {
		t0, c0 := time.Now(), processCPU()
		tr, err := tracefile.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		loadCPU += processCPU() - c0
		ix := Build(tr)
		buildNs += time.Since(t1)
		loadNs += t1.Sub(t0)
		_ = ix
	}
	stream := func() {
		t0, c0 := time.Now(), processCPU()
		s := NewStream()
		tr, err := tracefile.ReadFile(path, tracefile.WithThreadZones(model.ZoneChunkLen, func(tz *tracefile.ThreadZones) {
			s.Add(Batch{Thread: tz.Thread, Chunks: tz.Chunks, Len: tz.Len, Open: tz.Open, Want: tz.Want, LastTime: tz.LastTime, Done: tz.Done})
		}))
		if err != nil {
			s.Abort()
			b.Fatal(err)
		}
		t1 := time.Now()
		sLoadCPU += processCPU() - c0
		ix := s.Index(tr)
		sIndexNs += time.Since(t1)
		sLoadNs += t1.Sub(t0)
		_ = ix
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			plain()
			stream()
		} else {
			stream()
			plain()
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(buildNs)/float64(loadNs), "build/load")
	b.ReportMetric(float64(buildNs.Microseconds())/1e3/n, "build-ms")
	b.ReportMetric(float64(loadNs.Microseconds())/1e3/n, "load-ms")
	b.ReportMetric(float64(sIndexNs)/float64(sLoadNs), "stream/load")
	b.ReportMetric(float64(sIndexNs.Microseconds())/1e3/n, "stream-ms")
	b.ReportMetric(float64(sLoadNs.Microseconds())/1e3/n, "stream-load-ms")
	// Cores busy during each load: the stream's walk is not free, it uses
	// the core the decoder leaves idle.
	b.ReportMetric(float64(loadCPU)/float64(loadNs), "load-cores")
	b.ReportMetric(float64(sLoadCPU)/float64(sLoadNs), "stream-load-cores")
}

// TestWriteSynthFile saves the synthetic trace of BenchmarkTimeline with
// GOTRACY_LOD_SYNTHZONES zones to GOTRACY_LOD_LOADFILE, for
// BenchmarkBuildVsLoad; without both it does nothing.
func TestWriteSynthFile(t *testing.T) {
	path, n := os.Getenv("GOTRACY_LOD_LOADFILE"), os.Getenv("GOTRACY_LOD_SYNTHZONES")
	if path == "" || n == "" {
		t.Skip("GOTRACY_LOD_LOADFILE and GOTRACY_LOD_SYNTHZONES not set")
	}
	zones, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	tr := synthtrace.Make(synthtrace.Spec{Zones: zones, Threads: 16, MaxDepth: 20, Seed: 42})
	if err := tracefile.WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
}
