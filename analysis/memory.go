package analysis

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"github.com/gotracy/gotracy/model"
)

// MemIndex answers the memory view's questions about one trace's memory
// pools (usage at a time, the allocations live then, the allocation list in
// any order, call-stack trees, leaks) in time that does not grow with the
// number of allocations, so a 10M-allocation trace stays interactive.
// Build it once with [NewMemIndex]; it is read-only and safe for concurrent
// use afterwards (the sort orders are built on first use, once).
//
// The design (docs/DESIGN.md "analysis: memory index") keeps only flat,
// pointer-free arrays: prefix sums of sizes in allocation and in free
// order for "usage at t", a per-block sorted copy of free times for "which
// allocations are live at t", and per-call-stack checkpoints every K
// events for "call-stack tree of what is live at t" (checkpoint + delta).
type MemIndex struct {
	t     *model.Trace
	Pools []*MemPoolIndex
}

// MemPoolIndex is the index of one pool.
type MemPoolIndex struct {
	Pool   int    // position in Trace.MemPools
	Name   string // "default" for the default pool (name 0)
	Events []model.MemEvent

	n        int
	cumAlloc []uint64 // [i] = bytes of events [0,i) in allocation order
	// frees in free-time order: time, prefix bytes, event index.
	freeT   []int64
	freeCum []uint64
	freeIdx []uint32
	// freeEff is each event's end of life (its free, MaxInt64 = never) in
	// allocation order, a compact array so a scan reads 8 bytes an event;
	// blockMin/blockMax bound it per block of memBlock events, so blocks
	// wholly live or wholly dead at t are decided without reading them.
	freeEff   []int64
	blockMin  []int64
	blockMax  []int64
	leakSet   liveSet
	leaks     int
	leakBytes uint64

	// call stacks: dense id of each event's CSAlloc, and checkpoints of
	// per-stack counts and bytes every cpEvery events of both orders.
	stacks   []uint32 // dense id -> call stack id (0 = none)
	dense    []uint32 // per event: dense id of CSAlloc
	cpEvery  int
	cpAllocN [][]uint64 // checkpoint k: per dense id, count of allocs [0, k*cpEvery)
	cpAllocB [][]uint64
	cpFreeN  [][]uint64 // the same over the first k*cpEvery frees
	cpFreeB  [][]uint64

	sortOnce [memSortKeys]sync.Once
	sorted   [memSortKeys][]uint32

	treeMu    sync.Mutex
	treeCache map[treeKey]*MemTree
}

// memBlock is the block of the live scans: one bitset word.
const memBlock = 64

// NewMemIndex indexes every memory pool of t. Events of a pool that are not
// sorted by allocation time (never the case for a file Tracy wrote) are
// sorted in a copy first.
func NewMemIndex(t *model.Trace) *MemIndex {
	mi := &MemIndex{t: t}
	for p := range t.MemPools {
		mi.Pools = append(mi.Pools, newPoolIndex(t, p))
	}
	return mi
}

// PoolName is how Tracy names a pool: its client name, "default" for 0.
func PoolName(t *model.Trace, pool *model.MemPool) string {
	if pool.Name == 0 {
		return "default"
	}
	if s, ok := t.PtrString(pool.Name); ok {
		return s
	}
	return "0x" + strconv.FormatUint(pool.Name, 16)
}

// freeOf is the time an event stops being live: its free, or never.
func freeOf(e *model.MemEvent) int64 {
	if e.TimeFree < 0 {
		return math.MaxInt64
	}
	return max(e.TimeFree, e.TimeAlloc)
}

func newPoolIndex(t *model.Trace, p int) *MemPoolIndex {
	pool := &t.MemPools[p]
	ev := pool.Events
	if !slices.IsSortedFunc(ev, func(a, b model.MemEvent) int { return cmpI64(a.TimeAlloc, b.TimeAlloc) }) {
		ev = slices.Clone(ev)
		slices.SortStableFunc(ev, func(a, b model.MemEvent) int { return cmpI64(a.TimeAlloc, b.TimeAlloc) })
	}
	n := len(ev)
	x := &MemPoolIndex{Pool: p, Name: PoolName(t, pool), Events: ev, n: n, treeCache: map[treeKey]*MemTree{}}
	// The free order (a radix sort, random reads) and the passes in
	// allocation order (sequential) are independent: on two cores they
	// overlap. Only the sums in free order need both.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		x.buildFreeOrder()
	}()
	x.buildAllocOrder(t)
	wg.Wait()
	x.buildFreeSums()
	x.leakSet, _ = x.scanLive(math.MaxInt64-1, n)
	return x
}

