package lod

import "sync"

// A mipmap holds, per depth of a lane and per resolution R = 2^shift ns
// (shifts mipShift0, mipShift0+mipStep, ...), the runs a merge at width R
// makes of that depth's zones, where a run takes the following zones while
// each is narrower than R and starts less than R after the run's end.
// Only runs of at least mipMinRun zones are stored (their first and last
// positions), so a mipmap costs a fraction of a byte a zone.
//
// A query merging at minNs >= R uses the finest such level: every zone of
// a stored run after the first is narrow at minNs and starts within minNs
// of the run so far, so once a query's run holds one of its zones, or its
// first zone joins, the query's run holds the whole stored run. The walk
// jumps there in one step instead of galloping across it; what it draws
// is unchanged. The mipmap is optional: a nil one (Extend's, or an index
// built without) leaves the walk as it was.
type mipmap struct {
	levels [][]mipRuns // by level, then depth
}

// mipRuns are one depth's stored runs at one resolution, by position.
type mipRuns struct {
	first, last []uint32
}

const (
	mipShift0 = 8  // 256 ns
	mipStep   = 2  // resolutions 4^k apart
	mipLevels = 13 // up to 2^32 ns
	mipMinRun = 64 // zones a stored run holds at least
)

// buildMip makes the mipmap of one lane in one pass over each depth's
// positions (in time order), all resolutions at once.
func buildMip[S zoneSource](s S, lv *levels) *mipmap {
	nd := lv.depth()
	if nd == 0 {
		return nil
	}
	m := &mipmap{levels: make([][]mipRuns, mipLevels)}
	for l := range m.levels {
		m.levels[l] = make([]mipRuns, nd)
	}
	type state struct {
		open        bool
		first, last uint32
		end         int64
	}
	var st [mipLevels]state
	for d := range nd {
		lo, hi := lv.lo(d), lv.hi(d)
		for l := range st {
			st[l] = state{}
		}
		flush := func(l int) {
			if s := &st[l]; s.open && s.last-s.first+1 >= mipMinRun {
				r := &m.levels[l][d]
				r.first = append(r.first, s.first)
				r.last = append(r.last, s.last)
			}
		}
		for p := lo; p < hi; p++ {
			z := lv.at(p)
			zs, ze := s.start(z), s.end(z)
			w := ze - zs
			for l := range st {
				r := int64(1) << (mipShift0 + mipStep*l)
				x := &st[l]
				if w < r && x.open && zs < x.end+r {
					x.last, x.end = p, max(x.end, ze)
					continue
				}
				flush(l)
				*x = state{open: w < r, first: p, last: p, end: ze}
			}
		}
		for l := range st {
			flush(l)
		}
	}
	// Drop the empty levels' slices so they cost nothing.
	for l := range m.levels {
		empty := true
		for d := range m.levels[l] {
			if len(m.levels[l][d].first) > 0 {
				empty = false
			}
		}
		if empty {
			m.levels[l] = nil
		}
	}
	return m
}

// forWidth is the finest level whose resolution is at most minNs (nil if
// none is stored).
func (m *mipmap) forWidth(minNs int64) []mipRuns {
	if m == nil {
		return nil
	}
	for l := mipLevels - 1; l >= 0; l-- {
		if int64(1)<<(mipShift0+mipStep*l) <= minNs {
			return m.levels[l]
		}
	}
	return nil
}

func (m *mipmap) bytes() int64 {
	if m == nil {
		return 0
	}
	var n int64
	for _, l := range m.levels {
		for _, r := range l {
			n += int64(cap(r.first)+cap(r.last)) * 4
		}
	}
	return n
}

// mipJump extends a run of depth d that has reached position last (with
// end runEnd) over the stored runs that it must take whole, staying below
// hi, the end of the sibling range.
func (w *walker[S]) mipJump(d int, last, hi uint32, runEnd int64) (uint32, int64) {
	if d >= len(w.mip) {
		return last, runEnd
	}
	r := &w.mip[d]
	// The first stored run that ends after last.
	i, j := 0, len(r.last)
	for i < j {
		h := int(uint(i+j) >> 1)
		if r.last[h] <= last {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(r.last); i++ {
		f := r.first[i]
		if f > last+1 {
			break // the next zone is in no stored run
		}
		if f == last+1 && w.s.start(w.lv.at(f)) >= runEnd+w.minNs {
			break // the run's first zone is too far (it is narrow: stored runs start narrow)
		}
		to := r.last[i]
		if to >= hi {
			if hi-1 > last {
				last = hi - 1
				runEnd = max(runEnd, w.s.end(w.lv.at(last)))
			}
			break
		}
		last = to
		runEnd = max(runEnd, w.s.end(w.lv.at(last)))
	}
	return last, runEnd
}

// withMipmaps is ix with a mipmap beside every CPU lane's levels, sharing
// everything else. Build does not make them: measured on
// BenchmarkTimelineOffsets (docs/DESIGN.md, viewer/lod), they cut a 0.1%
// window's zone reads at 100M zones 3.3x but its CPU time only 20%, and
// cost 0.21-0.26 bytes a zone beyond the 4-byte budget and a build twice
// as long. Tests and benchmarks use this to keep them exact and measured.
func (ix *Index) withMipmaps() *Index {
	c := ix.shallowCopy()
	var wg sync.WaitGroup
	for i := range c.cpu {
		wg.Go(func() { c.cpu[i].mip = buildMip(cpuSrc{&ix.trace.Threads[i].Zones, ix.last}, &c.cpu[i]) })
	}
	wg.Wait()
	return c
}

// shallowCopy is ix with its own lane table, sharing the positions. It
// counts as extended already, so an Extend of either copies instead of
// appending into room the other sees.
func (ix *Index) shallowCopy() *Index {
	c := &Index{trace: ix.trace, cpu: append([]levels(nil), ix.cpu...), gpu: ix.gpu, last: ix.last, colors: ix.colors}
	c.extended.Store(true)
	ix.extended.Store(true)
	return c
}
