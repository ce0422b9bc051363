// Package lod answers the viewer's one hot question: what does a timeline
// draw for the window [T0, T1] at a width of W pixels. The answer's size
// and cost follow the pixels, not the zones behind them, so a trace of a
// hundred million zones draws as fast as one of a million.
//
// Build an [Index] once per trace, then ask it for windows:
//
//	ix := lod.Build(trace)
//	var tl lod.Timeline
//	err := ix.Timeline(lod.Query{T0: 0, T1: trace.Metadata.LastTime, Width: 2000}, &tl)
//	for _, lane := range tl.Lanes {
//		for _, it := range lane.Items { ... draw it ... }
//	}
//	body := tl.AppendBinary(nil, trace) // the compact form /api/v1/timeline sends
//
// A trace that grows (a live capture's snapshots) is indexed with [Extend]
// from the index of its previous snapshot, in time that follows what was
// added.
//
// Zones narrower than [Query.MinPx] are merged with their close neighbours
// into one drawn run that says how many zones it stands for, the way Tracy's
// GUI draws them: every pixel that holds zones shows something, and the
// counts of the drawn zones and merged runs add up to the zones in the
// window. Frames ([Index.FrameBars]), plots ([Index.PlotBuckets]) and any
// other time-sorted spans ([MergeSpans]) are reduced the same way.
package lod

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gotracy/gotracy/model"
)

// DefaultMinPx is the width under which a zone is merged with its
// neighbours when a query names none: Tracy's MinVisSize.
const DefaultMinPx = 3

// DefaultMaxItems bounds the items of one answer (all lanes together) when
// a query names no bound. At the binary encoding's 6-10 bytes an item it
// keeps a response under 256 KiB.
const DefaultMaxItems = 24000

// MaxWidth is the widest window a query may ask for, in pixels.
const MaxWidth = 16384

// ErrBadQuery is wrapped by every error about a query's parameters.
var ErrBadQuery = errors.New("lod: bad query")

// Query is a window of the timeline and the pixels it is drawn on.
type Query struct {
	T0, T1 int64   // the window, ns, inclusive; T1 > T0
	Width  int     // pixels the window spans, 1..MaxWidth
	MinPx  float64 // zones narrower than this are merged; 0 means DefaultMinPx
	// MaxItems bounds the items of all lanes together; 0 means
	// DefaultMaxItems. When the first pass would exceed it, the merge width
	// doubles until the answer fits (Timeline.MinPx reports the width used),
	// so a response's size never depends on the trace.
	MaxItems int
}

func (q *Query) check() error {
	switch {
	case q.Width < 1 || q.Width > MaxWidth:
		return fmt.Errorf("%w: width must be 1..%d pixels, got %d", ErrBadQuery, MaxWidth, q.Width)
	case q.T1 <= q.T0:
		return fmt.Errorf("%w: the window must end after it starts, got t0=%d t1=%d", ErrBadQuery, q.T0, q.T1)
	case q.MinPx < 0 || math.IsNaN(q.MinPx) || math.IsInf(q.MinPx, 0) || q.MinPx > float64(q.Width):
		return fmt.Errorf("%w: minpx must be 0..width, got %v", ErrBadQuery, q.MinPx)
	case q.MaxItems < 0:
		return fmt.Errorf("%w: max items must not be negative, got %d", ErrBadQuery, q.MaxItems)
	}
	return nil
}

// nsPerPx is the window's scale.
func (q *Query) nsPerPx() float64 { return float64(q.T1-q.T0) / float64(q.Width) }

// pixelOf is the pixel column time t falls in (negative before the window).
func (q *Query) pixelOf(t int64) int64 { return int64(math.Floor(float64(t-q.T0) / q.nsPerPx())) }