// buildFreeOrder sorts the freed events by free time (a radix sort of
// (free time, index) pairs): freeIdx and freeT.
func (x *MemPoolIndex) buildFreeOrder() {
	ev := x.Events
	nf := 0
	for i := range ev {
		if ev[i].TimeFree >= 0 {
			nf++
		}
	}
	x.freeIdx = make([]uint32, 0, nf)
	keys := make([]uint64, 0, nf)
	for i := range ev {
		if ev[i].TimeFree >= 0 {
			x.freeIdx = append(x.freeIdx, uint32(i))
			keys = append(keys, uint64(freeOf(&ev[i]))^(1<<63))
		}
	}
	radixSort(keys, x.freeIdx)
	// The sorted keys are the free times: no second, random, read of the
	// events for them.
	x.freeT = make([]int64, nf)
	for k, key := range keys {
		x.freeT[k] = int64(key ^ (1 << 63))
	}
}

// buildAllocOrder makes everything in allocation order: the prefix sums
// of sizes, the leaks, each event's end of life and its blocks' bounds,
// and the dense call-stack ids with their checkpoints.
func (x *MemPoolIndex) buildAllocOrder(t *model.Trace) {
	ev := x.Events
	n := x.n
	x.cumAlloc = make([]uint64, n+1)
	x.freeEff = make([]int64, n)
	nb := (n + memBlock - 1) / memBlock
	x.blockMin, x.blockMax = make([]int64, nb), make([]int64, nb)
	sum := uint64(0)
	for b := range nb {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := b * memBlock; i < min((b+1)*memBlock, n); i++ {
			e := &ev[i]
			sum += e.Size
			x.cumAlloc[i+1] = sum
			if e.TimeFree < 0 {
				x.leaks++
				x.leakBytes += e.Size
			}
			f := freeOf(e)
			x.freeEff[i] = f
			lo, hi = min(lo, f), max(hi, f)
		}
		x.blockMin[b], x.blockMax[b] = lo, hi
	}
	x.buildStacks(t)
}

