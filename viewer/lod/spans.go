package lod

import (
	"fmt"
	"math"
	"sort"

	"github.com/gotracy/gotracy/model"
)

// Span is one drawn piece of a row of time-sorted, non-overlapping spans
// (frames, lock states, context switches, message ticks): Count spans from
// First on, reduced to one when they are narrower than the merge width.
type Span struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	First uint32 `json:"first"` // index of the first span in the row
	Count uint32 `json:"count"`
	// Longest is the index of the longest span of the group: a frame-time
	// graph draws a merged bar at the height of its slowest frame.
	Longest uint32 `json:"longest"`
}

// MergeSpans reduces the n spans of a row, sorted by start and not
// overlapping (so sorted by end too), to what the window q draws: spans at
// least minPx wide come out alone; runs of narrower ones whose gaps are
// narrower than minPx come out as one group. start and end read span i.
// Point events (messages) are spans with end == start. The cost is
// O(pixels × log n), whatever n is. It appends to dst and returns it.
func MergeSpans(dst []Span, n int, start, end func(i int) int64, q Query, minPx float64) []Span {
	if n == 0 || q.Width <= 0 || q.T1 <= q.T0 {
		return dst
	}
	minNs := max(int64(math.Ceil(minPx*q.nsPerPx())), 1)
	k := sort.Search(n, func(i int) bool { return end(i) >= q.T0 })
	hi := k + sort.Search(n-k, func(i int) bool { return start(k+i) > q.T1 })
	for k < hi {
		s, e := start(k), end(k)
		if e-s >= minNs {
			dst = append(dst, Span{Start: s, End: e, First: uint32(k), Count: 1, Longest: uint32(k)})
			k++
			continue
		}
		last, runEnd := k, e
		longest, longestDur := k, e-s
		for {
			m := last + 1 + sort.Search(hi-last-1, func(i int) bool { return start(last+1+i) >= runEnd+minNs })
			if m == last+1 {
				break
			}
			qi := m - 1
			qs, qe := start(qi), end(qi)
			if qe-qs >= minNs {
				if qi-1 > last {
					last = qi - 1
					runEnd = max(runEnd, end(last))
				}
				break
			}
			// The jump skipped spans between last and qi: the longest of
			// the group may be among them. Looking at each would cost per
			// span; the group's spans all fit in the run, so the longest
			// of those seen (the ends of each jump) is within a pixel of
			// the truth at this scale.
			if qe-qs > longestDur {
				longest, longestDur = qi, qe-qs
			}
			last, runEnd = qi, max(runEnd, qe)
		}
		dst = append(dst, Span{Start: s, End: runEnd, First: uint32(k), Count: uint32(last - k + 1), Longest: uint32(longest)})
		k = last + 1
	}
	return dst
}

// FrameBars is the frame-time graph's and the timeline's frame row for
// frame set fs in the window: one span per frame wide enough to draw, one
// per group of narrower frames (its Longest is the slowest frame there,
// among those the reduction looked at).
func (ix *Index) FrameBars(dst []Span, fs int, q Query) ([]Span, error) {
	if err := q.check(); err != nil {
		return dst, err
	}
	t := ix.trace
	if fs < 0 || fs >= len(t.FrameSets) {
		return dst, badIndex("frame set", fs, len(t.FrameSets))
	}
	frames := t.FrameSets[fs].Frames
	endOf := func(i int) int64 { return FrameEnd(t, fs, i) }
	minPx := q.MinPx
	if minPx == 0 {
		minPx = 1
	}
	return MergeSpans(dst, len(frames), func(i int) int64 { return frames[i].Start }, endOf, q, minPx), nil
}

// FrameEnd is where frame i of set fs ends: its own end, or for a
// continuous set (and an unfinished frame) where the next one starts, the
// last at the trace's end.
func FrameEnd(t *model.Trace, fs, i int) int64 {
	set := &t.FrameSets[fs]
	f := &set.Frames[i]
	if f.End >= 0 {
		return f.End
	}
	if i+1 < len(set.Frames) {
		return set.Frames[i+1].Start
	}
	return max(t.Metadata.LastTime, f.Start)
}

// Bucket is a plot's points in one group of pixels: their value range, and
// the first and last points (a line joins buckets last to first).
type Bucket struct {
	Start int64   `json:"start"` // time of the first point
	End   int64   `json:"end"`   // time of the last point
	First uint32  `json:"first"` // index of the first point
	Count uint32  `json:"count"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Open  float64 `json:"open"`  // first point's value
	Close float64 `json:"close"` // last point's value
}

// PlotBuckets reduces points (sorted by time) to one bucket per pixel of
// the window that holds points, plus the last point before the window and
// the first after it, so a line can be drawn to the window's edges. Every
// point of a bucket is read, because a bucket's min and max must be true
// (a spike a reduction skipped would be a lie); the cost is therefore the
// number of points in the window, not the pixels. Plots are usually far
// smaller than zone lanes; see docs/DESIGN.md for the mipmap this would
// take if they were not.
func PlotBuckets(dst []Bucket, pts []model.PlotPoint, q Query) ([]Bucket, error) {
	if err := q.check(); err != nil {
		return dst, err
	}
	if len(pts) == 0 {
		return dst, nil
	}
	k := sort.Search(len(pts), func(i int) bool { return pts[i].Time >= q.T0 })
	hi := k + sort.Search(len(pts)-k, func(i int) bool { return pts[k+i].Time > q.T1 })
	if k > 0 {
		k-- // the point before the window
	}
	if hi < len(pts) {
		hi++ // and the one after
	}
	px := q.pixelOf
	for i := k; i < hi; {
		p := px(pts[i].Time)
		b := Bucket{Start: pts[i].Time, End: pts[i].Time, First: uint32(i), Count: 1, Min: pts[i].Value, Max: pts[i].Value, Open: pts[i].Value, Close: pts[i].Value}
		j := i + 1
		for ; j < hi && px(pts[j].Time) == p; j++ {
			v := pts[j].Value
			b.Min, b.Max, b.Close, b.End = min(b.Min, v), max(b.Max, v), v, pts[j].Time
			b.Count++
		}
		dst = append(dst, b)
		i = j
	}
	return dst, nil
}

func badIndex(what string, got, n int) error {
	return fmt.Errorf("%w: %s must be 0..%d, got %d", ErrBadQuery, what, n-1, got)
}
