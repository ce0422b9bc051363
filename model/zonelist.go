package model

import (
	"iter"
	"slices"
	"sync/atomic"
	"unsafe"
)

// ZoneChunkLen is how many zones one chunk of a [ZoneList] holds (5.8 MB).
const ZoneChunkLen = 1 << zoneChunkShift

const zoneChunkShift = 18

// ZoneList is a thread's zones in depth-first pre-order, indexed 0..Len-1.
//
// The zones are stored in fixed chunks of ZoneChunkLen that never move once
// full, not in one flat slice: a capture appends zones one by one for
// minutes without knowing how many will come, and a flat slice would be
// copied over and over as it grows (or copied once more at the end into an
// exactly sized one), doubling the peak memory of a 10-million-zone thread
// and spending most of the ingest time on page faults. With chunks every
// zone is written once, into the place it keeps; index arithmetic is one
// shift and one mask. Only the last chunk is partly filled; it grows by
// doubling while the thread is small, so a thread of a few zones costs a
// few zones, and Trim shrinks it to its exact size.
//
// Chunks are 256K zones (5.8 MB) so that each spans at least two aligned
// 2 MiB pages: on Linux, with GOTRACY_HUGEPAGES=1, a chunk of 2 MiB or
// more is advised for transparent huge pages before its first write (see
// adviseHugePages), which on an idle machine cut the page faults of a cold
// 10-million-zone replay from ~70,000 to ~3,000 and its CPU time by about
// half, but on a busy one made it slower and erratic. 1M-zone chunks gained nothing
// more and waste more in a thread's last, partly filled chunk (until Trim).
//
// Chunks are slices of the pointer-free [Zone]: noscan spans the garbage
// collector never walks. A ZoneList is copied by value like a slice header
// (copies share the zones); append through one copy only.
type ZoneList struct {
	// Every chunk but the last holds ZoneChunkLen zones. Chunks are sliced
	// to their full capacity; the zones of last past used are room, and
	// always zero.
	//
	// Indices: zone i is stored at position p = i+off of the chunks
	// (chunks[p>>zoneChunkShift][p&(ZoneChunkLen-1)]). off is not zero
	// only after DropFront let go of the oldest zones (a flight recorder's
	// trim): it drops whole chunks from the table and moves off past the
	// rest, so no kept zone is moved or rewritten.
	chunks [][]Zone
	last   []Zone // chunks[len(chunks)-1], nil when there is none
	base   int    // position of last[0]
	used   int    // zones stored in last
	want   int    // total (in indices) the caller reserved with Grow
	off    int    // position of zone 0 (< ZoneChunkLen)
	// org is what a zone's stored Next is offset by: Next is stored as
	// index+org (mod 2^32), so DropFront, which renumbers every kept zone
	// by the number dropped, changes org instead of the zones. NextOf and
	// SetNextOf translate; org is zero for every list that never dropped.
	org uint32
	// Chunk recycling (a flight recorder's steady state): first is the
	// life-long number of chunks[0] (chunks dropped from the front so
	// far), shared one past the life-long number of the last chunk a
	// Share copy was given (every chunk numbered below it may still be
	// read by a copy), and free the full-size chunks DropFront let go
	// that no copy ever saw, which ensure reuses (cleared) instead of
	// allocating: a list whose front is dropped as fast as it grows then
	// allocates nothing once its window is full, so the heap holds the
	// window, not the window plus the garbage of the chunks dropped since
	// the last collection.
	first, shared int
	free          [][]Zone
}

// maxFreeChunks bounds the chunks a list keeps for reuse (4 × 5.8 MB):
// a trim drops about as much as arrived since the last one, a chunk or
// two at full rate.
const maxFreeChunks = 4

// chunkAllocs counts the bytes of every chunk the lists of this process
// allocated (ZoneChunkBytesAllocated).
var chunkAllocs atomic.Int64

// ZoneChunkBytesAllocated returns the bytes of zone chunks every list of
// this process allocated so far (reused ones not counted again): a flight
// recorder's tests bound what a long stream allocates by it.
func ZoneChunkBytesAllocated() int64 { return chunkAllocs.Load() }

// newChunk returns a zeroed chunk of n zones: a recycled one when n is a
// full chunk and the list has one, else a new one.
func (l *ZoneList) newChunk(n int) []Zone {
	if n == ZoneChunkLen {
		if k := len(l.free) - 1; k >= 0 {
			c := l.free[k]
			l.free[k] = nil
			l.free = l.free[:k]
			clear(c)
			return c
		}
	}
	c := make([]Zone, n)
	chunkAllocs.Add(int64(n) * int64(unsafe.Sizeof(Zone{})))
	adviseHugePages(c)
	return c
}

// release lets go of chunk c, the list's chunk numbered abs over its
// life: kept for reuse when it is full-size and no Share copy can hold it.
func (l *ZoneList) release(c []Zone, abs int) {
	if abs >= l.shared && len(c) == ZoneChunkLen && cap(c) == ZoneChunkLen && len(l.free) < maxFreeChunks {
		l.free = append(l.free, c)
	}
}

