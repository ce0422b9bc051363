package lod

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
)

// naiveLane is the reference: the same drawing rule written the obvious
// way, walking every zone of the window one by one through the Next links.
// A narrow zone starts a run; the run takes each following sibling that is
// narrow and starts less than minNs after the run's end.
func naiveLane(zl *model.ZoneList, last int64, q Query) []Item {
	minNs := max(int64(math.Ceil(q.MinPx*q.nsPerPx())), 1)
	end := func(i int) int64 {
		if e := zl.At(i).End(); e >= 0 {
			return e
		}
		return max(last, zl.At(i).Start())
	}
	overlaps := func(i int) bool { return end(i) >= q.T0 && zl.At(i).Start() <= q.T1 }
	// count of zones in [from, to) overlapping the window
	countIn := func(from, to int) uint32 {
		n := uint32(0)
		for i := from; i < to; i++ {
			if overlaps(i) {
				n++
			}
		}
		return n
	}
	var out []Item
	var level func(d, from, to int)
	level = func(d, from, to int) {
		var sib []int
		for j := from; j < to; {
			if overlaps(j) {
				sib = append(sib, j)
			}
			nx := int(zl.At(j).Next())
			if nx <= j {
				break
			}
			j = nx
		}
		for k := 0; k < len(sib); {
			z := sib[k]
			zs, ze := zl.At(z).Start(), end(z)
			if ze-zs >= minNs {
				out = append(out, Item{Start: zs, End: ze, Index: uint32(z), Count: 1, SrcLoc: zl.At(z).SrcLoc, Depth: uint16(d), Unended: zl.At(z).End() < 0})
				level(d+1, z+1, int(zl.At(z).Next()))
				k++
				continue
			}
			last, runEnd := k, ze
			for last+1 < len(sib) {
				n := sib[last+1]
				ns, ne := zl.At(n).Start(), end(n)
				if ns >= runEnd+minNs || ne-ns >= minNs {
					break
				}
				last, runEnd = last+1, max(runEnd, ne)
			}
			out = append(out, Item{Start: zs, End: runEnd, Index: uint32(z), Count: countIn(z, int(zl.At(sib[last]).Next())), SrcLoc: zl.At(z).SrcLoc, Depth: uint16(d), Merged: true})
			k = last + 1
		}
	}
	level(0, 0, zl.Len())
	slices.SortStableFunc(out, func(a, b Item) int { return int(a.Depth) - int(b.Depth) })
	return out
}

func naiveZonesIn(zl *model.ZoneList, last int64, t0, t1 int64) uint64 {
	n := uint64(0)
	for _, z := range zl.All() {
		e := z.End()
		if e < 0 {
			e = max(last, z.Start())
		}
		if e >= t0 && z.Start() <= t1 {
			n++
		}
	}
	return n
}

func checkAgainstNaive(t *testing.T, tr *model.Trace, ix *Index, q Query) {
	t.Helper()
	var tl Timeline
	if err := ix.Timeline(q, &tl); err != nil {
		t.Fatal(err)
	}
	q.MinPx = tl.MinPx
	for li, l := range tl.Lanes {
		if l.Kind != LaneCPU {
			continue
		}
		zl := &tr.Threads[l.Thread].Zones
		want := naiveLane(zl, tr.Metadata.LastTime, q)
		if !slices.Equal(l.Items, want) {
			n := min(len(l.Items), len(want))
			for i := 0; i < n; i++ {
				if l.Items[i] != want[i] {
					t.Fatalf("window %d..%d width %d lane %d: item %d = %+v, want %+v (got %d items, want %d)", q.T0, q.T1, q.Width, li, i, l.Items[i], want[i], len(l.Items), len(want))
				}
			}
			t.Fatalf("window %d..%d lane %d: %d items, want %d", q.T0, q.T1, li, len(l.Items), len(want))
		}
		var sum uint64
		for _, it := range l.Items {
			sum += uint64(it.Count)
		}
		inWin := naiveZonesIn(zl, tr.Metadata.LastTime, q.T0, q.T1)
		if sum != l.Zones || sum != inWin {
			t.Fatalf("window %d..%d lane %d: counts sum to %d, lane says %d, zones in window %d", q.T0, q.T1, li, sum, l.Zones, inWin)
		}
	}
}