// Item is one drawn thing of a lane: a zone wide enough to draw on its own,
// or a merged run of narrow neighbouring zones (with everything nested in
// them).
type Item struct {
	Start int64 `json:"start"` // ns
	End   int64 `json:"end"`   // ns; a zone that never ended runs to the trace's end
	// Index is the zone's index in its thread's ZoneList (GPU lanes: in the
	// timeline's Zones); for a merged run, the first zone of the run.
	Index uint32 `json:"index"`
	// Count is how many zones the item stands for: 1 for a zone; for a
	// merged run, every zone of the run and of the zones nested in it that
	// overlaps the window.
	Count  uint32 `json:"count"`
	SrcLoc int16  `json:"srcloc"`
	Depth  uint16 `json:"depth"`
	Merged bool   `json:"merged,omitempty"`
	// Unended marks a zone that never ended (End is the trace's end).
	Unended bool `json:"unended,omitempty"`
}

// LaneKind says what a lane's zones are.
type LaneKind uint8

const (
	LaneCPU LaneKind = iota // Trace.Threads[Thread].Zones
	LaneGPU                 // Trace.GpuContexts[Context].Timelines[Timeline].Zones, at GPU times
)

// Lane is the drawn items of one thread or GPU timeline.
type Lane struct {
	Kind     LaneKind `json:"kind"`
	Thread   int      `json:"thread"`   // CPU: index into Trace.Threads
	Context  int      `json:"context"`  // GPU: index into Trace.GpuContexts
	Timeline int      `json:"timeline"` // GPU: index into the context's Timelines
	// Depth is the lane's deepest nesting over the whole trace plus one, so
	// a page can give the lane a height that does not jump while panning.
	Depth int `json:"depth"`
	// Zones is how many of the lane's zones overlap the window: the sum
	// of the items' counts.
	Zones uint64 `json:"zones"`
	// Items are sorted by depth, then start.
	Items []Item `json:"items"`
}

// Timeline is one answer: the query as applied and a lane per thread with
// zones, then a lane per GPU timeline with zones.
type Timeline struct {
	T0    int64   `json:"t0"`
	T1    int64   `json:"t1"`
	Width int     `json:"width"`
	MinPx float64 `json:"min_px"` // the merge width used (after the item bound)
	Lanes []Lane  `json:"lanes"`

	cursor  []uint32 // the walk's scratch, kept between queries
	scratch []Item   // the depth sort's
	colors  []uint32 // the index's source-location colours (see Index.colors)
}

// Items is the number of items over all lanes.
func (tl *Timeline) Items() int {
	n := 0
	for i := range tl.Lanes {
		n += len(tl.Lanes[i].Items)
	}
	return n
}

// levels lists a lane's zones by depth: the zone indices of depth d are
// pos[lo(d):hi(d)], in pre-order, which is time order within a depth
// (zones of one depth never overlap). This is the whole index: 4 bytes a
// zone. Within a depth, starts and ends both grow with the position, so
// every question ("first zone ending after t", "children of zone i") is a
// binary search.
//
// Each depth owns a region of pos that may have room after its entries
// (Build leaves none; Extend, which indexes a growing live trace, keeps
// some), so a newer snapshot's index appends a depth's new zones in place
// without moving or touching any entry a reader of the older index sees.
//
// A merged run over a dense depth would otherwise cost a search per few
// pixels, each probing zones across cold memory. So every block of 256
// entries of a depth has a 7-bit bound on the block's widest zone and
// widest gap to the next entry (the bit length of the larger, so the true
// value is below 2^bound), bounds[d][b]: a run walks past a whole block
// whose bound is under the merge width with one byte's look. The bounds
// are a separate byte a block (1/1024 of the positions) rather than bits
// of the positions, because the bounds of a depth's last block change as
// a live trace grows while the positions never do: a newer index copies
// the few bound bytes and shares the positions.
type levels struct {
	// off[d] is the first position of depth d's region, off[depth()] the
	// end of the last; end[d] is the position after depth d's last entry,
	// or end is nil when every region is full (Build), so end[d] is
	// off[d+1] and the index costs no more than the positions.
	off    []uint32
	end    []uint32
	pos    []uint32  // zone indices
	bounds [][]uint8 // by depth, by block of blockLen entries

	// mip is the optional run summaries (mipmap.go); nil: none.
	mip *mipmap

	// slot holds the larger array Grow prepared for the next extension
	// that runs out of room, shared by the levels of one pos array.
	slot *growSlot
}

const (
	blockShift = 8
	blockLen   = 1 << blockShift
)