// buildFreeSums makes the prefix sums of sizes in free order and the
// call-stack checkpoints of the frees: one pass over the frees, reading
// each freed event once.
func (x *MemPoolIndex) buildFreeSums() {
	nf := len(x.freeIdx)
	c := max(len(x.stacks), 1)
	nAlloc := make([]uint64, c)
	bAlloc := make([]uint64, c)
	x.freeCum = make([]uint64, nf+1)
	sum := uint64(0)
	for k0 := 0; k0 <= nf; k0 += x.cpEvery {
		x.cpFreeN = append(x.cpFreeN, slices.Clone(nAlloc))
		x.cpFreeB = append(x.cpFreeB, slices.Clone(bAlloc))
		for k := k0; k < min(k0+x.cpEvery, nf); k++ {
			i := x.freeIdx[k]
			// The size from the prefix sums (8 bytes an event, one
			// cache line for both) rather than the 48-byte event: the
			// reads are in free order, random, and fewer pages miss.
			sz := x.cumAlloc[i+1] - x.cumAlloc[i]
			sum += sz
			x.freeCum[k+1] = sum
			d := x.dense[i]
			nAlloc[d]++
			bAlloc[d] += sz
		}
	}
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildStacks numbers the pool's allocation call stacks densely and
// stores checkpoints of per-stack sums. The checkpoint spacing grows with
// the number of distinct stacks so the checkpoints stay near 16M numbers.
func (x *MemPoolIndex) buildStacks(t *model.Trace) {
	// Call stack ids are dense in the trace (1..NumCallStacks): a slice
	// numbers them, a map only for ids beyond it (malformed input).
	ids := make([]uint32, t.NumCallStacks()+1)
	var odd map[uint32]uint32
	x.dense = make([]uint32, x.n)
	for i := range x.Events {
		cs := x.Events[i].CSAlloc
		var d uint32
		if int(cs) < len(ids) {
			d = ids[cs]
			if d == 0 {
				x.stacks = append(x.stacks, cs)
				d = uint32(len(x.stacks))
				ids[cs] = d
			}
		} else {
			if odd == nil {
				odd = map[uint32]uint32{}
			}
			if d = odd[cs]; d == 0 {
				x.stacks = append(x.stacks, cs)
				d = uint32(len(x.stacks))
				odd[cs] = d
			}
		}
		x.dense[i] = d - 1
	}
	c := max(len(x.stacks), 1)
	x.cpEvery = max(1<<16, x.n/max(1, (4<<20)/c))
	nAlloc := make([]uint64, c)
	bAlloc := make([]uint64, c)
	for i0 := 0; i0 <= x.n; i0 += x.cpEvery {
		x.cpAllocN = append(x.cpAllocN, slices.Clone(nAlloc))
		x.cpAllocB = append(x.cpAllocB, slices.Clone(bAlloc))
		for i := i0; i < min(i0+x.cpEvery, x.n); i++ {
			d := x.dense[i]
			nAlloc[d]++
			bAlloc[d] += x.Events[i].Size
		}
	}
}

// MemUsage is what a pool holds at one moment.
type MemUsage struct {
	Time        int64  `json:"time"`
	Allocations uint64 `json:"allocations"` // made at or before Time
	Frees       uint64 `json:"frees"`       // made at or before Time
	Live        uint64 `json:"live"`        // allocations live at Time
	LiveBytes   uint64 `json:"live_bytes"`
}

// allocsUpTo is the number of events allocated at or before t.
func (x *MemPoolIndex) allocsUpTo(t int64) int {
	i, _ := slices.BinarySearchFunc(x.Events, t, func(e model.MemEvent, t int64) int {
		if e.TimeAlloc <= t {
			return -1
		}
		return 1
	})
	return i
}

func (x *MemPoolIndex) freesUpTo(t int64) int {
	i, _ := slices.BinarySearchFunc(x.freeT, t, func(f, t int64) int {
		if f <= t {
			return -1
		}
		return 1
	})
	return i
}

// UsageAt is the pool's state at t: an allocation made at t is live at t,
// one freed at t is not. Two binary searches.
func (x *MemPoolIndex) UsageAt(t int64) MemUsage {
	a, f := x.allocsUpTo(t), x.freesUpTo(t)
	return MemUsage{Time: t, Allocations: uint64(a), Frees: uint64(f), Live: uint64(a - f), LiveBytes: x.cumAlloc[a] - x.freeCum[f]}
}

// Span is the time of the pool's first allocation and of its last event
// (allocation or free); 0, 0 for an empty pool.
func (x *MemPoolIndex) Span() (first, last int64) {
	if x.n == 0 {
		return 0, 0
	}
	first, last = x.Events[0].TimeAlloc, x.Events[x.n-1].TimeAlloc
	if len(x.freeT) > 0 {
		last = max(last, x.freeT[len(x.freeT)-1])
	}
	return first, last
}

// Len is the number of allocations of the pool.
func (x *MemPoolIndex) Len() int { return x.n }

// TotalBytes is the sum of all allocation sizes.
func (x *MemPoolIndex) TotalBytes() uint64 { return x.cumAlloc[x.n] }

// Leaks is the number and size of the allocations never freed.
func (x *MemPoolIndex) Leaks() (int, uint64) { return x.leaks, x.leakBytes }

// MemFilter chooses which allocations a list or tree covers.
type MemFilter uint8

const (
	MemAll    MemFilter = iota // every allocation
	MemActive                  // live at the given time
	MemLeaks                   // never freed
	MemRange                   // allocated in [Time, End]
)

// MemSelect says which allocations a list or tree covers.
type MemSelect struct {
	Filter MemFilter
	Time   int64 // MemActive: the moment; MemRange: the range's start
	End    int64 // MemRange: the range's end (inclusive)
}

// rangeIdx is the index range of the allocations made in [t0, t1].
func (x *MemPoolIndex) rangeIdx(t0, t1 int64) (int, int) {
	a := x.allocsUpTo(t0 - 1)
	if t0 == math.MinInt64 {
		a = 0
	}
	return a, max(a, x.allocsUpTo(t1))
}

// ParseMemFilter reads "all", "active", "leaks" or "range".
func ParseMemFilter(s string) (MemFilter, error) {
	switch s {
	case "", "all":
		return MemAll, nil
	case "active":
		return MemActive, nil
	case "leaks":
		return MemLeaks, nil
	case "range":
		return MemRange, nil
	}
	return 0, fmt.Errorf("memory filter must be all, active, leaks or range, got %q", s)
}

// liveSet is a bitset over event indices.
type liveSet []uint64

func (s liveSet) has(i int) bool { return s[i>>6]&(1<<(uint(i)&63)) != 0 }

// live marks the events live at t (for MemLeaks: never freed, a set built
// once) and counts them.
func (x *MemPoolIndex) live(f MemFilter, t int64) (liveSet, int) {
	if f == MemLeaks {
		return x.leakSet, x.leaks
	}
	return x.scanLive(t, x.allocsUpTo(t))
}

// scanLive marks the events of [0, upto) whose life ends after t. A block
// whose every event is live (or none) is decided from its bounds alone,
// so the cost is the number of blocks plus 8 bytes per event of mixed
// blocks.
func (x *MemPoolIndex) scanLive(t int64, upto int) (liveSet, int) {
	set := make(liveSet, (x.n+63)/64)
	cnt := 0
	for b := 0; b*memBlock < upto; b++ {
		lo, end := b*memBlock, min((b+1)*memBlock, upto)
		if x.blockMax[b] <= t { // none
			continue
		}
		if end-lo == memBlock && x.blockMin[b] > t { // all live
			set[b] = ^uint64(0)
			cnt += memBlock
			continue
		}
		var w uint64
		for i, f := range x.freeEff[lo:end] {
			if f > t {
				w |= 1 << uint(i)
			}
		}
		set[b] = w
		cnt += bits.OnesCount64(w)
	}
	return set, cnt
}

// Memory sort keys.
const (
	MemByTime     = iota // allocation time (the events' own order)
	MemBySize            // size
	MemByLifetime        // free - alloc; never freed is longest
	MemByAddress         // pointer
	MemByFree            // free time; never freed last
	memSortKeys
)

var memSortNames = [...]string{"time", "size", "lifetime", "address", "free"}

// ParseMemSort reads a sort key name.
func ParseMemSort(s string) (int, error) {
	if s == "" {
		return MemByTime, nil
	}
	for i, n := range memSortNames {
		if n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("memory sort must be one of time, size, lifetime, address, free, got %q", s)
}

// PrepareOrders builds every pool's sort orders now (they are otherwise
// built on the first request for each, about a second each at 10M), so a
// server can run it in the background after the index is built and the
// first click on a column answers at once.
func (mi *MemIndex) PrepareOrders() {
	for _, x := range mi.Pools {
		for k := MemBySize; k < memSortKeys; k++ {
			x.order(k)
		}
	}
}

// order is the permutation of events by key (ascending, ties by time),
// built once per key with a radix sort (about a second for 10M).
func (x *MemPoolIndex) order(key int) []uint32 {
	if key == MemByTime {
		return nil
	}
	x.sortOnce[key].Do(func() {
		idx := make([]uint32, x.n)
		keys := make([]uint64, x.n)
		for i := range x.Events {
			idx[i] = uint32(i)
			e := &x.Events[i]
			switch key {
			case MemBySize:
				keys[i] = e.Size
			case MemByLifetime:
				keys[i] = uint64(freeOf(e) - e.TimeAlloc)
			case MemByAddress:
				keys[i] = e.Ptr
			case MemByFree:
				keys[i] = uint64(freeOf(e)) ^ (1 << 63)
			}
		}
		radixSort(keys, idx)
		x.sorted[key] = idx
	})
	return x.sorted[key]
}

// MemListQuery asks for one page of the allocation list.
type MemListQuery struct {
	MemSelect
	Sort   int // MemByTime...
	Desc   bool
	Offset int
	Limit  int
}

// MemListPage is one page: event indices (into Events) in the asked order,
// and how many allocations the filter selects in all.
type MemListPage struct {
	Total  int
	Events []uint32
}

// List answers one page. The cost is bounded by the number of blocks and
// the walk to the page (for a sorted order of a filtered set, at most one
// pass over the permutation testing a bitset), never by a sort.
func (x *MemPoolIndex) List(q MemListQuery) MemListPage {
	q.Offset = max(q.Offset, 0)
	q.Limit = max(q.Limit, 0)
	var set liveSet
	total := x.n
	from := 0 // MemRange in time order: the page is a slice of [from, from+total)
	switch q.Filter {
	case MemActive, MemLeaks:
		set, total = x.live(q.Filter, q.Time)
	case MemRange:
		a, b := x.rangeIdx(q.Time, q.End)
		from, total = a, b-a
		if q.Sort != MemByTime {
			set = x.indexSet(a, b)
		}
	}
	out := MemListPage{Total: total, Events: []uint32{}}
	if q.Offset >= total || q.Limit == 0 {
		return out
	}
	want := min(q.Limit, total-q.Offset)
	perm := x.order(q.Sort)
	span := x.n
	if set == nil && q.Filter == MemRange {
		span = total
	}
	at := func(k int) int { // k-th event of the order
		if q.Desc {
			k = span - 1 - k
		}
		if set == nil && q.Filter == MemRange {
			return from + k
		}
		if perm == nil {
			return k
		}
		return int(perm[k])
	}
	if set == nil {
		for k := q.Offset; k < q.Offset+want; k++ {
			out.Events = append(out.Events, uint32(at(k)))
		}
		return out
	}
	if perm == nil {
		// Time order over a bitset: skip whole words by their popcount.
		skip := q.Offset
		if !q.Desc {
			for w := 0; w < len(set) && len(out.Events) < want; w++ {
				c := bits.OnesCount64(set[w])
				if skip >= c {
					skip -= c
					continue
				}
				for v := set[w]; v != 0 && len(out.Events) < want; v &= v - 1 {
					if skip > 0 {
						skip--
						continue
					}
					out.Events = append(out.Events, uint32(w*64+bits.TrailingZeros64(v)))
				}
			}
		} else {
			for w := len(set) - 1; w >= 0 && len(out.Events) < want; w-- {
				c := bits.OnesCount64(set[w])
				if skip >= c {
					skip -= c
					continue
				}
				for v := set[w]; v != 0 && len(out.Events) < want; {
					b := 63 - bits.LeadingZeros64(v)
					v &^= 1 << uint(b)
					if skip > 0 {
						skip--
						continue
					}
					out.Events = append(out.Events, uint32(w*64+b))
				}
			}
		}
		return out
	}
	skip := q.Offset
	for k := 0; k < x.n && len(out.Events) < want; k++ {
		i := at(k)
		if !set.has(i) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out.Events = append(out.Events, uint32(i))
	}
	return out
}

// indexSet is the bitset of events [a, b).
func (x *MemPoolIndex) indexSet(a, b int) liveSet {
	set := make(liveSet, (x.n+63)/64)
	for i := a; i < b; {
		if i&63 == 0 && i+64 <= b {
			set[i>>6] = ^uint64(0)
			i += 64
			continue
		}
		set[i>>6] |= 1 << (uint(i) & 63)
		i++
	}
	return set
}

// radixSort sorts keys ascending, permuting idx alongside (stable, LSD,
// 8-bit digits; digits equal in every key are skipped).
func radixSort(keys []uint64, idx []uint32) {
	n := len(keys)
	if n < 2 {
		return
	}
	if n < 256 {
		type kv struct {
			k uint64
			i uint32
		}
		p := make([]kv, n)
		for j := range p {
			p[j] = kv{keys[j], idx[j]}
		}
		slices.SortStableFunc(p, func(a, b kv) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})
		for j := range p {
			keys[j], idx[j] = p[j].k, p[j].i
		}
		return
	}
	ok, oi := keys, idx
	k2 := make([]uint64, n)
	i2 := make([]uint32, n)
	var and, or uint64 = ^uint64(0), 0
	for _, k := range keys {
		and &= k
		or |= k
	}
	diff := and ^ or
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xFF == 0 {
			continue
		}
		var cnt [256]int
		for _, k := range keys {
			cnt[(k>>shift)&0xFF]++
		}
		pos := 0
		for d := range cnt {
			c := cnt[d]
			cnt[d] = pos
			pos += c
		}
		for j, k := range keys {
			d := (k >> shift) & 0xFF
			k2[cnt[d]], i2[cnt[d]] = k, idx[j]
			cnt[d]++
		}
		keys, k2 = k2, keys
		idx, i2 = i2, idx
	}
	// After an odd number of passes the result is in the scratch arrays.
	if &keys[0] != &ok[0] {
		copy(ok, keys)
		copy(oi, idx)
	}
}