func TestTimelineMatchesNaive(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 60_000, Threads: 3, MaxDepth: 12, Seed: 1})
	ix := Build(tr)
	last := tr.Metadata.LastTime
	r := rand.New(rand.NewPCG(7, 7))
	windows := []Query{{T0: 0, T1: last, Width: 2000}, {T0: -last / 10, T1: last + last/10, Width: 800}}
	for range 60 {
		span := max(int64(float64(last)*math.Pow(10, -5*r.Float64())), 10)
		t0 := r.Int64N(last) - span/2
		windows = append(windows, Query{T0: t0, T1: t0 + span, Width: 50 + r.IntN(3000), MinPx: []float64{0, 1, 3, 7.5}[r.IntN(4)]})
	}
	for _, q := range windows {
		checkAgainstNaive(t, tr, ix, q)
	}
}

// TestTimelineAccountsForEveryZone is the viewer's promise at several
// zooms: the zones drawn plus the zones merged equal the zones in the
// window, lane by lane.
func TestTimelineAccountsForEveryZone(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 200_000, Threads: 4, Seed: 2})
	ix := Build(tr)
	last := tr.Metadata.LastTime
	var tl Timeline
	for _, frac := range []float64{1, 0.1, 0.01, 0.001, 0.0001, 0.00001} {
		span := max(int64(float64(last)*frac), 2)
		for _, c := range []float64{0.1, 0.5, 0.9} {
			t0 := int64(float64(last)*c) - span/2
			q := Query{T0: t0, T1: t0 + span, Width: 1920}
			if err := ix.Timeline(q, &tl); err != nil {
				t.Fatal(err)
			}
			for _, l := range tl.Lanes {
				var sum uint64
				for _, it := range l.Items {
					sum += uint64(it.Count)
				}
				want := naiveZonesIn(&tr.Threads[l.Thread].Zones, last, q.T0, q.T1)
				if sum != want || l.Zones != want {
					t.Errorf("zoom %g at %g thread %d: drawn+merged %d (lane %d), zones in window %d", frac, c, l.Thread, sum, l.Zones, want)
				}
			}
		}
	}
}

// Every pixel that holds a zone at a depth whose parent is drawn on its
// own shows an item there: nothing is dropped, and a lone narrow zone is
// still drawn (as a run of one).
func TestTimelineCoversEveryPixel(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 30_000, Threads: 2, MaxDepth: 8, Seed: 3})
	ix := Build(tr)
	last := tr.Metadata.LastTime
	q := Query{T0: last / 3, T1: last/3 + last/50, Width: 1000}
	var tl Timeline
	if err := ix.Timeline(q, &tl); err != nil {
		t.Fatal(err)
	}
	for _, l := range tl.Lanes {
		zl := &tr.Threads[l.Thread].Zones
		drawn := map[uint32]bool{}
		for _, it := range l.Items {
			if !it.Merged {
				drawn[it.Index] = true
			}
		}
		model.Walk(zl, func(i, depth int) bool {
			z := zl.At(i)
			if z.End() < q.T0 || z.Start() > q.T1 {
				return true
			}
			// is the parent drawn alone (or is it a root)?
			parentDrawn := depth == 0
			if depth > 0 {
				for p := i - 1; p >= 0; p-- {
					if int(zl.At(p).Next()) > i {
						parentDrawn = drawn[uint32(p)]
						break
					}
				}
			}
			if !parentDrawn {
				return true
			}
			mid := (max(z.Start(), q.T0) + min(z.End(), q.T1)) / 2
			for _, it := range l.Items {
				if int(it.Depth) == depth && it.Start <= mid && it.End >= mid {
					return true
				}
			}
			t.Fatalf("thread %d zone %d (depth %d, %d..%d) is under no item", l.Thread, i, depth, z.Start(), z.End())
			return false
		})
	}
}

func TestItemBound(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 300_000, Threads: 16, Seed: 4})
	ix := Build(tr)
	var tl Timeline
	q := Query{T0: 0, T1: tr.Metadata.LastTime, Width: 4000, MinPx: 1, MaxItems: 5000}
	if err := ix.Timeline(q, &tl); err != nil {
		t.Fatal(err)
	}
	if n := tl.Items(); n > 5000 {
		t.Fatalf("%d items, bound 5000", n)
	}
	if tl.MinPx <= 1 {
		t.Fatalf("merge width %v: the bound should have widened it", tl.MinPx)
	}
	checkAgainstNaive(t, tr, ix, q)
}

