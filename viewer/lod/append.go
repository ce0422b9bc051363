package lod

import (
	"math"
	"math/bits"

	"github.com/gotracy/gotracy/model"
)

// Extend returns the index of t, a later snapshot of the trace prev
// indexes (a live capture's next published trace), in time that follows
// the zones added since prev rather than all of them: an event reaches
// the live page about as soon after it was captured on a 100M-zone trace
// as on a small one.
//
// It relies on what a capture's snapshots guarantee (capture.Snapshot):
// zones only ever append, so a zone keeps its index, and a zone closed in
// prev never changes. A zone still open in prev (its end was still to
// come) is the last zone of its depth, and only its end and Next changed;
// so per depth, the positions of prev are kept, the new zones are appended
// after them, and only the block bounds of prev's last block (which holds
// the open zone, and the gap to the first new zone) and of the new blocks
// are computed. A thread that does not continue prev's (fewer zones, a
// different first or last indexed zone, another thread ID) is indexed
// from scratch, and so are GPU timelines (their zones are copied per
// snapshot and few).
//
// prev stays valid and unchanged for its readers: new entries go into the
// room after each depth's region of prev's positions, which prev never
// reads, and the bounds of each depth are copied (a byte per 256 zones).
// When a depth has no room left, that lane's positions are copied into a
// new array with room for half as many again, so copying costs a constant
// per zone over a capture. Only one index may append into prev's room:
// extending prev a second time copies instead. Summaries Build may add are
// left off. prev nil means Build(t).
func Extend(prev *Index, t *model.Trace) *Index {
	if prev == nil {
		return Build(t)
	}
	shared := prev.extended.CompareAndSwap(false, true) // ours to append into
	pt := prev.trace
	return index(t, func(ix *Index, k int) levels {
		zl := &t.Threads[k].Zones
		if k < len(prev.cpu) && k < len(pt.Threads) && pt.Threads[k].ID == t.Threads[k].ID && continues(&pt.Threads[k].Zones, zl) {
			return extendCPULevels(&prev.cpu[k], zl, ix.last, shared)
		}
		return buildCPULevels(zl, ix.last)
	})
}

// continues reports whether zl plausibly extends old: at least as many
// zones, and the first and last of old start where they did.
func continues(old, zl *model.ZoneList) bool {
	if old.Shifted() || zl.Shifted() {
		// A flight recorder's list that dropped its front: indices moved,
		// and the walk below assumes chunk-aligned ones. Build it afresh.
		return false
	}
	n := old.Len()
	if n == 0 {
		return true
	}
	if zl.Len() < n {
		return false
	}
	return old.At(0).Start() == zl.At(0).Start() && old.At(n-1).Start() == zl.At(n-1).Start() &&
		old.At(n-1).SrcLoc == zl.At(n-1).SrcLoc
}