func (lv *levels) depth() int { return max(len(lv.off)-1, 0) }

// lo is the first position of depth d.
func (lv *levels) lo(d int) uint32 { return lv.off[d] }

// hi is the position after depth d's last entry.
func (lv *levels) hi(d int) uint32 {
	if lv.end != nil {
		return lv.end[d]
	}
	return lv.off[d+1]
}

// count is the number of entries of depth d.
func (lv *levels) count(d int) uint32 { return lv.hi(d) - lv.lo(d) }

// at is the zone index at position p.
func (lv *levels) at(p uint32) uint32 { return lv.pos[p] }

// blockBound is the bit-length bound of block b of depth d (64 for a block
// of one entry, which never allows a skip).
func (lv *levels) blockBound(d int, b uint32) uint {
	if b<<blockShift+1 >= lv.count(d) {
		return 64
	}
	return uint(lv.bounds[d][b])
}

// Index is the level-of-detail index of one trace. It is read-only after
// Build and safe for concurrent queries.
type Index struct {
	trace *model.Trace
	cpu   []levels   // by Trace.Threads
	gpu   [][]levels // by GpuContexts, Timelines
	last  int64      // where unended zones end
	// colors is every source location's colour, by uint16(srcloc), so the
	// encoder does not look each drawn zone's location up in a map.
	colors []uint32
	// extended is set by the first Extend of this index, which may append
	// into the room after each depth's positions; a second one copies.
	extended atomic.Bool
	stats    Stats
}

// Stats says how an index was made: how many CPU threads were indexed
// from scratch in place of the previous index's (Built: all of them for
// Build) or because the previous index had none of their zones (Fresh),
// extended in place, extended by moving their positions to a new larger
// array (Moved) or to the one Grow prepared (Spared), and MovedEntries
// the positions copied then (into Grow's array: only those added since).
type Stats struct {
	Built, Fresh, InPlace, Moved, Spared int
	MovedEntries                         int64
}

// Stats says how ix was made (Build: every thread built).
func (ix *Index) Stats() Stats { return ix.stats }

// Build indexes every thread's and GPU timeline's zones, one goroutine per
// thread up to GOMAXPROCS. The trace must not change afterwards.
func Build(t *model.Trace) *Index {
	return index(t, func(ix *Index, k int) (levels, how) {
		return buildCPULevels(&t.Threads[k].Zones, ix.last), how{kind: built}
	})
}

// how says how index's cpu callback made a thread's levels.
type how struct {
	kind  uint8
	moved int64 // positions copied to a new array
}

const (
	built   = iota // from scratch, replacing the previous index's
	fresh          // from scratch: the previous index had none of its zones
	inPlace        // extended into the room of the previous index's
	moved          // extended into a new array
	spared         // extended into the array Grow prepared
)

// index lays out an Index of t: GPU timelines built afresh, CPU thread k's
// levels from cpu (a build, or Extend's append to an earlier index), one
// goroutine per thread up to GOMAXPROCS.
func index(t *model.Trace, cpu func(ix *Index, k int) (levels, how)) *Index {
	ix := &Index{trace: t, cpu: make([]levels, len(t.Threads)), gpu: make([][]levels, len(t.GpuContexts)), last: t.Metadata.LastTime}
	hows := make([]how, len(t.Threads))
	ix.colors = srcLocColors(t)
	type job struct{ c, k int } // c < 0: CPU thread k
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(t.Threads))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.c < 0 {
					ix.cpu[j.k], hows[j.k] = cpu(ix, j.k)
				} else {
					ix.gpu[j.c][j.k] = buildLevels(gpuSrc{t.GpuContexts[j.c].Timelines[j.k].Zones, ix.last})
				}
			}
		}()
	}
	// Largest threads first, so one huge thread does not start last.
	order := make([]int, len(t.Threads))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return t.Threads[order[a]].Zones.Len() > t.Threads[order[b]].Zones.Len() })
	for _, k := range order {
		jobs <- job{-1, k}
	}
	for c := range t.GpuContexts {
		ix.gpu[c] = make([]levels, len(t.GpuContexts[c].Timelines))
		for k := range t.GpuContexts[c].Timelines {
			jobs <- job{c, k}
		}
	}
	close(jobs)
	wg.Wait()
	for k, h := range hows {
		if ix.cpu[k].slot == nil {
			ix.cpu[k].slot = new(growSlot)
		}
		switch h.kind {
		case built:
			ix.stats.Built++
		case fresh:
			ix.stats.Fresh++
		case inPlace:
			ix.stats.InPlace++
		case moved:
			ix.stats.Moved++
		case spared:
			ix.stats.Spared++
		}
		ix.stats.MovedEntries += h.moved
	}
	return ix
}