func TestBadQueries(t *testing.T) {
	ix := Build(model.New())
	var tl Timeline
	for _, q := range []Query{{T0: 0, T1: 10, Width: 0}, {T0: 10, T1: 10, Width: 5}, {T0: 0, T1: 10, Width: MaxWidth + 1}, {T0: 0, T1: 10, Width: 10, MinPx: math.NaN()}, {T0: 0, T1: 10, Width: 10, MaxItems: -1}} {
		if err := ix.Timeline(q, &tl); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
	if err := ix.Timeline(Query{T0: 0, T1: 10, Width: 10}, &tl); err != nil || len(tl.Lanes) != 0 {
		t.Fatalf("empty trace: %v, %d lanes", err, len(tl.Lanes))
	}
}

func TestIndexSize(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 100_000, Seed: 5})
	ix := Build(tr)
	per := float64(ix.Bytes()) / float64(tr.ZoneCount())
	if per > 4.01 {
		t.Fatalf("index costs %.2f bytes a zone, goal 4", per)
	}
}

func TestTimelineAllocatesNothingWarm(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 50_000, Seed: 6})
	ix := Build(tr)
	var tl Timeline
	q := Query{T0: 0, T1: tr.Metadata.LastTime, Width: 2000}
	var buf []byte
	for range 3 {
		_ = ix.Timeline(q, &tl)
		buf = tl.AppendBinary(buf[:0], tr)
	}
	a := testing.AllocsPerRun(20, func() {
		_ = ix.Timeline(q, &tl)
		buf = tl.AppendBinary(buf[:0], tr)
	})
	if a != 0 {
		t.Fatalf("%v allocations per warm query", a)
	}
}

// heavyTrace is Tracy's heavy demo in miniature: one thread of tiny root
// zones, with a few gaps and wide zones breaking the merged runs, so the
// runs cross many 256-entry blocks and the block skipping is exercised at
// every block offset.
func heavyTrace(n int, seed uint64) *model.Trace {
	b := model.NewBuilder()
	loc := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("tiny")), Line: 1})
	th := b.Thread(7)
	t := b.Trace()
	zl := &t.Threads[th].Zones
	r := rand.New(rand.NewPCG(seed, 1))
	tm := int64(0)
	for i := 0; i < n; i++ {
		d := int64(20 + r.IntN(40))
		switch r.IntN(5000) {
		case 0:
			tm += 2_000_000 // a gap wider than the merge width at full range
		case 1:
			d = 3_000_000 // a wide zone
		}
		zl.Append(model.MakeZone(tm, tm+d, loc, 0, uint32(zl.Len()+1)))
		tm += d + int64(10+r.IntN(30))
	}
	b.Observe(tm)
	return b.Finish()
}

func TestTimelineDenseRunsMatchNaive(t *testing.T) {
	tr := heavyTrace(300_000, 9)
	ix := Build(tr)
	last := tr.Metadata.LastTime
	r := rand.New(rand.NewPCG(3, 3))
	qs := []Query{{T0: 0, T1: last, Width: 2000}, {T0: 0, T1: last, Width: 100, MinPx: 1}}
	for range 40 {
		span := max(int64(float64(last)*math.Pow(10, -4*r.Float64())), 10)
		t0 := r.Int64N(last) - span/3
		qs = append(qs, Query{T0: t0, T1: t0 + span, Width: 200 + r.IntN(2000), MinPx: []float64{0, 1, 2, 5}[r.IntN(4)]})
	}
	for _, q := range qs {
		checkAgainstNaive(t, tr, ix, q)
	}
}

// FuzzTimeline builds a zone tree from the input (each byte opens a child,
// closes the current zone, or leaves a gap) and checks a window against
// the reference.
func FuzzTimeline(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2, 1}, int64(0), int64(100), uint16(10))
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1}, int64(5), int64(7), uint16(3))
	f.Add(make([]byte, 600), int64(-50), int64(1<<20), uint16(2000))
	f.Fuzz(func(t *testing.T, shape []byte, t0, span int64, width uint16) {
		if len(shape) > 4096 {
			shape = shape[:4096]
		}
		b := model.NewBuilder()
		th := b.Thread(1)
		loc := b.AddStaticSrcLoc(1, model.SourceLocation{Line: 1})
		tm := int64(0)
		for _, c := range shape {
			switch c % 4 {
			case 0:
				b.BeginZone(th, tm, loc)
			case 1:
				b.EndZone(th, tm)
			case 2:
				tm += int64(c) * 3
			}
			tm += int64(c%16) + 1
		}
		b.Observe(tm)
		tr := b.Finish()
		if span <= 0 || span > 1<<40 || t0 < -1<<40 || t0 > 1<<40 {
			return
		}
		q := Query{T0: t0, T1: t0 + span, Width: int(width%4000) + 1}
		checkAgainstNaive(t, tr, Build(tr), q)
	})
}

