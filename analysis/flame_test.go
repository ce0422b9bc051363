package analysis_test

import (
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// TestZoneFlameBuilt: a hand-built tree, whole and clipped to a range, and
// the zoom view of a node.
func TestZoneFlameBuilt(t *testing.T) {
	b := model.NewBuilder()
	loc := func(k uint64, name string) model.SrcLocID {
		return b.AddStaticSrcLoc(k, model.SourceLocation{Name: model.IdxRef(b.Intern(name)), File: model.IdxRef(b.Intern("f.go")), Line: uint32(k)})
	}
	a, c, d := loc(1, "a"), loc(2, "c"), loc(3, "d")
	th := b.Thread(1)
	// a [0,100]: c [10,30], c [40,60] with d [45,50]; a [200,300]: d [210,220]
	b.BeginZone(th, 0, a)
	b.BeginZone(th, 10, c)
	b.EndZone(th, 30)
	b.BeginZone(th, 40, c)
	b.BeginZone(th, 45, d)
	b.EndZone(th, 50)
	b.EndZone(th, 60)
	b.EndZone(th, 100)
	b.BeginZone(th, 200, a)
	b.BeginZone(th, 210, d)
	b.EndZone(th, 220)
	b.EndZone(th, 300)
	tr := b.Finish()
	f := analysis.ZoneFlame(tr, -1<<40, 1<<40, -1)
	type row struct {
		name        string
		depth       int
		count       uint64
		total, self int64
	}
	var got []row
	for _, n := range f.Nodes {
		got = append(got, row{n.Name, n.Depth, n.Count, n.Total, n.Self})
	}
	want := []row{{"a", 0, 2, 200, 150}, {"c", 1, 2, 40, 35}, {"d", 2, 1, 5, 5}, {"d", 1, 1, 10, 10}}
	if len(got) != len(want) {
		t.Fatalf("nodes %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if f.Total != 200 || f.Count != 6 {
		t.Errorf("total %d count %d, want 200 and 6", f.Total, f.Count)
	}
	// [20, 47]: a 27 ns, c [20,30] 10 + [40,47] 7, d [45,47] 2.
	r := analysis.ZoneFlame(tr, 20, 47, -1)
	if len(r.Nodes) != 3 || r.Nodes[0].Total != 27 || r.Nodes[1].Total != 17 || r.Nodes[2].Total != 2 || r.Nodes[0].Self != 10 {
		t.Errorf("range [20,47]: %+v", r.Nodes)
	}
	ids, path, total := f.View(1, 0)
	if len(ids) != 2 || ids[0] != 1 || ids[1] != 2 || len(path) != 1 || path[0] != 0 || total != 40 {
		t.Errorf("View(1): ids %v path %v total %d", ids, path, total)
	}
	// minfrac drops narrow nodes with their subtrees.
	ids, _, _ = f.View(-1, 0.1)
	if len(ids) != 2 {
		t.Errorf("View(-1, 0.1): %v, want a and c only", ids)
	}
}

// BenchmarkZoneFlameHeavy10m: the zone flame graph of heavy10m.tracy's
// 10 M zones, whole and a tenth of it (the page caches the whole one).
func BenchmarkZoneFlameHeavy10m(b *testing.B) {
	t := heavy10m(b)
	last := t.Metadata.LastTime
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			analysis.ZoneFlame(t, -1<<62, 1<<62, -1)
		}
		reportZones(b, t.ZoneCount())
	})
	b.Run("tenth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			analysis.ZoneFlame(t, last/2, last/2+last/10, -1)
		}
	})
}