// srcLocColors is every source location's colour, by uint16(srcloc).
func srcLocColors(t *model.Trace) []uint32 {
	colors := make([]uint32, 1<<16)
	for id := range t.SrcLocIndex {
		if sl, ok := t.SrcLoc(model.SrcLocID(id)); ok {
			colors[uint16(id)] = sl.Color
		}
	}
	for i, sl := range t.DynSrcLocs {
		if i < 1<<15 {
			colors[uint16(-int16(i)-1)] = sl.Color
		}
	}
	return colors
}

// Trace is the indexed trace.
func (ix *Index) Trace() *model.Trace { return ix.trace }

// Bytes is the memory the index holds beyond the trace.
func (ix *Index) Bytes() int64 {
	var n int64
	add := func(lv *levels) {
		n += int64(cap(lv.off)+cap(lv.end)+cap(lv.pos))*4 + lv.mip.bytes()
		for _, b := range lv.bounds {
			n += int64(cap(b))
		}
	}
	for i := range ix.cpu {
		add(&ix.cpu[i])
	}
	for _, c := range ix.gpu {
		for i := range c {
			add(&c[i])
		}
	}
	return n
}

// ThreadDepth is the deepest nesting of thread th's zones plus one (0 for a
// thread without zones).
func (ix *Index) ThreadDepth(th int) int { return ix.cpu[th].depth() }

// zoneSource is what the index needs of a lane's zones. The two
// implementations are small value types, so the generic code below is
// compiled once for each and the accessors inline.
type zoneSource interface {
	len() int
	start(i uint32) int64
	end(i uint32) int64 // unended zones end at the trace's end
	next(i uint32) uint32
	srcloc(i uint32) int16
	unended(i uint32) bool
}

type cpuSrc struct {
	z    *model.ZoneList
	last int64
}

func (s cpuSrc) len() int              { return s.z.Len() }
func (s cpuSrc) start(i uint32) int64  { return s.z.At(int(i)).Start() }
func (s cpuSrc) next(i uint32) uint32  { return uint32(s.z.NextOf(s.z.At(int(i)))) }
func (s cpuSrc) srcloc(i uint32) int16 { return s.z.At(int(i)).SrcLoc }
func (s cpuSrc) unended(i uint32) bool { return s.z.At(int(i)).End() < 0 }
func (s cpuSrc) end(i uint32) int64 {
	if e := s.z.At(int(i)).End(); e >= 0 {
		return e
	}
	return max(s.last, s.start(i))
}

type gpuSrc struct {
	z    []model.GpuZone
	last int64
}

func (s gpuSrc) len() int              { return len(s.z) }
func (s gpuSrc) start(i uint32) int64  { return s.z[i].GPUStart }
func (s gpuSrc) next(i uint32) uint32  { return s.z[i].Next }
func (s gpuSrc) srcloc(i uint32) int16 { return s.z[i].SrcLoc }
func (s gpuSrc) unended(i uint32) bool { return s.z[i].GPUEnd < 0 }
func (s gpuSrc) end(i uint32) int64 {
	if e := s.z[i].GPUEnd; e >= 0 {
		return e
	}
	return max(s.last, s.z[i].GPUStart)
}