// FreeChunks reports how many dropped chunks the list keeps for reuse.
func (l *ZoneList) FreeChunks() int { return len(l.free) }

// TakeFreeChunks moves the dropped chunks o keeps for reuse (see
// DropFront) to l, up to l's bound, for l's next chunks: a copy of o into
// l that drops what it has read from o (a flight recorder's compaction)
// then writes into the chunks it let go instead of allocating the whole
// copy. Only chunks no Share copy of o was given are kept by o, so none
// of them is still read elsewhere.
func (l *ZoneList) TakeFreeChunks(o *ZoneList) {
	for len(o.free) > 0 && len(l.free) < maxFreeChunks {
		k := len(o.free) - 1
		l.free = append(l.free, o.free[k])
		o.free[k] = nil
		o.free = o.free[:k]
	}
}

// NextOf returns the index just past the subtree of z, a zone of l (its
// stored Next translated by the list's origin; see DropFront).
func (l *ZoneList) NextOf(z *Zone) int { return int(z.Next() - l.org) }

// Shifted reports whether the list dropped zones from its front (its
// origin or first chunk's offset is not zero).
func (l *ZoneList) Shifted() bool { return l.off != 0 || l.org != 0 }

// footprint is the number of zones the list's chunks hold memory for
// (dropped ones of a partly dropped first chunk and unused room
// included).
func (l *ZoneList) footprint() int {
	n := 0
	for _, c := range l.chunks {
		n += len(c)
	}
	return n
}

// Footprint is the memory the list's chunks hold, in bytes (zones dropped
// from a partly dropped first chunk and unused room included): a flight
// recorder's bound is on it.
func (l *ZoneList) Footprint() int64 { return int64(l.footprint()) * int64(unsafe.Sizeof(Zone{})) }

// Origin is what the stored Next of the list's zones is offset by (see
// NextOf), for loops that compare stored values directly.
func (l *ZoneList) Origin() uint32 { return l.org }

// SetNextOf sets the subtree end of z, a zone of l, to index i.
func (l *ZoneList) SetNextOf(z *Zone, i int) { z.SetNext(uint32(i) + l.org) }

// ChunkOf returns the number of the chunk (in Chunks' numbering of the
// table Share takes private chunks in) that holds zone i.
func (l *ZoneList) ChunkOf(i int) int { return (i + l.off) >> zoneChunkShift }

// Run returns the zones from i to the end of the chunk that holds it,
// aliasing the list, for loops that read consecutive zones without
// index arithmetic per zone.
func (l *ZoneList) Run(i int) []Zone {
	if uint(i) >= uint(l.Len()) {
		panic("model: zone index out of range")
	}
	p := i + l.off
	k := p >> zoneChunkShift
	c := l.chunks[k]
	if k == len(l.chunks)-1 {
		c = l.last[:l.used]
	}
	return c[p&(ZoneChunkLen-1):]
}

// DropFront lets go of the first n zones, which must be whole subtrees
// (no zone kept may be inside the subtree of one dropped), so that the
// rest stays a valid forest: zone n becomes zone 0. It costs one table
// entry per chunk let go (chunks wholly before the new zone 0 are
// released; the zones of a partly dropped chunk stay in memory until the
// rest of it is dropped) and moves or writes no zone, so chunks a Share
// copy holds are untouched: a flight recorder drops what leaves its
// window at a cost in what leaves, not in what stays.
func (l *ZoneList) DropFront(n int) {
	if n <= 0 {
		return
	}
	if n > l.Len() {
		panic("model: ZoneList.DropFront past the end")
	}
	l.org += uint32(n)
	l.want = max(l.want-n, 0)
	if n == l.Len() {
		for k, c := range l.chunks {
			l.release(c, l.first+k)
			l.chunks[k] = nil
		}
		org, want, first, shared, free := l.org, l.want, l.first+len(l.chunks), l.shared, l.free
		*l = ZoneList{org: org, want: want, first: first, shared: shared, free: free}
		return
	}
	l.off += n
	k := l.off >> zoneChunkShift
	if k == 0 {
		return
	}
	for j := range k {
		l.release(l.chunks[j], l.first+j)
		l.chunks[j] = nil
	}
	l.first += k
	l.chunks = l.chunks[k:]
	l.off -= k << zoneChunkShift
	l.base -= k << zoneChunkShift
}

// ZonesOf returns a list holding a copy of zs.
func ZonesOf(zs ...Zone) ZoneList {
	var l ZoneList
	l.Grow(len(zs))
	for len(zs) > 0 {
		l.ensure()
		n := copy(l.last[l.used:], zs)
		zs = zs[n:]
		l.used += n
	}
	return l
}

// Len returns the number of zones.
func (l *ZoneList) Len() int { return l.base + l.used - l.off }

// At returns zone i, which must be in 0..Len-1. The pointer stays valid
// while the list lives: appending never moves a zone of a full chunk, and
// a partly filled chunk only moves when it grows (Append, Grow), so hold
// pointers across appends only into threads of ZoneChunkLen zones or more,
// or re-fetch them.
func (l *ZoneList) At(i int) *Zone {
	if uint(i) >= uint(l.Len()) {
		panic("model: zone index out of range")
	}
	p := i + l.off
	return &l.chunks[p>>zoneChunkShift][p&(ZoneChunkLen-1)]
}

