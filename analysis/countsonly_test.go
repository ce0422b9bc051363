package analysis_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestCountsOnlyMatchesFullPass: the flat CountsOnly pass gives the same
// counts, totals, extremes, sums of squares (bit for bit: same order) and
// zone lists as the full tree pass, on a nested synthetic trace (no fixture
// needed) and on the real demo capture.
func TestCountsOnlyMatchesFullPass(t *testing.T) {
	traces := map[string]*model.Trace{"synthetic": synthetic(40_000)}
	if d := fixtures.Dir(); d != "" {
		tr, err := tracefile.ReadFile(filepath.Join(d, "demo.tracy"))
		if err != nil {
			t.Fatal(err)
		}
		traces["demo"] = tr
	}
	for name, tr := range traces {
		for _, keep := range []bool{false, true} {
			full := analysis.ComputeZoneStats(tr, analysis.StatsOptions{KeepZones: keep})
			fast := analysis.ComputeZoneStats(tr, analysis.StatsOptions{KeepZones: keep, CountsOnly: true})
			if full.Zones != fast.Zones || full.Skipped != fast.Skipped || len(full.Locations) != len(fast.Locations) {
				t.Fatalf("%s: zones %d/%d skipped %d/%d locations %d/%d", name, full.Zones, fast.Zones,
					full.Skipped, fast.Skipped, len(full.Locations), len(fast.Locations))
			}
			if full.Zones == 0 {
				t.Fatalf("%s: no zones counted", name)
			}
			for i := range full.Locations {
				a, b := &full.Locations[i], &fast.Locations[i]
				if a.SrcLoc != b.SrcLoc || a.Count != b.Count || a.Total != b.Total || a.Min != b.Min ||
					a.Max != b.Max || a.SumSq != b.SumSq || len(a.Zones) != len(b.Zones) {
					t.Fatalf("%s keep=%v location %d: full %+v, counts-only %+v", name, keep, i, *a, *b)
				}
				for j := range a.Zones {
					if a.Zones[j] != b.Zones[j] {
						t.Fatalf("%s location %d zone %d: %v vs %v", name, i, j, a.Zones[j], b.Zones[j])
					}
				}
			}
		}
	}
}

// TestSummaryDepthMatchesWalk: Summarize's one-pass depth and zone counts
// agree with model.Walk and a plain count on a nested trace.
func TestSummaryDepthMatchesWalk(t *testing.T) {
	tr := synthetic(40_000)
	want, zones := 0, 0
	for i := range tr.Threads {
		zones += tr.Threads[i].Zones.Len()
		model.Walk(&tr.Threads[i].Zones, func(_, depth int) bool {
			want = max(want, depth+1)
			return true
		})
	}
	s := analysis.Summarize(tr)
	if want < 3 || s.MaxZoneDepth != want || s.Zones != uint64(zones) {
		t.Fatalf("depth %d (walk %d), zones %d (%d)", s.MaxZoneDepth, want, s.Zones, zones)
	}
}

// TestSummaryParallelZones: the threads' zone counts taken on several
// goroutines (a large trace) agree with model.Walk and plain counts, also
// for unended and zero-length zones, and with the one-goroutine pass.
func TestSummaryParallelZones(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 200_000, Threads: 7, Seed: 5})
	depth, unended, zeroLen := 0, uint64(0), uint64(0)
	for i := range tr.Threads {
		zs := &tr.Threads[i].Zones
		// A few zones of each thread unended or of zero length, the
		// deepest thread's last zones among them.
		for j := i; j < zs.Len(); j += 997 + i {
			z := zs.At(j)
			if j%2 == 0 {
				z.SetEnd(-1)
			} else {
				z.SetEnd(z.Start())
			}
		}
		model.Walk(zs, func(j, d int) bool {
			depth = max(depth, d+1)
			switch z := zs.At(j); {
			case z.End() < 0:
				unended++
			case z.End() <= z.Start():
				zeroLen++
			}
			return true
		})
	}
	restore := analysis.SetParallelSummaryZones(1)
	par := analysis.Summarize(tr)
	restore()
	restore = analysis.SetParallelSummaryZones(1 << 62)
	one := analysis.Summarize(tr)
	restore()
	if depth < 10 || unended == 0 || zeroLen == 0 {
		t.Fatalf("test trace too plain: depth %d, %d unended, %d zero-length", depth, unended, zeroLen)
	}
	for name, s := range map[string]*analysis.Summary{"parallel": par, "one goroutine": one} {
		if s.MaxZoneDepth != depth || s.ZonesUnended != unended || s.ZonesZeroLength != zeroLen || s.Threads != 7 {
			t.Errorf("%s: depth %d unended %d zero %d threads %d, want %d %d %d 7", name,
				s.MaxZoneDepth, s.ZonesUnended, s.ZonesZeroLength, s.Threads, depth, unended, zeroLen)
		}
	}
}

