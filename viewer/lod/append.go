package lod

import (
	"math"
	"math/bits"
	"sync"

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
	return index(t, func(ix *Index, k int) (levels, how) {
		zl := &t.Threads[k].Zones
		if k < len(prev.cpu) && k < len(pt.Threads) && pt.Threads[k].ID == t.Threads[k].ID && continues(&pt.Threads[k].Zones, zl) {
			return extendCPULevels(&prev.cpu[k], zl, ix.last, shared)
		}
		h := how{kind: built}
		if k >= len(prev.cpu) || k >= len(pt.Threads) {
			h.kind = fresh // a thread prev did not have
		}
		return buildCPULevels(zl, ix.last), h
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
// earlier snapshot) extended by zl's later zones. ownRoom says the new
// entries may go into the room of old's regions (and the spare array
// Grow prepared for them). It also says how it made them.
func extendCPULevels(old *levels, zl *model.ZoneList, last int64, ownRoom bool) (levels, how) {
	n0 := 0
	for d := range old.depth() {
		n0 += int(old.count(d))
	}
	if n0 == 0 {
		return buildCPULevels(zl, last), how{kind: fresh}
	}
	if ownRoom && old.end != nil {
		// One pass: each new zone's position goes straight into the room
		// of its depth. Should a depth's room run out (or a new depth
		// appear), what was written there is left (no index reads past its
		// own entries, and nobody else appends into this room) and the
		// zones are placed again below, in a larger array.
		wend := make([]uint32, old.depth())
		copy(wend, old.end)
		if lv, ok := extendInto(old, zl, last, n0, old.pos, old.off, wend, old.slot); ok {
			return lv, how{kind: inPlace}
		}
	}
	if ownRoom && old.slot != nil {
		// Into the array Grow prepared, in the same one pass, once the
		// positions added since Grow are copied; should it not fit, the
		// move below makes a new one.
		if sp := old.slot.take(); sp != nil && len(sp.copied) == old.depth() {
			od := old.depth()
			wend := make([]uint32, od)
			h := how{kind: spared}
			fits := true
			for d := range od {
				c := sp.copied[d]
				if sp.off[d]+old.count(d) > sp.off[d+1] {
					fits = false
					break
				}
				wend[d] = sp.off[d] + c + uint32(copy(sp.pos[sp.off[d]+c:], old.pos[old.lo(d)+c:old.hi(d)]))
				h.moved += int64(old.count(d) - c)
			}
			if fits {
				if lv, ok := extendInto(old, zl, last, n0, sp.pos, sp.off, wend, new(growSlot)); ok {
					return lv, h
				}
			}
		}
	}
	return extendMoved(old, zl, last, n0)
}

// resume is the state a from-scratch build of zl would have just before
// zone n0, from old: the stack of open ancestors (a chain of the last
// zones of depths 0, 1, ..., each taken while its subtree, as zl now
// says, reaches past n0-1) and each depth's bounds accumulator, prev's
// last block streamed again (it holds the zone that was open in prev, and
// its gap to the next entry was unknown).
func resume(old *levels, src cpuSrc, n0 int) (stack []uint32, top uint32, acc []depthAcc) {
	top = uint32(math.MaxUint32)
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
	od := old.depth()
	acc = make([]depthAcc, od, od+1)
	for d := range od {
		first := uint32(0)
		if old.count(d) > 0 {
			first = (old.count(d) - 1) >> blockShift
		}
		a := &acc[d]
		a.bounds = make([]uint8, first, first+(old.count(d)>>blockShift)/2+2)
		copy(a.bounds, old.bounds[d][:first])
		for p := old.lo(d) + first<<blockShift; p < old.hi(d); p++ {
			z := old.at(p)
			a.add(src.start(z), src.end(z))
		}
	}
	return stack, top, acc
}

// extendInto writes the positions of zl's zones from n0 on into pos as it
// walks them, depth d's from wend[d] on up to its region's end off[d+1]
// (old's own room, or Grow's array holding old's positions); false when a
// depth's room ran out or a depth old does not have appeared. The levels
// it returns use pos and off, with slot.
func extendInto(old *levels, zl *model.ZoneList, last int64, n0 int, pos, off, wend []uint32, slot *growSlot) (levels, bool) {
	stack, top, acc := resume(old, cpuSrc{zl, last}, n0)
	od := old.depth()
	limit := off[1:]
	org := zl.Origin()
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
			if d >= od || wend[d] == limit[d] {
				return levels{}, false
			}
			pos[wend[d]] = u
			wend[d]++
			zs, ze := z.Start(), z.End()
			if ze < 0 {
				ze = max(last, zs)
			}
			acc[d].add(zs, ze)
			if nx := z.Next() - org; nx > u+1 && len(stack) < math.MaxUint16 {
				nx = min(nx, top)
				stack = append(stack, nx)
				top = nx
			}
		}
		base += len(chunk)
	}
	lv := levels{off: off, end: wend, pos: pos, bounds: make([][]uint8, od), slot: slot}
	for d := range acc {
		a := &acc[d]
		lv.bounds[d] = append(a.bounds, uint8(bits.Len64(uint64(max(a.widest, 0))))) // the last, partial block
	}
	return lv, true
}

// extendMoved places old's positions and zl's new zones in a new array
// with room for half as many again as each depth holds.
func extendMoved(old *levels, zl *model.ZoneList, last int64, n0 int) (levels, how) {
	n := zl.Len()
	stack, top, acc := resume(old, cpuSrc{zl, last}, n0)
	od := old.depth()

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
	lv := levels{end: make([]uint32, nd), bounds: make([][]uint8, nd), slot: new(growSlot)}
	h := how{kind: moved}
	// A new array with room: half as much again as each depth holds
	// now, and at least a block.
	lv.off = make([]uint32, nd+1)
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
			h.moved += int64(old.count(d))
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
	return lv, h
}

// growSlot is shared by the levels of one positions array (an index and
// the extensions that appended into its room): the spare array Grow made
// for the extension that will need more room.
type growSlot struct {
	mu   sync.Mutex
	sp   *spare
	done bool // an extension moved the positions away: no more spares
}

// take hands the spare (nil: none) to the extension that moves the
// positions, and closes the slot.
func (g *growSlot) take() *spare {
	g.mu.Lock()
	defer g.mu.Unlock()
	sp := g.sp
	g.sp, g.done = nil, true
	return sp
}

// spareDepthRoom is the room a spare array has after its regions for
// depths that appear after Grow (a region of blockLen each, and twice as
// much for the first).
const spareDepthRoom = 8 * blockLen

// spare is a larger positions array with the positions of each depth
// copied up to copied[d] (what the index Grow ran on held).
type spare struct {
	off    []uint32 // region starts, len depths+1
	copied []uint32 // per depth, positions copied from the region's start
	pos    []uint32
}

// Grow makes the next extensions cheap ahead of time, off the path from a
// new snapshot to its index: for every CPU thread whose positions have
// less room left than a quarter of what a depth holds (an index made by
// Build has none), it makes the larger array an extension would otherwise
// have to move them to, with twice the room each depth holds now, and
// copies the positions so far into it; called again on a later index of
// the same array, it copies the positions added since. The extension that
// runs out of room takes the array and copies only what Grow has not. It
// reports the positions it copied. ix is not changed for its readers, and
// Grow may run while ix is extended (it reads only positions ix itself
// holds, which are never written again); it must not run twice at once on
// indices of the same capture.
func (ix *Index) Grow() (copied int64) {
	for k := range ix.cpu {
		lv := &ix.cpu[k]
		nd := lv.depth()
		g := lv.slot
		if g == nil || nd == 0 {
			continue
		}
		g.mu.Lock()
		sp, done := g.sp, g.done
		if sp != nil && len(sp.copied) == nd {
			// Top up: the positions added since (the extension that takes
			// the spare waits for this, which is short).
			for d := range nd {
				c := sp.copied[d]
				if lv.count(d) <= c || sp.off[d]+lv.count(d) > sp.off[d+1] {
					continue // full: the extension will see it does not fit
				}
				n := copy(sp.pos[sp.off[d]+c:sp.off[d+1]], lv.pos[lv.lo(d)+c:lv.hi(d)])
				sp.copied[d] += uint32(n)
				copied += int64(n)
			}
		}
		g.mu.Unlock()
		if sp != nil || done {
			continue
		}
		need := false
		for d := range nd {
			if room := lv.off[d+1] - lv.hi(d); room*4 < lv.count(d) {
				need = true
			}
		}
		if !need {
			continue
		}
		// The big copy outside the lock: an extension that needs the room
		// meanwhile moves the positions itself, as without Grow.
		sp = &spare{off: make([]uint32, nd+1), copied: make([]uint32, nd)}
		for d := range nd {
			c := lv.count(d)
			sp.off[d+1] = sp.off[d] + 2*c + blockLen
		}
		// And room after the last region for depths that may appear.
		sp.pos = make([]uint32, sp.off[nd]+spareDepthRoom)
		for d := range nd {
			sp.copied[d] = uint32(copy(sp.pos[sp.off[d]:], lv.pos[lv.lo(d):lv.hi(d)]))
			copied += int64(sp.copied[d])
		}
		g.mu.Lock()
		if g.sp == nil && !g.done {
			g.sp = sp
		}
		g.mu.Unlock()
	}
	return copied
}

// DropGrow lets go of the arrays Grow prepared for ix's extensions, and
// makes later Grows of its arrays do nothing, for an index that will not
// be extended again (a live capture's final trace): they hold twice the
// positions. An extension of ix still works: it moves as without Grow.
func (ix *Index) DropGrow() {
	for k := range ix.cpu {
		if g := ix.cpu[k].slot; g != nil {
			g.mu.Lock()
			g.sp, g.done = nil, true
			g.mu.Unlock()
		}
	}
}

// Spares is how many of ix's threads hold an array Grow prepared.
func (ix *Index) Spares() int {
	n := 0
	for k := range ix.cpu {
		if g := ix.cpu[k].slot; g != nil {
			g.mu.Lock()
			if g.sp != nil {
				n++
			}
			g.mu.Unlock()
		}
	}
	return n
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
