package lod

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gotracy/gotracy/model"
)

// naiveSpans is MergeSpans written the obvious way, span by span.
func naiveSpans(st, en []int64, q Query, minPx float64) []Span {
	minNs := max(int64(math.Ceil(minPx*q.nsPerPx())), 1)
	var out []Span
	var idx []int
	for i := range st {
		if en[i] >= q.T0 && st[i] <= q.T1 {
			idx = append(idx, i)
		}
	}
	for k := 0; k < len(idx); {
		i := idx[k]
		if en[i]-st[i] >= minNs {
			out = append(out, Span{Start: st[i], End: en[i], First: uint32(i), Count: 1, Longest: uint32(i)})
			k++
			continue
		}
		last, runEnd := k, en[i]
		for last+1 < len(idx) {
			j := idx[last+1]
			if st[j] >= runEnd+minNs || en[j]-st[j] >= minNs {
				break
			}
			last, runEnd = last+1, max(runEnd, en[j])
		}
		out = append(out, Span{Start: st[i], End: runEnd, First: uint32(i), Count: uint32(last - k + 1)})
		k = last + 1
	}
	return out
}

func TestMergeSpansMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := r.IntN(3000)
		st, en := make([]int64, n), make([]int64, n)
		tm := int64(0)
		for i := range n {
			tm += int64(r.IntN(50))
			if r.IntN(100) == 0 {
				tm += 100_000
			}
			st[i] = tm
			d := int64(r.IntN(30))
			if r.IntN(50) == 0 {
				d = 50_000
			}
			tm += d
			en[i] = tm
		}
		span := max(tm/int64(1+r.IntN(50)), 2)
		t0 := r.Int64N(tm+1) - span/2
		q := Query{T0: t0, T1: t0 + span, Width: 1 + r.IntN(2500)}
		minPx := []float64{0.5, 1, 3}[r.IntN(3)]
		got := MergeSpans(nil, n, func(i int) int64 { return st[i] }, func(i int) int64 { return en[i] }, q, minPx)
		want := naiveSpans(st, en, q, minPx)
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d spans, want %d", trial, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Start != w.Start || g.End != w.End || g.First != w.First || g.Count != w.Count {
				t.Fatalf("trial %d span %d: %+v, want %+v", trial, i, g, w)
			}
			if g.Longest < g.First || g.Longest >= g.First+g.Count {
				t.Fatalf("trial %d span %d: longest %d outside the group", trial, i, g.Longest)
			}
		}
	}
}

func TestFrameBars(t *testing.T) {
	b := model.NewBuilder()
	for i := int64(0); i < 1000; i++ {
		b.FrameMark(0, i*16_000_000+(i%7)*100_000)
	}
	b.Observe(1000 * 16_000_000)
	tr := b.Finish()
	ix := Build(tr)
	// Wide enough: one bar per frame.
	bars, err := ix.FrameBars(nil, 0, Query{T0: 0, T1: 100 * 16_000_000, Width: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 100 || bars[0].Count != 1 { // frames 0..99; frame 100 starts 0.2 ms after the window
		t.Fatalf("%d bars (first count %d), want 100 single frames", len(bars), bars[0].Count)
	}
	// Too narrow: every frame is in exactly one bar.
	bars, err = ix.FrameBars(bars[:0], 0, Query{T0: 0, T1: tr.Metadata.LastTime, Width: 100, MinPx: 3})
	if err != nil {
		t.Fatal(err)
	}
	var n uint32
	for _, s := range bars {
		n += s.Count
	}
	if n != uint32(len(tr.FrameSets[0].Frames)) || len(bars) > 100 {
		t.Fatalf("%d bars hold %d frames, want <= 100 bars for %d frames", len(bars), n, len(tr.FrameSets[0].Frames))
	}
	if _, err := ix.FrameBars(nil, 5, Query{T0: 0, T1: 10, Width: 10}); err == nil {
		t.Fatal("frame set 5 of 1: no error")
	}
}

func TestPlotBuckets(t *testing.T) {
	var pts []model.PlotPoint
	for i := range 10_000 {
		pts = append(pts, model.PlotPoint{Time: int64(i) * 10, Value: math.Sin(float64(i) / 30)})
	}
	pts[5000].Value = 7 // a spike a reduction must not hide
	q := Query{T0: 20_000, T1: 80_000, Width: 300}
	bk, err := PlotBuckets(nil, pts, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(bk) > 302 {
		t.Fatalf("%d buckets for 300 px", len(bk))
	}
	var n uint32
	maxv := math.Inf(-1)
	for i, b := range bk {
		n += b.Count
		maxv = max(maxv, b.Max)
		if i > 0 && b.First != bk[i-1].First+bk[i-1].Count {
			t.Fatalf("bucket %d starts at point %d, previous ended at %d", i, b.First, bk[i-1].First+bk[i-1].Count)
		}
	}
	if want := uint32(6001 + 2); n != want {
		t.Fatalf("buckets hold %d points, want %d (the window's and one each side)", n, want)
	}
	if maxv != 7 {
		t.Fatalf("max %v, the spike 7 was lost", maxv)
	}
	if !slices.IsSortedFunc(bk, func(a, b Bucket) int { return int(a.Start - b.Start) }) {
		t.Fatal("buckets out of order")
	}
}

// The pyramid gives the same buckets as reading every point, at any
// window, for plots big enough to use it.
func TestPlotIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := range 50 {
		n := []int{10, 127, 128, 5000, 300_000}[trial%5]
		pts := make([]model.PlotPoint, n)
		tm := int64(0)
		for i := range pts {
			tm += int64(1 + r.IntN(100))
			pts[i] = model.PlotPoint{Time: tm, Value: r.NormFloat64() * 100}
		}
		pi := NewPlotIndex(pts)
		span := max(tm/int64(1+r.IntN(200)), 2)
		t0 := r.Int64N(tm+1) - span/4
		q := Query{T0: t0, T1: t0 + span, Width: 1 + r.IntN(3000)}
		got, err := pi.Buckets(nil, q)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := PlotBuckets(nil, pts, q)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d points, %+v): %d buckets, want %d", trial, n, q, len(got), len(want))
		}
	}
}

func BenchmarkPlotBuckets(b *testing.B) {
	pts := make([]model.PlotPoint, 30_000_000)
	for i := range pts {
		pts[i] = model.PlotPoint{Time: int64(i) * 10, Value: float64(i % 977)}
	}
	q := Query{T0: 0, T1: int64(len(pts)) * 10, Width: 2000}
	b.Run("scan", func(b *testing.B) {
		var dst []Bucket
		for b.Loop() {
			dst, _ = PlotBuckets(dst[:0], pts, q)
		}
	})
	b.Run("index", func(b *testing.B) {
		pi := NewPlotIndex(pts)
		var dst []Bucket
		b.ReportAllocs()
		for b.Loop() {
			dst, _ = pi.Buckets(dst[:0], q)
		}
		b.ReportMetric(float64(pi.Bytes())/float64(len(pts)), "index-B/point")
	})
}
