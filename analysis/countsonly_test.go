package analysis_test

import (
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
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
