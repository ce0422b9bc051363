package lod

import (
	"math"
	"sort"

	"github.com/gotracy/gotracy/model"
)

// PlotIndex answers a plot's buckets at a cost that follows the pixels:
// a min/max pyramid over blocks of 64 points (then 64 blocks, and so on)
// gives any run of points its true range in O(log n), so a memory plot of
// tens of millions of allocations (Tracy's memory window chokes on those)
// reduces as fast as one of a thousand points. It costs 16 bytes per 64
// points, about a quarter of a byte a point.
type PlotIndex struct {
	pts    []model.PlotPoint
	levels [][]minMax // levels[0]: per 64 points; levels[k]: per 64 entries of k-1
}

type minMax struct{ min, max float64 }

const plotBlockShift = 6

// NewPlotIndex indexes pts, which must be sorted by time and not change.
func NewPlotIndex(pts []model.PlotPoint) *PlotIndex {
	pi := &PlotIndex{pts: pts}
	n := len(pts)
	if n < 2<<plotBlockShift {
		return pi // a linear scan is as fast
	}
	lv := make([]minMax, (n+63)>>plotBlockShift)
	for b := range lv {
		m := minMax{math.Inf(1), math.Inf(-1)}
		for _, p := range pts[b<<plotBlockShift : min((b+1)<<plotBlockShift, n)] {
			m.min, m.max = min(m.min, p.Value), max(m.max, p.Value)
		}
		lv[b] = m
	}
	pi.levels = append(pi.levels, lv)
	for len(lv) > 1<<plotBlockShift {
		up := make([]minMax, (len(lv)+63)>>plotBlockShift)
		for b := range up {
			m := minMax{math.Inf(1), math.Inf(-1)}
			for _, c := range lv[b<<plotBlockShift : min((b+1)<<plotBlockShift, len(lv))] {
				m.min, m.max = min(m.min, c.min), max(m.max, c.max)
			}
			up[b] = m
		}
		pi.levels = append(pi.levels, up)
		lv = up
	}
	return pi
}

// Bytes is the memory the index holds beyond the points.
func (pi *PlotIndex) Bytes() int64 {
	var n int64
	for _, l := range pi.levels {
		n += int64(cap(l)) * 16
	}
	return n
}

// rangeMinMax is the min and max of points [a, b).
func (pi *PlotIndex) rangeMinMax(a, b int) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	scan := func(a, b int) {
		for _, p := range pi.pts[a:b] {
			lo, hi = min(lo, p.Value), max(hi, p.Value)
		}
	}
	if len(pi.levels) == 0 || b-a < 2<<plotBlockShift {
		scan(a, b)
		return lo, hi
	}
	// Points up to the first block boundary and after the last one are
	// read; whole blocks in between come from the pyramid.
	ba := (a + 63) >> plotBlockShift
	bb := b >> plotBlockShift
	scan(a, min(ba<<plotBlockShift, b))
	scan(max(bb<<plotBlockShift, a), b)
	if ba < bb {
		l, h := pi.levelRange(0, ba, bb)
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi
}

// levelRange is the min and max over entries [a, b) of pyramid level k.
func (pi *PlotIndex) levelRange(k, a, b int) (float64, float64) {
	lv := pi.levels[k]
	lo, hi := math.Inf(1), math.Inf(-1)
	if k+1 >= len(pi.levels) || b-a < 2<<plotBlockShift {
		for _, m := range lv[a:b] {
			lo, hi = min(lo, m.min), max(hi, m.max)
		}
		return lo, hi
	}
	ba := (a + 63) >> plotBlockShift
	bb := b >> plotBlockShift
	for _, m := range lv[a:min(ba<<plotBlockShift, b)] {
		lo, hi = min(lo, m.min), max(hi, m.max)
	}
	for _, m := range lv[max(bb<<plotBlockShift, a):b] {
		lo, hi = min(lo, m.min), max(hi, m.max)
	}
	if ba < bb {
		l, h := pi.levelRange(k+1, ba, bb)
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi
}

// Buckets is PlotBuckets at a cost of O(pixels × log n): one bucket per
// pixel that holds points, plus the last point before the window and the
// first after it, each with the true min and max of its points.
func (pi *PlotIndex) Buckets(dst []Bucket, q Query) ([]Bucket, error) {
	if err := q.check(); err != nil {
		return dst, err
	}
	pts := pi.pts
	if len(pts) == 0 {
		return dst, nil
	}
	k := sort.Search(len(pts), func(i int) bool { return pts[i].Time >= q.T0 })
	hi := k + sort.Search(len(pts)-k, func(i int) bool { return pts[k+i].Time > q.T1 })
	if k > 0 {
		dst = append(dst, pointBucket(pts, k-1)) // the point before the window
	}
	px := q.pixelOf
	for i := k; i < hi; {
		p := px(pts[i].Time)
		j := i + 1 + sort.Search(hi-i-1, func(m int) bool { return px(pts[i+1+m].Time) > p })
		lo, hv := pi.rangeMinMax(i, j)
		dst = append(dst, Bucket{Start: pts[i].Time, End: pts[j-1].Time, First: uint32(i), Count: uint32(j - i),
			Min: lo, Max: hv, Open: pts[i].Value, Close: pts[j-1].Value})
		i = j
	}
	if hi < len(pts) {
		dst = append(dst, pointBucket(pts, hi)) // and the one after
	}
	return dst, nil
}

func pointBucket(pts []model.PlotPoint, i int) Bucket {
	v := pts[i].Value
	return Bucket{Start: pts[i].Time, End: pts[i].Time, First: uint32(i), Count: 1, Min: v, Max: v, Open: v, Close: v}
}
