package analysis

import (
	"math"

	"github.com/gotracy/gotracy/model"
)

// FrameDurations lists the frame times of frame set fs of t as Tracy's
// compare window takes them (its "Frames" mode): each frame from its start
// to its end, a frame of a continuous set (or an unfinished one) ending
// where the next starts, stopping at the first frame that ends at the
// trace's last time (the frame still running when the capture stopped).
func FrameDurations(t *model.Trace, fs int) []int64 {
	set := &t.FrameSets[fs]
	last := t.Metadata.LastTime
	d := make([]int64, 0, len(set.Frames))
	for i := range set.Frames {
		f := &set.Frames[i]
		end := f.End
		if end < 0 {
			if i+1 < len(set.Frames) {
				end = set.Frames[i+1].Start
			} else {
				end = max(last, f.Start)
			}
		}
		if end == last {
			break
		}
		d = append(d, end-f.Start)
	}
	return d
}

// FrameSetName is the name Tracy shows for frame set fs ("Frame" for the
// default set).
func FrameSetName(t *model.Trace, fs int) string {
	if t.FrameSets[fs].Name == 0 {
		return "Frame"
	}
	return tracyPtrString(t, t.FrameSets[fs].Name)
}

// CompareFrames compares the frame sets of a and b, paired by name (as
// Tracy links its frame-set selection), with the same figures zones get:
// count, total, integer mean, median (element n/2), min, max, standard
// deviation of FrameDurations. In these rows a side's SrcLoc is the frame
// set's index in Trace.FrameSets and File is empty. The filter works on
// the set's name as for zones; the match rule does not apply.
func CompareFrames(a, b *model.Trace, o CompareOptions) *Comparison {
	pa, pb := frameProfile(a), frameProfile(b)
	o.Match = MatchName
	c := CompareProfiles(pa, pb, o)
	c.Match = MatchName
	return c
}

// NewFrameProfile is CompareFrames' per-trace half, for CompareProfiles.
func NewFrameProfile(t *model.Trace) *CompareProfile { return frameProfile(t) }

func frameProfile(t *model.Trace) *CompareProfile {
	p := &CompareProfile{}
	for fs := range t.FrameSets {
		d := FrameDurations(t, fs)
		if len(d) == 0 {
			continue
		}
		s := CompareSide{SrcLoc: model.SrcLocID(fs), Name: FrameSetName(t, fs), Count: uint64(len(d)), Min: math.MaxInt64, Max: math.MinInt64}
		var sumSq float64
		for _, v := range d {
			s.Total += v
			s.Min = min(s.Min, v)
			s.Max = max(s.Max, v)
			sumSq += float64(v) * float64(v)
		}
		s.Mean = int64(uint64(s.Total) / s.Count)
		s.Std = stdDev(sumSq, s.Total, s.Total, s.Count)
		s.Median = NthElement(d, len(d)/2)
		p.zones += s.Count
		p.rows = append(p.rows, s)
	}
	return p
}