// Append adds z at the end and returns its index.
func (l *ZoneList) Append(z Zone) int {
	i, p := l.AppendZero()
	*p = z
	return i
}

// AppendZero adds a zero zone at the end and returns its index and
// address, so a hot loop can fill the fields in place instead of building
// a Zone and copying it. It stores no pointer (no write barrier) unless a
// chunk is allocated.
func (l *ZoneList) AppendZero() (int, *Zone) {
	if l.used >= len(l.last) {
		l.ensure()
	}
	j := l.used
	l.used = j + 1
	return l.base + j - l.off, &l.last[j]
}

// Spare returns the unused room of the last chunk, at least one zone long
// (it allocates as Append would when there is none), so that a decoder can
// fill a run of zones in place, straight from its input, and then store
// them with Extend. The room is zero. Like At's pointers, it is valid until
// the next append.
func (l *ZoneList) Spare() []Zone {
	if l.used >= len(l.last) {
		l.ensure()
	}
	return l.last[l.used:]
}

// Extend stores the first n zones of the room Spare returned.
func (l *ZoneList) Extend(n int) {
	if n < 0 || l.used+n > len(l.last) {
		panic("model: ZoneList.Extend past the room Spare returned")
	}
	l.used += n
}

// ensure makes room for one more zone: it grows a partly filled last
// chunk, or starts a new one after a full chunk.
func (l *ZoneList) ensure() {
	if l.used < len(l.last) {
		return
	}
	if l.last == nil || len(l.last) == ZoneChunkLen {
		// A new chunk: exactly what was reserved, else small for a
		// thread's first chunk (most threads have few zones) and full
		// size after a full one.
		need := l.want - l.Len()
		n := ZoneChunkLen
		if need > 0 {
			n = min(need, ZoneChunkLen)
		} else if l.last == nil {
			n = 64
		}
		c := l.newChunk(n)
		l.chunks = append(l.chunks, c)
		l.base = (len(l.chunks) - 1) << zoneChunkShift
		l.last, l.used = c, 0
		return
	}
	// Grow the partly filled last chunk, doubling up to a full chunk.
	l.resizeLast(min(max(2*len(l.last), l.want+l.off-l.base), ZoneChunkLen))
}

// resizeLast reallocates the last chunk to hold n >= used zones.
func (l *ZoneList) resizeLast(n int) {
	nc := l.newChunk(n)
	copy(nc, l.last[:l.used])
	l.chunks[len(l.chunks)-1] = nc
	l.last = nc
}

// Grow reserves room for n more zones, so that appending them allocates
// each chunk once at its final size. A reader that knows the count calls
// it before appending.
func (l *ZoneList) Grow(n int) {
	if n <= 0 {
		return
	}
	l.want = max(l.want, l.Len()+n)
	if l.last == nil {
		return // the first append allocates the reserved size
	}
	if need := min(l.want+l.off-l.base, ZoneChunkLen); need > len(l.last) {
		l.resizeLast(need)
	}
}

// Trim drops the unused room of the last chunk, so the list costs exactly
// 22 bytes per zone (plus one slice header per chunk).
func (l *ZoneList) Trim() {
	l.want = l.Len()
	clear(l.free)
	l.free = nil // a finished list grows no more: its spare chunks go
	switch {
	case l.used == len(l.last):
	case l.used > 0:
		l.resizeLast(l.used)
	default: // an empty last chunk (Grow reserved it): drop it
		k := len(l.chunks) - 1
		l.chunks[k] = nil
		l.chunks = l.chunks[:k]
		l.last, l.used = nil, 0
		if k == 0 {
			l.off = 0
		}
		if k > 0 {
			l.last, l.used = l.chunks[k-1], ZoneChunkLen
			l.base -= ZoneChunkLen
		}
	}
}

// All yields every zone with its index, in order.
func (l *ZoneList) All() iter.Seq2[int, *Zone] {
	return func(yield func(int, *Zone) bool) {
		base := 0
		for _, c := range l.Chunks() {
			for j := range c {
				if !yield(base+j, &c[j]) {
					return
				}
			}
			base += len(c)
		}
	}
}

// Chunks returns the zones as consecutive runs, every run but the first
// and the last ZoneChunkLen long (the first is shorter after DropFront),
// so code that indexes them keeps a running base. Sequential passes over
// millions of zones loop over it directly. The runs alias the list.
func (l *ZoneList) Chunks() [][]Zone {
	if l.used == len(l.last) && l.off == 0 {
		return l.chunks
	}
	out := slices.Clone(l.chunks)
	out[len(out)-1] = l.last[:l.used]
	out[0] = out[0][l.off:]
	return out
}

// Slice returns a copy of the zones in one slice.
func (l *ZoneList) Slice() []Zone {
	out := make([]Zone, 0, l.Len())
	for _, c := range l.Chunks() {
		out = append(out, c...)
	}
	return out
}
