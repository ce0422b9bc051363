package lod

import (
	"fmt"
	"os"
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
// same file, in one run: the goal is at most 25% of the load.
func BenchmarkBuildVsLoad(b *testing.B) {
	path := fixtures.Path(b, "heavy10m.tracy")
	var loadNs, buildNs time.Duration
	var tr *model.Trace
	for b.Loop() {
		t0 := time.Now()
		var err error
		tr, err = tracefile.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		ix := Build(tr)
		buildNs += time.Since(t1)
		loadNs += t1.Sub(t0)
		_ = ix
	}
	b.ReportMetric(float64(buildNs)/float64(loadNs), "build/load")
	b.ReportMetric(float64(buildNs.Milliseconds())/float64(b.N), "build-ms")
	b.ReportMetric(float64(loadNs.Milliseconds())/float64(b.N), "load-ms")
}