// extendCPULevels is old (the levels of zl's first old.n() zones in an
// earlier snapshot) extended by zl's later zones. inPlace says the new
// entries may go into the room of old's regions.
func extendCPULevels(old *levels, zl *model.ZoneList, last int64, inPlace bool) levels {
	n0 := 0
	for d := range old.depth() {
		n0 += int(old.count(d))
	}
	n := zl.Len()
	if n0 == 0 {
		return buildCPULevels(zl, last)
	}
	src := cpuSrc{zl, last}

	// The stack of open ancestors a from-scratch build would have just
	// before zone n0: a chain of the last zones of depths 0, 1, ... (an
	// ancestor of a later zone has no later sibling yet), each taken while
	// its subtree, as zl now says, reaches past n0-1.
	var stack []uint32 // subtree ends, as in buildCPULevels
	top := uint32(math.MaxUint32)
	prevZ := int64(-1)
	for d := range old.depth() {
		if old.count(d) == 0 || len(stack) >= math.MaxUint16 {
			break
		}
		z := old.at(old.hi(d) - 1)
		if int64(z) <= prevZ || z >= top {
			break // not nested in the chain so far
		}
		nx := src.next(z)
		if nx <= z+1 {
			break // no children, so no descendant at n0 or later
		}
		nx = min(nx, top)
		if nx <= uint32(n0-1) {
			break // ended before n0-1: the build popped it
		}
		stack = append(stack, nx)
		top, prevZ = nx, int64(z)
	}

	// Bounds: prev's blocks before its last are final. The last block
	// (which holds the zone still open in prev, and whose gap to the next
	// entry was unknown) is streamed again from prev's positions, then
	// every new zone, through the accumulators of boundsBuilder.
	od := old.depth()
	acc := make([]depthAcc, od, od+1)
	for d := range od {
		first := (old.count(d) - 1) >> blockShift // count > 0: a chain's depth or shallower
		if old.count(d) == 0 {
			first = 0
		}
		a := &acc[d]
		a.bounds = make([]uint8, first, first+(old.count(d)>>blockShift)/2+2)
		copy(a.bounds, old.bounds[d][:first])
		for p := old.lo(d) + first<<blockShift; p < old.hi(d); p++ {
			z := old.at(p)
			a.add(src.start(z), src.end(z))
		}
	}

	// The depth of every new zone, as buildCPULevels finds it.
	depth := make([]uint16, n-n0)
	chunks := zl.Chunks()
	base := n0 &^ (model.ZoneChunkLen - 1)
	for ci := n0 / model.ZoneChunkLen; ci < len(chunks); ci++ {
		chunk := chunks[ci]
		j0 := 0
		if base < n0 {
			j0 = n0 - base
		}
		for j := j0; j < len(chunk); j++ {
			z := &chunk[j]
			u := uint32(base + j)
			for u >= top {
				stack = stack[:len(stack)-1]
				top = math.MaxUint32
				if len(stack) > 0 {
					top = stack[len(stack)-1]
				}
			}
			d := len(stack)
			for d >= len(acc) {
				acc = append(acc, depthAcc{})
			}
			depth[int(u)-n0] = uint16(d)
			zs, ze := z.Start(), z.End()
			if ze < 0 {
				ze = max(last, zs)
			}
			acc[d].add(zs, ze)
			if nx := z.Next() - zl.Origin(); nx > u+1 && len(stack) < math.MaxUint16 {
				nx = min(nx, top)
				stack = append(stack, nx)
				top = nx
			}
		}
		base += len(chunk)
	}

	nd := len(acc)
	add := make([]uint32, nd)
	for _, d := range depth {
		add[d]++
	}
	lv := levels{off: make([]uint32, nd+1), end: make([]uint32, nd), bounds: make([][]uint8, nd)}
	fits := inPlace && nd == od
	if fits {
		for d := range nd {
			if old.off[d+1] < old.hi(d)+add[d] {
				fits = false
				break
			}
		}
	}
	if fits {
		copy(lv.off, old.off)
		for d := range nd {
			lv.end[d] = old.hi(d)
		}
		lv.pos = old.pos
	} else {
		// A new array with room: half as much again as each depth holds
		// now, and at least a block.
		for d := range nd {
			c := add[d]
			if d < od {
				c += old.count(d)
			}
			lv.off[d+1] = lv.off[d] + c + max(c/2, blockLen)
		}
		lv.pos = make([]uint32, lv.off[nd])
		for d := range nd {
			lv.end[d] = lv.off[d]
			if d < od {
				lv.end[d] += uint32(copy(lv.pos[lv.off[d]:], old.pos[old.lo(d):old.hi(d)]))
			}
		}
	}
	for i, d := range depth {
		lv.pos[lv.end[d]] = uint32(n0 + i)
		lv.end[d]++
	}
	for d := range acc {
		a := &acc[d]
		lv.bounds[d] = append(a.bounds, uint8(bits.Len64(uint64(max(a.widest, 0))))) // the last, partial block
	}
	return lv
}

// add streams the next entry of the depth past the accumulator, as
// boundsBuilder.add does.
func (a *depthAcc) add(zs, ze int64) {
	if c := a.count; c > 0 {
		a.widest = max(a.widest, zs-a.prevE)
		if c&(blockLen-1) == 0 {
			a.bounds = append(a.bounds, uint8(bits.Len64(uint64(max(a.widest, 0)))))
			a.widest = 0
		}
	}
	a.widest = max(a.widest, ze-zs)
	a.prevE = ze
	a.count++
}
