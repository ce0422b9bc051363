package lod

import (
	"math"
	"math/bits"

	"github.com/gotracy/gotracy/model"
)

// cpuBuilder is the depth walk of buildCPULevels made resumable: a thread's
// zones can be fed to it in batches while a decoder is still appending
// them (Stream), with the zones that are still open named, so that it
// never reads what the decoder has yet to write. A zone still open has its
// start and source location but not its end and Next; it is an ancestor of
// every zone decoded after it until it closes. So the walk pushes it as an
// ancestor of unknown end, and its end enters the depth's block bounds only
// when the depth's next zone comes (its sibling, which the decoder appends
// only after the zone closed) or at the finish. Fed every zone at once with
// none open (Build), it is the plain sequential walk.
type cpuBuilder struct {
	b      boundsBuilder
	stack  []uint32    // subtree ends of the open ancestors; math.MaxUint32: not known yet
	openAt []openEntry // the stack entries whose zone was open when walked, outermost first
	top    uint32      // the innermost ancestor's subtree end (math.MaxUint32: none or unknown)
	d      int         // depth of the accumulator the walk holds, -1 none
	n      int         // zones walked
	org    uint32      // stored Next values are index+org
	last   int64       // where unended zones end
	chunks [][]model.Zone
	// pos0, when not nil, is the levels' positions allocated ahead (a
	// stream's thread of known size), into which the walk writes depth 0's
	// entries as it goes: depth 0's region starts at 0 whatever the other
	// depths hold, so finish lays out only the deeper ones (none for a
	// thread of root zones alone).
	pos0 []uint32
}

// openEntry is a stack entry pushed for a zone that was still open.
type openEntry struct {
	level int    // its place on the stack
	z     uint32 // the zone
}

// newCPUBuilder starts the walk of a thread expected to hold about want
// zones (a hint: the depth array grows past it).
func newCPUBuilder(want int, org uint32, last int64) *cpuBuilder {
	c := &cpuBuilder{top: math.MaxUint32, d: -1, org: org, last: last}
	c.b.depth = make([]uint16, 0, max(want, 0))
	return c
}

// preallocate gives the walk the levels' positions ahead, for a thread
// expected to hold want zones (see pos0). The pages are touched now, on
// the walk's goroutine, rather than by finish.
func (c *cpuBuilder) preallocate(want int) {
	c.pos0 = make([]uint32, want)
	for i := 0; i < want; i += 1024 {
		c.pos0[i] = 0
	}
}

// walk indexes the zones from where the last walk stopped up to zone to:
// chunks hold at least the first to zones of the thread, and open lists,
// in increasing order, the zones among them whose end and Next are still
// to come (every other one is final and will not change). A zone open in
// an earlier walk and missing from open has closed since.
func (c *cpuBuilder) walk(chunks [][]model.Zone, to int, open []uint32) {
	c.chunks = chunks
	c.refresh(open)
	if to > cap(c.b.depth) {
		nd := make([]uint16, len(c.b.depth), max(to, 2*cap(c.b.depth)))
		copy(nd, c.b.depth)
		c.b.depth = nd
	}
	c.b.depth = c.b.depth[:max(to, len(c.b.depth))]
	for _, u := range open {
		if int(u) < c.n {
			continue // walked before, open then too
		}
		if int(u) >= to {
			break
		}
		c.run(int(u))
		c.openZone(u)
	}
	c.run(to)
}

// refresh gives the stack entries of zones that have closed since they
// were walked their subtree ends, now final.
func (c *cpuBuilder) refresh(open []uint32) {
	if len(c.openAt) == 0 {
		return
	}
	k, i := 0, 0
	for _, e := range c.openAt {
		for i < len(open) && open[i] < e.z {
			i++
		}
		if i < len(open) && open[i] == e.z {
			c.openAt[k] = e // still open
			k++
			continue
		}
		nx := c.zone(e.z).Next() - c.org
		if e.level > 0 {
			nx = min(nx, c.stack[e.level-1]) // a child never outlives its parent's subtree
		}
		c.stack[e.level] = nx
		for q := e.level + 1; q < len(c.stack); q++ {
			c.stack[q] = min(c.stack[q], c.stack[q-1])
		}
	}
	c.openAt = c.openAt[:k]
	c.top = math.MaxUint32
	if len(c.stack) > 0 {
		c.top = c.stack[len(c.stack)-1]
	}
}

// zone is zone i of the chunks.
func (c *cpuBuilder) zone(i uint32) *model.Zone {
	j := int(i)
	for _, ch := range c.chunks {
		if j < len(ch) {
			return &ch[j]
		}
		j -= len(ch)
	}
	panic("lod: zone index past the chunks") // walk's callers guarantee the chunks hold it
}

// resolve adds the depth's pending open zone, closed by now, to its bounds.
func (c *cpuBuilder) resolve(a *depthAcc) {
	ze := c.zone(a.pendZ).End()
	if ze < 0 {
		ze = max(c.last, a.pendS)
	}
	a.widest = max(a.widest, ze-a.pendS)
	a.prevE = ze
	a.pend = false
}