// TestZoneCountsMatchesComputeZoneStats: statistics built thread by thread
// (as csv does while the trace loads) are ComputeZoneStats' CountsOnly
// ones, sums of squares bit for bit; a thread out of order panics.
func TestZoneCountsMatchesComputeZoneStats(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 100_000, Threads: 5, Seed: 9})
	// A zone whose source location is in no list gets a row of its own.
	tr.Threads[3].Zones.At(17).SrcLoc = 12345
	want := analysis.ComputeZoneStats(tr, analysis.StatsOptions{CountsOnly: true})
	c := analysis.NewZoneCounts(tr)
	for i := range tr.Threads {
		c.AddThread(i, &tr.Threads[i])
	}
	got := c.Stats()
	if c.Threads() != len(tr.Threads) || got.Zones != want.Zones || got.Skipped != want.Skipped || len(got.Locations) != len(want.Locations) {
		t.Fatalf("threads %d zones %d skipped %d rows %d, want %d %d %d %d", c.Threads(), got.Zones, got.Skipped,
			len(got.Locations), len(tr.Threads), want.Zones, want.Skipped, len(want.Locations))
	}
	for i := range want.Locations {
		a, b := &want.Locations[i], &got.Locations[i]
		if a.SrcLoc != b.SrcLoc || a.Count != b.Count || a.Total != b.Total || a.Min != b.Min || a.Max != b.Max || a.SumSq != b.SumSq {
			t.Errorf("row %d: %+v, want %+v", i, *b, *a)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AddThread out of order did not panic")
		}
	}()
	analysis.NewZoneCounts(tr).AddThread(1, &tr.Threads[1])
}

// TestZoneSummaryAnyOrder: zones counted thread by thread (as info does
// while the trace loads), in any order, give Summarize's summary; a
// ZoneSummary missing a thread is not used.
func TestZoneSummaryAnyOrder(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 80_000, Threads: 5, Seed: 4})
	tr.Threads[2].Zones.At(5).SetEnd(-1)
	z := tr.Threads[4].Zones.At(9)
	z.SetEnd(z.Start())
	want := analysis.Summarize(tr)
	var zs analysis.ZoneSummary
	for i := len(tr.Threads) - 1; i >= 0; i-- {
		zs.AddThread(&tr.Threads[i])
	}
	if got := analysis.SummarizeCounted(tr, &zs); !reflect.DeepEqual(got, want) {
		t.Errorf("counted thread by thread:\n%+v\nwant\n%+v", got, want)
	}
	var part analysis.ZoneSummary
	part.AddThread(&tr.Threads[0])
	if got := analysis.SummarizeCounted(tr, &part); !reflect.DeepEqual(got, want) {
		t.Errorf("with one thread of five counted:\n%+v\nwant\n%+v", got, want)
	}
	if want.ZonesUnended != 1 || want.ZonesZeroLength != 1 {
		t.Errorf("unended %d, zero-length %d, want 1 and 1", want.ZonesUnended, want.ZonesZeroLength)
	}
}