// buildLevels sorts a lane's zones by depth (a counting sort): one pass
// over the zones finds each one's depth from the Next links and, since it
// reads each zone's times anyway, the block bounds of every depth (see
// levels); the second pass runs over the depths alone.
func buildLevels[S zoneSource](s S) levels {
	n := s.len()
	if n == 0 {
		return levels{}
	}
	var b boundsBuilder
	b.init(n)
	var stack []uint32 // subtree ends of the open ancestors
	for i := 0; i < n; i++ {
		u := uint32(i)
		for len(stack) > 0 && u >= stack[len(stack)-1] {
			stack = stack[:len(stack)-1]
		}
		b.add(i, len(stack), s.start(u), s.end(u))
		if nx := s.next(u); nx > u+1 && len(stack) < math.MaxUint16 {
			if len(stack) > 0 && nx > stack[len(stack)-1] {
				nx = stack[len(stack)-1] // a child never outlives its parent's subtree
			}
			stack = append(stack, nx)
		}
	}
	return b.finish()
}

// buildCPULevels is buildLevels for a thread's ZoneList, walking its
// chunks directly (cpuBuilder): the index of a 10M-zone thread is built in
// one sequential read of its zones.
func buildCPULevels(zl *model.ZoneList, last int64) levels {
	n := zl.Len()
	if n == 0 {
		return levels{}
	}
	c := newCPUBuilder(n, zl.Origin(), last)
	c.walk(zl.Chunks(), n, nil)
	return c.finish()
}

// boundsBuilder gathers, zone by zone in pre-order, each zone's depth and
// each depth's block bounds, then lays out the levels.
type boundsBuilder struct {
	depth []uint16
	acc   []depthAcc
}

// depthAcc is one depth's state while its zones stream past.
type depthAcc struct {
	count  uint32  // zones of the depth so far
	prevE  int64   // end of the depth's previous zone
	widest int64   // of the current block: widest zone, or gap to the next entry
	bounds []uint8 // finished blocks' bounds
	// pend says the depth's last zone was still open when walked (see
	// cpuBuilder): its start is pendS, its end and prevE still to read.
	pend  bool
	pendZ uint32
	pendS int64
}

func (b *boundsBuilder) init(n int) { b.depth = make([]uint16, n) }