// GPU lanes come after the CPU lanes, at GPU times, with the same
// accounting.
func TestGPULanes(t *testing.T) {
	tr := model.New()
	var zs []model.GpuZone
	for i := int64(0); i < 5000; i++ {
		s := i * 1000
		// a parent with one child
		zs = append(zs, model.GpuZone{CPUStart: s, CPUEnd: s + 900, GPUStart: s + 50, GPUEnd: s + 850, Next: uint32(len(zs) + 2), SrcLoc: 1})
		zs = append(zs, model.GpuZone{CPUStart: s + 10, CPUEnd: s + 500, GPUStart: s + 100, GPUEnd: s + 400, Next: uint32(len(zs) + 1), SrcLoc: 1})
	}
	zs[len(zs)-1].GPUEnd = -1 // never ended
	tr.GpuContexts = []model.GpuContext{{Timelines: []model.GpuTimeline{{Thread: 1, Zones: zs}}}}
	tr.Metadata.LastTime = 6_000_000
	ix := Build(tr)
	var tl Timeline
	for _, q := range []Query{{T0: 0, T1: 6_000_000, Width: 1000}, {T0: 100_000, T1: 120_000, Width: 1000}, {T0: 4_999_000, T1: 6_000_000, Width: 10}} {
		if err := ix.Timeline(q, &tl); err != nil {
			t.Fatal(err)
		}
		if len(tl.Lanes) != 1 || tl.Lanes[0].Kind != LaneGPU || tl.Lanes[0].Depth != 2 {
			t.Fatalf("lanes %+v", tl.Lanes)
		}
		var want, sum uint64
		for _, z := range zs {
			e := z.GPUEnd
			if e < 0 {
				e = tr.Metadata.LastTime
			}
			if e >= q.T0 && z.GPUStart <= q.T1 {
				want++
			}
		}
		for _, it := range tl.Lanes[0].Items {
			sum += uint64(it.Count)
		}
		if sum != want || tl.Lanes[0].Zones != want {
			t.Fatalf("window %d..%d: items count %d (lane %d), want %d", q.T0, q.T1, sum, tl.Lanes[0].Zones, want)
		}
	}
	// Zoomed in, the unended zone runs to the trace's end and says so.
	if err := ix.Timeline(Query{T0: 4_999_000, T1: 6_000_000, Width: 4000}, &tl); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range tl.Lanes[0].Items {
		if it.Unended {
			found = it.End == tr.Metadata.LastTime && !it.Merged
		}
	}
	if !found {
		t.Fatalf("unended GPU zone not drawn to the trace's end: %+v", tl.Lanes[0].Items)
	}
}

// The block bounds are tight enough to skip: in a run of tiny zones
// (20-60 ns, gaps 10-40 ns) nearly every block's bound is the bit length
// of its widest zone or gap, and both builders agree.
func TestBlockBounds(t *testing.T) {
	tr := heavyTrace(100_000, 4)
	zl := &tr.Threads[0].Zones
	cpu := buildCPULevels(zl, tr.Metadata.LastTime)
	gen := buildLevels(cpuSrc{zl, tr.Metadata.LastTime})
	if !sameLevels(&cpu, &gen) {
		t.Fatal("the chunk walk and the generic builder disagree")
	}
	nested := synthtrace.Make(synthtrace.Spec{Zones: 300_000, Threads: 1, MaxDepth: 20, Seed: 8})
	nz := &nested.Threads[0].Zones
	nc, ng := buildCPULevels(nz, nested.Metadata.LastTime), buildLevels(cpuSrc{nz, nested.Metadata.LastTime})
	if !sameLevels(&nc, &ng) {
		t.Fatal("on a nested thread the chunk walk and the generic builder disagree")
	}
	small, blocks := 0, 0
	for b := uint32(0); (b+1)<<blockShift <= cpu.count(0); b++ {
		blocks++
		if cpu.blockBound(0, b) <= 7 { // below 128 ns
			small++
		}
	}
	if small*10 < blocks*9 {
		t.Fatalf("%d of %d blocks have a bound that allows skipping at 128 ns", small, blocks)
	}
}
