package analysis_test

import (
	"math/rand/v2"
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
	zl := &t.Threads[0].Zones
	for i := range t.Threads {
		if t.Threads[i].Zones.Len() > zl.Len() {
			zl = &t.Threads[i].Zones
		}
	}
	n := zl.Len()
	// Ranges by zone count (the capture's tail after the zones is idle).
	at := func(k int) int64 { return zl.At(k).Start() }
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
			analysis.ZoneFlame(t, at(n/2), at(n/2+n/10), -1)
		}
	})
	// heavy10m's zones are all roots: their ancestor chains are empty.
	noAnc := func(th, i int) []int { return nil }
	b.Run("tenth-from", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			analysis.ZoneFlameFrom(t, at(n/2), at(n/2+n/10), -1, noAnc)
		}
	})
	b.Run("thousandth-from", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			analysis.ZoneFlameFrom(t, at(n/2), at(n/2+n/1000), -1, noAnc)
		}
	})
}

// TestZoneFlameFromEqualsWalk: starting the walk at the range (with the
// ancestors of its first zone) gives the same graph as walking from the
// first zone, for ranges whose ends fall on zone starts and ends exactly.
func TestZoneFlameFromEqualsWalk(t *testing.T) {
	tr := deepTrace(100, 9)
	parents := make([][]int, len(tr.Threads))
	var times []int64
	for ti := range tr.Threads {
		zl := &tr.Threads[ti].Zones
		parents[ti] = make([]int, zl.Len())
		var stack []int
		model.Walk(zl, func(i, depth int) bool {
			stack = append(stack[:depth], i)
			parents[ti][i] = -1
			if depth > 0 {
				parents[ti][i] = stack[depth-1]
			}
			if i%97 == 0 {
				z := zl.At(i)
				times = append(times, z.Start(), z.End(), z.Start()+1)
			}
			return true
		})
	}
	anc := func(th, i int) []int {
		var chain []int
		for p := parents[th][i]; p >= 0; p = parents[th][p] {
			chain = append([]int{p}, chain...)
		}
		return chain
	}
	r := rand.New(rand.NewPCG(4, 4))
	for k := 0; k < 200; k++ {
		a, b := times[r.IntN(len(times))], times[r.IntN(len(times))]
		if a > b {
			a, b = b, a
		}
		th := r.IntN(len(tr.Threads)+1) - 1
		want := analysis.ZoneFlame(tr, a, b, th)
		got := analysis.ZoneFlameFrom(tr, a, b, th, anc)
		if got.Total != want.Total || got.Count != want.Count || len(got.Nodes) != len(want.Nodes) {
			t.Fatalf("[%d, %d] thread %d: total %d count %d nodes %d, the walk gives %d %d %d", a, b, th, got.Total, got.Count, len(got.Nodes), want.Total, want.Count, len(want.Nodes))
		}
		for i := range want.Nodes {
			if got.Nodes[i] != want.Nodes[i] {
				t.Fatalf("[%d, %d] node %d: %+v, want %+v", a, b, i, got.Nodes[i], want.Nodes[i])
			}
		}
	}
}