func (b *boundsBuilder) add(i, d int, zs, ze int64) {
	if d >= len(b.acc) {
		d = b.grow(d)
	}
	b.depth[i] = uint16(d)
	a := &b.acc[d]
	if c := a.count; c > 0 {
		// The gap to this zone belongs to the previous entry's block,
		// which this zone may be the first after.
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

// grow makes room for depth d (kept off add's path so add stays small).
func (b *boundsBuilder) grow(d int) int {
	d = min(d, math.MaxUint16) // a malformed tree: keep going, never overflow
	for d >= len(b.acc) {
		b.acc = append(b.acc, depthAcc{})
	}
	return d
}

func (b *boundsBuilder) finish() levels { return b.finishWith(nil) }

// finishWith is finish into pos0, len(depth) long, whose depth 0 entries
// the walk wrote already (nil: finish allocates the positions).
func (b *boundsBuilder) finishWith(pos0 []uint32) levels {
	n := len(b.depth)
	nd := len(b.acc)
	lv := levels{off: make([]uint32, nd+1), bounds: make([][]uint8, nd)}
	nb := 0
	for d := range b.acc {
		a := &b.acc[d]
		lv.off[d+1] = lv.off[d] + a.count
		a.bounds = append(a.bounds, uint8(bits.Len64(uint64(max(a.widest, 0))))) // the last, partial block
		nb += len(a.bounds)
	}
	all := make([]uint8, 0, nb) // one exact allocation for every depth's
	for d := range b.acc {
		k := len(all)
		all = append(all, b.acc[d].bounds...)
		lv.bounds[d] = all[k:len(all):len(all)]
	}
	fill := make([]uint32, nd)
	copy(fill, lv.off)
	if pos0 == nil {
		pos := make([]uint32, n)
		for i, d := range b.depth {
			pos[fill[d]] = uint32(i)
			fill[d]++
		}
		lv.pos = pos
		return lv
	}
	// Depth 0's entries are in place already.
	if nd > 1 {
		for i, d := range b.depth {
			if d != 0 {
				pos0[fill[d]] = uint32(i)
				fill[d]++
			}
		}
	}
	lv.pos = pos0
	return lv
}

// Timeline fills dst with the answer to q, reusing dst's slices: after the
// first few calls a query allocates nothing.
func (ix *Index) Timeline(q Query, dst *Timeline) error {
	if err := q.check(); err != nil {
		return err
	}
	if q.MinPx == 0 {
		q.MinPx = DefaultMinPx
	}
	if q.MaxItems == 0 {
		q.MaxItems = DefaultMaxItems
	}
	t := ix.trace
	nl := 0
	for _, c := range ix.gpu {
		nl += len(c)
	}
	nl += len(ix.cpu)
	for {
		dst.T0, dst.T1, dst.Width, dst.MinPx, dst.colors = q.T0, q.T1, q.Width, q.MinPx, ix.colors
		if cap(dst.Lanes) < nl {
			dst.Lanes = append(dst.Lanes[:cap(dst.Lanes)], make([]Lane, nl-cap(dst.Lanes))...)
		}
		dst.Lanes = dst.Lanes[:0]
		total := 0
		for th := range ix.cpu {
			l := ix.nextLane(dst)
			l.Kind, l.Thread = LaneCPU, th
			total += laneItems(cpuSrc{&t.Threads[th].Zones, ix.last}, &ix.cpu[th], &q, l, &dst.cursor, &dst.scratch)
		}
		for c := range ix.gpu {
			for k := range ix.gpu[c] {
				l := ix.nextLane(dst)
				l.Kind, l.Context, l.Timeline = LaneGPU, c, k
				total += laneItems(gpuSrc{t.GpuContexts[c].Timelines[k].Zones, ix.last}, &ix.gpu[c][k], &q, l, &dst.cursor, &dst.scratch)
			}
		}
		if total <= q.MaxItems || q.MinPx >= float64(q.Width) {
			return nil
		}
		q.MinPx = min(2*q.MinPx, float64(q.Width))
	}
}

// nextLane appends a lane to dst, keeping the Items slice a previous answer
// left in that place.
func (ix *Index) nextLane(dst *Timeline) *Lane {
	dst.Lanes = dst.Lanes[:len(dst.Lanes)+1]
	l := &dst.Lanes[len(dst.Lanes)-1]
	*l = Lane{Items: l.Items[:0]}
	return l
}

// laneItems fills l with one lane's answer and returns its item count.
func laneItems[S zoneSource](s S, lv *levels, q *Query, l *Lane, cursor *[]uint32, scratch *[]Item) int {
	l.Depth = lv.depth()
	if l.Depth == 0 {
		return 0
	}
	if cap(*cursor) < l.Depth {
		*cursor = make([]uint32, l.Depth)
	}
	cur := (*cursor)[:l.Depth]
	clear(cur)
	w := walker[S]{s: s, lv: lv, t0: q.T0, t1: q.T1, minNs: int64(math.Ceil(q.MinPx * q.nsPerPx())), l: l, cursor: cur}
	w.minNs = max(w.minNs, 1)
	w.minBits = uint(bits.Len64(uint64(w.minNs))) - 1 // 2^minBits <= minNs
	w.mip = lv.mip.forWidth(w.minNs)
	w.level(0, lv.lo(0), lv.hi(0))
	// Items come out in depth-first order; the encoding wants them by
	// depth, then start. Within one depth they are already in start order,
	// so a counting sort by depth (stable, linear) is enough; the walk's
	// cursors, done with, count.
	cnt := cur
	clear(cnt)
	for i := range l.Items {
		cnt[l.Items[i].Depth]++
	}
	sum := uint32(0)
	for d, c := range cnt {
		cnt[d] = sum
		sum += c
	}
	if cap(*scratch) < len(l.Items) {
		*scratch = make([]Item, len(l.Items), 2*len(l.Items))
	}
	out := (*scratch)[:len(l.Items)]
	for i := range l.Items {
		d := l.Items[i].Depth
		out[cnt[d]] = l.Items[i]
		cnt[d]++
	}
	copy(l.Items, out)
	return len(l.Items)
}

type walker[S zoneSource] struct {
	s      S
	lv     *levels
	t0, t1 int64
	minNs  int64 // narrower zones are merged; also the gap that joins a run
	// minBits is the largest block bound that allows a skip: every value
	// below 2^minBits is below minNs.
	minBits uint
	l       *Lane
	cursor  []uint32 // per depth: where the walk's last children ended

	// mip is, by depth, the stored runs at the query's scale, if any.
	mip []mipRuns
}

// level draws the zones at positions [lo, hi) of depth d, which are
// siblings (the children of one zone, or the roots), and recurses into the
// wide ones.
func (w *walker[S]) level(d int, lo, hi uint32) {
	lv, s := w.lv, w.s
	// The first zone that ends at or after t0, and the first that starts
	// after t1: the zones between overlap the window.
	// Children of a zone inside the window are all in it: one probe at
	// each end answers, no search.
	k := lo
	if lo < hi && s.end(lv.at(lo)) < w.t0 {
		k = w.search(lo, hi, func(z uint32) bool { return s.end(z) >= w.t0 })
	}
	if k < hi && s.start(lv.at(hi-1)) > w.t1 {
		hi = w.search(k, hi, func(z uint32) bool { return s.start(z) > w.t1 })
	}
	for k < hi {
		z := lv.at(k)
		zs, ze := s.start(z), s.end(z)
		if ze-zs >= w.minNs {
			w.l.Items = append(w.l.Items, Item{Start: zs, End: ze, Index: z, Count: 1, SrcLoc: s.srcloc(z), Depth: uint16(d), Unended: s.unended(z)})
			w.l.Zones++
			if nx := s.next(z); nx > z+1 && d+1 < lv.depth() {
				clo, chi := w.nextChildren(d+1, z, nx)
				if clo < chi {
					w.level(d+1, clo, chi)
				}
			}
			k++
			continue
		}
		// A narrow zone starts a run; it swallows every following zone
		// that is narrow too and starts less than minNs after the run's
		// end. Each step first walks past whole blocks whose bound says
		// every zone and gap in them is narrow, then jumps to the last
		// zone starting before the threshold, so two steps advance the
		// run by at least minNs: the cost follows the run's pixels, not
		// its zones.
		last, runEnd := k, ze
		for {
			if w.mip != nil {
				last, runEnd = w.mipJump(d, last, hi, runEnd)
			}
			if l2 := w.skipBlocks(d, last, hi); l2 != last {
				last = l2
				runEnd = max(runEnd, s.end(lv.at(last)))
			}
			m := w.gallopStart(last+1, hi, runEnd+w.minNs)
			if m == last+1 {
				break
			}
			q := m - 1
			qz := lv.at(q)
			qs, qe := s.start(qz), s.end(qz)
			if qe-qs < w.minNs {
				last, runEnd = q, max(runEnd, qe)
				continue
			}
			// q is wide: the zones before it lie in the gap, narrower than
			// the gap itself; they join the run, q is drawn on its own.
			if q-1 > last {
				last = q - 1
				runEnd = max(runEnd, s.end(lv.at(last)))
			}
			break
		}
		it := Item{Start: zs, End: runEnd, Index: z, SrcLoc: s.srcloc(z), Depth: uint16(d), Merged: true}
		it.Count = w.runCount(d, k, last, zs, runEnd)
		w.l.Items = append(w.l.Items, it)
		w.l.Zones += uint64(it.Count)
		k = last + 1
	}
}

// skipBlocks extends a run that has reached position last of depth d as
// far as whole blocks allow: when last's block bounds its zones and gaps
// under minNs, the run takes the rest of the block and the gap to the next
// one; when the next block is bounded too (and ends before hi), the run
// takes it whole, and so on.
func (w *walker[S]) skipBlocks(d int, last, hi uint32) uint32 {
	base := w.lv.lo(d)
	b := (last - base) >> blockShift
	if w.lv.blockBound(d, b) > w.minBits {
		return last
	}
	for {
		next := base + (b+1)<<blockShift // first position of block b+1
		if next >= hi {
			return last // the sibling range ends inside this block
		}
		last = next - 1
		nextEnd := next + blockLen
		if nextEnd > hi || w.lv.blockBound(d, b+1) > w.minBits {
			return last
		}
		b++
		last = nextEnd - 1
	}
}

// search returns the first position in [lo, hi) whose zone satisfies ok
// (hi if none); ok must be false then true along the positions.
func (w *walker[S]) search(lo, hi uint32, ok func(z uint32) bool) uint32 {
	for lo < hi {
		m := lo + (hi-lo)/2
		if ok(w.lv.at(m)) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// gallopStart returns the first position in [lo, hi) whose zone starts at
// or after t (hi if none). It probes lo+1, lo+3, lo+7, ... before
// bisecting, so a target a few zones away costs a few probes in nearby
// memory rather than a bisection of the whole depth across cold cache
// lines: a merged run's next step is usually close.
func (w *walker[S]) gallopStart(lo, hi uint32, t int64) uint32 { return w.gallop(lo, hi, t, false) }

// gallopIndex returns the first position in [lo, hi) whose zone index is
// at least x (hi if none), by the same galloping.
func (w *walker[S]) gallopIndex(lo, hi, x uint32) uint32 { return w.gallop(lo, hi, int64(x), true) }

// gallop is the search of gallopStart (byIndex false: the key is the
// zone's start) and gallopIndex (true: the key is the zone index). Both
// keys grow along a depth.
func (w *walker[S]) gallop(lo, hi uint32, t int64, byIndex bool) uint32 {
	lv := w.lv
	ge := func(p uint32) bool {
		if byIndex {
			return int64(lv.at(p)) >= t
		}
		return w.s.start(lv.at(p)) >= t
	}
	if lo >= hi || ge(lo) {
		return lo
	}
	// invariant: position a is below the key; the answer is in (a, b]
	a, step, b := lo, uint32(1), hi
	for {
		c := a + step
		if c >= hi {
			break
		}
		if ge(c) {
			b = c
			break
		}
		a, step = c, step*2
	}
	for a+1 < b {
		m := a + (b-a)/2
		if ge(m) {
			b = m
		} else {
			a = m
		}
	}
	return b
}

// nextChildren is childRange for the walk's own descent: the walk meets
// each depth's positions in increasing order (depth first, in time order),
// so the search gallops from where the depth's previous children ended,
// usually a probe or two away, instead of bisecting the whole depth.
func (w *walker[S]) nextChildren(d int, z, nx uint32) (uint32, uint32) {
	lv := w.lv
	end := lv.hi(d)
	from := max(w.cursor[d], lv.lo(d))
	lo := w.gallopIndex(from, end, z+1)
	hi := w.gallopIndex(lo, end, nx)
	w.cursor[d] = hi
	return lo, hi
}

// childRange returns the positions at depth d of the zones with indices in
// (z, nx): zone z's children (or, for nx past a run, its descendants at d).
func (w *walker[S]) childRange(d int, z, nx uint32) (uint32, uint32) {
	lv := w.lv
	lo, hi := lv.lo(d), lv.hi(d)
	for lo < hi { // first index > z
		m := lo + (hi-lo)/2
		if lv.at(m) > z {
			hi = m
		} else {
			lo = m + 1
		}
	}
	a := lo
	hi = lv.hi(d)
	for lo < hi { // first index >= nx
		m := lo + (hi-lo)/2
		if lv.at(m) >= nx {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return a, lo
}

// runCount is the number of zones a merged run of the depth-d siblings at
// positions k..last stands for: the zones of their subtrees that overlap
// the window. Inside the window that is the subtrees' size; at an edge each
// deeper depth is counted with binary searches.
func (w *walker[S]) runCount(d int, k, last uint32, rs, re int64) uint32 {
	first := w.lv.at(k)
	end := w.s.next(w.lv.at(last))
	if end <= first {
		end = first + 1 // a malformed Next: count the zone itself
	}
	if rs >= w.t0 && re <= w.t1 {
		return end - first
	}
	n := last - k + 1 // depth d: all overlap by construction
	for dd := d + 1; dd < w.lv.depth(); dd++ {
		lo, hi := w.childRange(dd, first, end)
		if lo == hi {
			break // no zone this deep, so none deeper
		}
		a := w.search(lo, hi, func(z uint32) bool { return w.s.end(z) >= w.t0 })
		b := w.search(a, hi, func(z uint32) bool { return w.s.start(z) > w.t1 })
		n += b - a
	}
	return n
}