// openZone walks zone u, which is still open.
func (c *cpuBuilder) openZone(u uint32) {
	b := &c.b
	for u >= c.top {
		c.pop()
	}
	d := len(c.stack)
	if d >= len(b.acc) {
		d = b.grow(d)
	}
	a := &b.acc[d]
	if a.pend {
		c.resolve(a)
	}
	zs := c.zone(u).Start()
	b.depth[u] = uint16(d)
	if a.count > 0 {
		a.widest = max(a.widest, zs-a.prevE)
		if a.count&(blockLen-1) == 0 {
			a.bounds = append(a.bounds, uint8(bits.Len64(uint64(max(a.widest, 0)))))
			a.widest = 0
		}
	}
	if d == 0 && c.pos0 != nil {
		if int(a.count) < len(c.pos0) {
			c.pos0[a.count] = u
		} else {
			c.pos0 = nil
		}
	}
	a.pend, a.pendS, a.pendZ = true, zs, u
	a.count++
	// Pushed as an ancestor of unknown end whether or not it will have
	// children: if it closes without any, its end is u+1 and the next zone
	// pops it before taking its depth, as if it had never been pushed.
	if len(c.stack) < math.MaxUint16 {
		c.openAt = append(c.openAt, openEntry{level: len(c.stack), z: u})
		c.stack = append(c.stack, math.MaxUint32)
		c.top = math.MaxUint32
	}
	c.d = -1
	c.n = int(u) + 1
}

func (c *cpuBuilder) pop() {
	c.stack = c.stack[:len(c.stack)-1]
	c.top = math.MaxUint32
	if len(c.stack) > 0 {
		c.top = c.stack[len(c.stack)-1]
	}
}

// run walks the zones from c.n up to zone to, none of them open.
func (c *cpuBuilder) run(to int) {
	if c.n >= to {
		return
	}
	b := &c.b
	stack, top, d := c.stack, c.top, c.d
	var a *depthAcc
	if d >= 0 {
		a = &b.acc[d]
	}
	last, org := c.last, c.org
	base, ci := 0, 0
	for ci < len(c.chunks) && base+len(c.chunks[ci]) <= c.n {
		base += len(c.chunks[ci])
		ci++
	}
	for ; ci < len(c.chunks) && base < to; ci++ {
		full := len(c.chunks[ci])
		chunk := c.chunks[ci][:min(full, to-base)]
		depth := b.depth[base : base+len(chunk)]
		for j := max(c.n-base, 0); j < len(chunk); {
			u := uint32(base + j)
			for u >= top {
				stack = stack[:len(stack)-1]
				top = math.MaxUint32
				if len(stack) > 0 {
					top = stack[len(stack)-1]
				}
			}
			if len(stack) != d {
				d = len(stack)
				if d >= len(b.acc) {
					d = b.grow(d)
				}
				a = &b.acc[d]
			}
			if a.pend {
				c.resolve(a)
			}
			// The zones from j on at depth d, up to the first with children
			// (included), the innermost ancestor's end or the chunk's end:
			// the depth's accumulator lives in locals meanwhile, since
			// storing through a on every zone cost a third of the loop.
			// (boundsBuilder.add, inlined: this loop is the index's cost.)
			cnt, widest, prevE, bounds := a.count, a.widest, a.prevE, a.bounds
			dd := uint16(d)
			pos0 := c.pos0
			if d != 0 || len(pos0) < int(cnt)+min(len(chunk)-j, int(top-u)) {
				if d == 0 {
					c.pos0 = nil // more roots than the thread was said to hold
				}
				pos0 = nil
			}
			for j < len(chunk) && u < top {
				if pos0 != nil {
					pos0[cnt] = u
				}
				z := &chunk[j]
				zs, ze := z.Start(), z.End()
				if ze < 0 {
					ze = max(last, zs)
				}
				depth[j] = dd
				if cnt > 0 {
					widest = max(widest, zs-prevE)
					if cnt&(blockLen-1) == 0 {
						bounds = append(bounds, uint8(bits.Len64(uint64(max(widest, 0)))))
						widest = 0
					}
				}
				widest = max(widest, ze-zs)
				prevE = ze
				cnt++
				j++
				if nx := z.Next() - org; nx > u+1 && len(stack) < math.MaxUint16 {
					nx = min(nx, top) // a child never outlives its parent's subtree
					stack = append(stack, nx)
					top = nx
					break
				}
				u++
			}
			a.count, a.widest, a.prevE, a.bounds = cnt, widest, prevE, bounds
		}
		base += full
	}
	c.stack, c.top, c.d, c.n = stack, top, d, to
}

// finish lays out the levels of the zones walked; the last walk must have
// named no zone open.
func (c *cpuBuilder) finish() levels {
	for d := range c.b.acc {
		if a := &c.b.acc[d]; a.pend {
			c.resolve(a)
		}
	}
	c.b.depth = c.b.depth[:c.n]
	var lv levels
	if c.pos0 != nil && len(c.pos0) == c.n && (len(c.b.acc) == 0 || int(c.b.acc[0].count) <= c.n) {
		lv = c.b.finishWith(c.pos0)
	} else {
		lv = c.b.finish()
	}
	c.chunks, c.pos0 = nil, nil
	return lv
}
