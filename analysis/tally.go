package analysis

import (
	"slices"

	"github.com/gotracy/gotracy/model"
)

// ZoneTally is the zone counts of a Summary (zones, unended, zero-length,
// deepest nesting) in a form a later snapshot of the same capture extends
// by walking only its new zones (SummarizeFrom). It is immutable.
//
// It rests on what a capture's snapshots guarantee (the same as
// lod.Extend): zones only append and keep their index, a zone closed in a
// snapshot never changes, and only a zone still open can end, gain
// children or reach further. So per thread it keeps the counts of the
// zones walked that were closed when walked, and the indices of those that
// were open: they are looked at again each time (few: the open zones are
// the thread's stack), and the stack of open ancestors at the first new
// zone is rebuilt from them. A thread that does not continue the earlier
// one (fewer zones, another first or last zone, another ID, a flight
// recorder's list that dropped its front) is walked afresh.
type ZoneTally struct {
	threads []threadTally
}

type threadTally struct {
	id                    uint64
	n                     int // zones walked
	firstStart, lastStart int64
	lastSrcLoc            int16
	maxDepth              int
	zeroClosed            uint64   // zero-length zones among those closed when walked
	open                  []uint32 // walked zones still open (unended)
}

// Zones is the zone count of the tally (all threads).
func (zt *ZoneTally) Zones() int {
	n := 0
	for i := range zt.threads {
		n += zt.threads[i].n
	}
	return n
}

// extend returns the tally of t from prev's (nil: t walked afresh).
func (prev *ZoneTally) extend(t *model.Trace) *ZoneTally {
	zt := &ZoneTally{threads: make([]threadTally, len(t.Threads))}
	for i := range t.Threads {
		th := &t.Threads[i]
		var old *threadTally
		if prev != nil && i < len(prev.threads) && prev.threads[i].id == th.ID && prev.threads[i].continuedBy(&th.Zones) {
			old = &prev.threads[i]
		}
		zt.threads[i] = tallyThread(old, th.ID, &th.Zones)
	}
	return zt
}

func (tt *threadTally) continuedBy(zl *model.ZoneList) bool {
	if zl.Shifted() || zl.Len() < tt.n {
		return false
	}
	if tt.n == 0 {
		return true
	}
	last := zl.At(tt.n - 1)
	return zl.At(0).Start() == tt.firstStart && last.Start() == tt.lastStart && last.SrcLoc == tt.lastSrcLoc
}

// tallyThread walks zl from old's end (old nil: from the start) as
// SummarizePlots always walked it: the depth as model.Walk computes it,
// from the ends of the open ancestors on a stack.
func tallyThread(old *threadTally, id uint64, zl *model.ZoneList) threadTally {
	tt := threadTally{id: id}
	var ends []int
	n0 := 0
	if old != nil {
		n0 = old.n
		tt.maxDepth, tt.zeroClosed = old.maxDepth, old.zeroClosed
		// The zones open when last looked at: still open, or closed since
		// (then they never change again, and leave the list).
		for _, zi := range old.open {
			z := zl.At(int(zi))
			switch e := z.End(); {
			case e < 0:
				tt.open = append(tt.open, zi)
			case e <= z.Start():
				tt.zeroClosed++
			}
			// The stack of a fresh walk at zone n0: the ancestors whose
			// subtree reaches past it, in index order. Only a zone open
			// earlier can be one (a closed zone's subtree ended within the
			// snapshot it closed in).
			if nx := zl.NextOf(z); nx > n0 {
				ends = append(ends, nx)
			}
		}
	}
	n := zl.Len()
	chunks := zl.Chunks()
	// Chunks hold ZoneChunkLen zones each but the first may be shorter
	// (a list shared from a flight recorder's); the walk from n0 finds its
	// chunk by running starts.
	base := 0
	for _, chunk := range chunks {
		if base+len(chunk) <= n0 {
			base += len(chunk)
			continue
		}
		j0 := max(n0-base, 0)
		for j := j0; j < len(chunk); j++ {
			z, zi := &chunk[j], base+j
			for len(ends) > 0 && zi >= ends[len(ends)-1] {
				ends = ends[:len(ends)-1]
			}
			tt.maxDepth = max(tt.maxDepth, len(ends)+1)
			switch e := z.End(); {
			case e < 0:
				tt.open = append(tt.open, uint32(zi))
			case e <= z.Start():
				tt.zeroClosed++
			}
			if nx := zl.NextOf(z); nx > zi+1 {
				ends = append(ends, nx)
			}
		}
		base += len(chunk)
	}
	tt.n = n
	if n > 0 {
		tt.firstStart = zl.At(0).Start()
		last := zl.At(n - 1)
		tt.lastStart, tt.lastSrcLoc = last.Start(), last.SrcLoc
	}
	tt.open = slices.Clip(tt.open)
	return tt
}

// sum is the thread's counts as Summarize adds them up.
func (tt *threadTally) sum() threadZoneSum {
	return threadZoneSum{maxDepth: tt.maxDepth, unended: uint64(len(tt.open)), zeroLength: tt.zeroClosed}
}
