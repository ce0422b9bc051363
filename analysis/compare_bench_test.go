package analysis_test

import (
	"testing"

	"github.com/gotracy/gotracy/analysis"
)

// BenchmarkCompareSynthetic1M: `gotracy diff` of two 1M-zone traces
// (profile of each: statistics and medians; then pairing), against
// BenchmarkZoneStatsSynthetic1M's one statistics pass per trace.
func BenchmarkCompareSynthetic1M(b *testing.B) {
	ta, tb := synthetic(1_000_000), synthetic(1_000_000)
	n := ta.ZoneCount() + tb.ZoneCount()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if c := analysis.Compare(ta, tb, analysis.CompareOptions{}); len(c.Rows) != 64 {
			b.Fatalf("%d rows, want 64", len(c.Rows))
		}
	}
	reportZones(b, n)
}

// BenchmarkCompareHeavy10m compares heavy10m.tracy with itself: the
// cost of a diff of two 10M-zone traces.
func BenchmarkCompareHeavy10m(b *testing.B) {
	t := heavy10m(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		analysis.Compare(t, t, analysis.CompareOptions{})
	}
	reportZones(b, 2*t.ZoneCount())
}

// BenchmarkCompareProfilesRematch is what the viewer pays when the page
// changes the pairing rule: no zone is read.
func BenchmarkCompareProfilesRematch(b *testing.B) {
	pa, pb := analysis.NewCompareProfile(synthetic(100_000)), analysis.NewCompareProfile(synthetic(100_000))
	b.ReportAllocs()
	for b.Loop() {
		analysis.CompareProfiles(pa, pb, analysis.CompareOptions{Match: analysis.MatchFile})
	}
}
