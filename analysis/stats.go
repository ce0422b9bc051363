package analysis

import (
	"math"

	"github.com/gotracy/gotracy/model"
)

// ZoneRef locates one CPU zone: Thread is the position in Trace.Threads and
// Index the position in that thread's Zones. 8 bytes, the size of Tracy's
// own ZoneThreadData, and pointer-free, so a list of ten million of them is
// one noscan allocation.
type ZoneRef struct {
	Thread uint32
	Index  uint32
}

// SrcLocStats is what Tracy keeps per source location (its
// SourceLocationZones): only zones that ended and lasted more than 0 ns
// count, exactly as in the real statistics.
type SrcLocStats struct {
	SrcLoc model.SrcLocID
	Count  uint64
	Total  int64
	Min    int64 // math.MaxInt64 when Count == 0
	Max    int64 // math.MinInt64 when Count == 0
	// SumSq is the running sum of squared durations, in float64 and in
	// Tracy's summation order (threads in file order, zones depth first), so
	// the standard deviation prints with the same last digits.
	SumSq float64
	// Self times: duration minus the (non-negative) durations of direct
	// children.
	SelfTotal int64
	SelfMin   int64
	SelfMax   int64
	// Non-reentrant figures count only zones with no ancestor of the same
	// source location (recursion counted once), as Tracy's find-zone view.
	NonReentrantCount uint64
	NonReentrantTotal int64
	NonReentrantMin   int64
	NonReentrantMax   int64
	// Zones lists the counted zones (threads in file order, each thread's
	// zones depth first), when ComputeZoneStats was asked to keep them.
	Zones []ZoneRef
}

// Mean is Total/Count as Tracy computes it (integer division), 0 if empty.
func (s *SrcLocStats) Mean() int64 {
	if s.Count == 0 {
		return 0
	}
	return int64(uint64(s.Total) / s.Count)
}

// StdDev is the sample standard deviation of the durations.
func (s *SrcLocStats) StdDev() float64 { return stdDev(s.SumSq, s.Total, s.Total, s.Count) }

// stdDev reproduces tracy-csvexport's formula, including its quirk that with
// -e the mean subtracted is the self-time mean while the sums are of full
// durations. avgOf is the total the printed mean is computed from.
func stdDev(sumSq float64, total, avgOf int64, n uint64) float64 {
	if n <= 1 {
		return 0
	}
	avg := uint64(avgOf) / n
	ss := sumSq - 2.*float64(total)*float64(avg) + float64(avg*avg*n)
	return math.Sqrt(ss / float64(n-1))
}

// ZoneStats holds per-source-location statistics for a whole trace.
type ZoneStats struct {
	// Locations are all source locations in the order tracy-csvexport prints
	// them (the iteration order of Tracy's hash map), including those with no
	// counted zone (Count == 0).
	Locations []SrcLocStats
	// Zones is the number of zones counted (ended, duration > 0).
	Zones uint64
	// Skipped is the number of zones left out: never ended or 0 ns long.
	Skipped uint64
}

// StatsOptions tunes ComputeZoneStats.
type StatsOptions struct {
	// KeepZones fills SrcLocStats.Zones (needed for per-zone listings and
	// percentiles; costs 8 bytes per zone).
	KeepZones bool
	// CountsOnly computes Count, Total, Min, Max and SumSq (and Zones with
	// KeepZones) and leaves the self-time and non-reentrant figures unset:
	// what tracy-csvexport prints without -e. It skips the tree walk those
	// need, which is most of the pass's work.
	CountsOnly bool
}

// srclocSlot maps an int16 source-location id to a dense slot number.
func srclocSlot(id model.SrcLocID) int { return int(uint16(id)) }

// newZoneStats makes the empty statistics of t's source locations in
// tracy-csvexport's row order, fills slot (srcloc id -> row, -1 = none) and
// returns the function that gives an id its row, adding one for an id
// outside the file's lists.
func newZoneStats(t *model.Trace, slot *[65536]int32) (*ZoneStats, func(model.SrcLocID) int32) {
	order := cpuSrcLocOrder(t)
	st := &ZoneStats{Locations: make([]SrcLocStats, len(order))}
	for i := range slot {
		slot[i] = -1
	}
	for i, id := range order {
		s := &st.Locations[i]
		*s = SrcLocStats{SrcLoc: id, Min: math.MaxInt64, Max: math.MinInt64,
			SelfMin: math.MaxInt64, SelfMax: math.MinInt64,
			NonReentrantMin: math.MaxInt64, NonReentrantMax: math.MinInt64}
		slot[srclocSlot(id)] = int32(i)
	}
	// Zones naming an id outside the file's lists (a file Tracy itself
	// would crash on) are still counted, in rows after the known ones.
	slotOf := func(id model.SrcLocID) int32 {
		k := slot[srclocSlot(id)]
		if k < 0 {
			k = int32(len(st.Locations))
			st.Locations = append(st.Locations, SrcLocStats{SrcLoc: id, Min: math.MaxInt64, Max: math.MinInt64,
				SelfMin: math.MaxInt64, SelfMax: math.MinInt64,
				NonReentrantMin: math.MaxInt64, NonReentrantMax: math.MinInt64})
			slot[srclocSlot(id)] = k
		}
		return k
	}
	return st, slotOf
}

// ComputeZoneStats walks every CPU zone of t once and returns statistics per
// source location in tracy-csvexport's row order.
func ComputeZoneStats(t *model.Trace, o StatsOptions) *ZoneStats {
	var slot [65536]int32 // srcloc id -> position in Locations, -1 = absent
	st, slotOf := newZoneStats(t, &slot)
	if o.KeepZones {
		// Count first so each list is allocated once at its final size.
		var counts []uint32
		for ti := range t.Threads {
			for _, z := range t.Threads[ti].Zones.All() {
				e := z.End()
				if e >= 0 && e-z.Start() > 0 {
					k := slotOf(z.SrcLoc)
					for int(k) >= len(counts) {
						counts = append(counts, 0)
					}
					counts[k]++
				}
			}
		}
		for i, c := range counts {
			if c > 0 {
				st.Locations[i].Zones = make([]ZoneRef, 0, c)
			}
		}
	}
	if o.CountsOnly {
		countsOnly(t, st, &slot, slotOf, o.KeepZones)
		return st
	}
	var active [65536]uint16 // open ancestors per srcloc slot (reentrancy)
	var stack []int          // subtree ends of open ancestors
	var stackSlot []int32
	for ti := range t.Threads {
		zones := &t.Threads[ti].Zones
		nz := zones.Len()
		stack, stackSlot = stack[:0], stackSlot[:0]
		// top is the subtree end of the innermost open ancestor, kept in a
		// register so that the common case (no ancestor ends here) costs
		// one compare. Chunks are walked directly: no iterator, no At.
		top := math.MaxInt
		base, prev := 0, 0 // the runs' running start (the first may be short)
		for _, chunk := range zones.Chunks() {
			base, prev = base+prev, len(chunk)
			for j := range chunk {
				z := &chunk[j]
				zi := base + j
				for zi >= top {
					if k := stackSlot[len(stackSlot)-1]; k >= 0 {
						active[k]--
					}
					stack, stackSlot = stack[:len(stack)-1], stackSlot[:len(stackSlot)-1]
					top = math.MaxInt
					if len(stack) > 0 {
						top = stack[len(stack)-1]
					}
				}
				start, end := z.Start(), z.End()
				span := end - start
				next := zones.NextOf(z)
				if end < 0 || span <= 0 {
					st.Skipped++
				} else {
					sl := srclocSlot(z.SrcLoc)
					k := slot[sl]
					if k < 0 {
						k = slotOf(z.SrcLoc)
					}
					st.Zones++
					s := &st.Locations[k]
					if o.KeepZones {
						s.Zones = append(s.Zones, ZoneRef{Thread: uint32(ti), Index: uint32(zi)})
					}
					s.Count++
					s.Min = min(s.Min, span)
					s.Max = max(s.Max, span)
					s.Total += span
					s.SumSq += float64(span) * float64(span)
					if active[sl] == 0 {
						s.NonReentrantCount++
						s.NonReentrantMin = min(s.NonReentrantMin, span)
						s.NonReentrantMax = max(s.NonReentrantMax, span)
						s.NonReentrantTotal += span
					}
					self := span
					for c := zi + 1; c < next && c < nz; {
						cz := zones.At(c)
						self -= max(0, cz.End()-cz.Start())
						n := zones.NextOf(cz)
						if n <= c {
							break // malformed tree; never loop
						}
						c = n
					}
					s.SelfMin = min(s.SelfMin, self)
					s.SelfMax = max(s.SelfMax, self)
					s.SelfTotal += self
				}
				if next > zi+1 {
					sl := int32(srclocSlot(z.SrcLoc))
					active[sl]++
					stack = append(stack, next)
					stackSlot = append(stackSlot, sl)
					top = next
				}
			}
		}
		for _, k := range stackSlot {
			active[k]--
		}
	}
	return st
}

// countsOnly is ComputeZoneStats' pass for CountsOnly: one flat loop over
// each thread's chunks, in the same order (so SumSq adds up identically).
func countsOnly(t *model.Trace, st *ZoneStats, slot *[65536]int32, slotOf func(model.SrcLocID) int32, keep bool) {
	for ti := range t.Threads {
		countThread(st, slot, slotOf, keep, ti, &t.Threads[ti].Zones)
	}
}

// countThread is countsOnly for thread ti's zones.
func countThread(st *ZoneStats, slot *[65536]int32, slotOf func(model.SrcLocID) int32, keep bool, ti int, zones *model.ZoneList) {
	base, prev := 0, 0 // the runs' running start (the first may be short)
	for _, chunk := range zones.Chunks() {
		base, prev = base+prev, len(chunk)
		for j := range chunk {
			z := &chunk[j]
			start, end := z.Start(), z.End()
			span := end - start
			if end < 0 || span <= 0 {
				st.Skipped++
				continue
			}
			k := slot[srclocSlot(z.SrcLoc)]
			if k < 0 {
				k = slotOf(z.SrcLoc)
			}
			st.Zones++
			s := &st.Locations[k]
			if keep {
				s.Zones = append(s.Zones, ZoneRef{Thread: uint32(ti), Index: uint32(base + j)})
			}
			s.Count++
			s.Min = min(s.Min, span)
			s.Max = max(s.Max, span)
			s.Total += span
			s.SumSq += float64(span) * float64(span)
		}
	}
}

// ZoneCounts computes ComputeZoneStats(t, StatsOptions{CountsOnly: true})
// thread by thread, so a load can hand each thread over as soon as it is
// read (tracefile.WithThreadLoaded) and the statistics of the first threads
// are done while the last ones load. Threads must be added in file order
// and each once: that is the order the sums of squares are added in, so
// the result is the same, bit for bit.
type ZoneCounts struct {
	st     *ZoneStats
	slot   [65536]int32
	slotOf func(model.SrcLocID) int32
	next   int
}

// NewZoneCounts starts the statistics of t. t's source-location lists
// (SrcLocIndex, DynSrcLocs) must be complete; its threads need not be.
func NewZoneCounts(t *model.Trace) *ZoneCounts {
	c := &ZoneCounts{}
	c.st, c.slotOf = newZoneStats(t, &c.slot)
	return c
}

// AddThread counts the zones of the trace's thread i, which must be the
// next thread (0, 1, 2, ...): any other i panics.
func (c *ZoneCounts) AddThread(i int, th *model.Thread) {
	if i != c.next {
		panic("analysis: ZoneCounts.AddThread out of order")
	}
	c.next++
	countThread(c.st, &c.slot, c.slotOf, false, i, &th.Zones)
}

// Threads is how many threads have been added.
func (c *ZoneCounts) Threads() int { return c.next }

// Stats returns the statistics of the threads added so far.
func (c *ZoneCounts) Stats() *ZoneStats { return c.st }

// childTimeFast is tracy-csvexport's GetZoneChildTimeFast: the sum of the
// direct children's end - start, with no clamping (an unfinished child,
// end -1, subtracts its start plus one), used for -e with -u and -t.
func childTimeFast(zones *model.ZoneList, i int) int64 {
	var t int64
	next := zones.NextOf(zones.At(i))
	for c := i + 1; c < next && c < zones.Len(); {
		cz := zones.At(c)
		t += cz.End() - cz.Start()
		n := zones.NextOf(cz)
		if n <= c {
			break
		}
		c = n
	}
	return t
}

// cpuSrcLocOrder returns every source-location id Tracy would hold in its
// per-source-location map after loading t, in that map's iteration order.
//
// Tracy reserves room for (index entries + dynamic locations) and inserts
// the ids of the file's count-hint list in file order. The model does not
// keep that list, so the ids Tracy always writes there (every static index
// 1..N-1, then every dynamic id) are inserted in ascending order instead:
// robin-hood placement depends on insertion order only for two keys with
// the same home bucket and the same five hash bits, so the iteration order
// is the same in practice.
func cpuSrcLocOrder(t *model.Trace) []model.SrcLocID {
	m := newTracyMap()
	m.reserve(uint64(len(t.SrcLocIndex) + len(t.DynSrcLocs)))
	var ins []model.SrcLocID
	add := func(id model.SrcLocID) {
		if m.emplace(uint64(int64(id))) {
			ins = append(ins, id)
		}
	}
	for i := 1; i < len(t.SrcLocIndex) && i < math.MaxInt16; i++ {
		add(model.SrcLocID(i))
	}
	for i := 0; i < len(t.DynSrcLocs) && i < math.MaxInt16; i++ {
		add(model.SrcLocID(-(i + 1)))
	}
	if m.overflow {
		return ins
	}
	out := make([]model.SrcLocID, 0, len(ins))
	for _, k := range m.order() {
		out = append(out, model.SrcLocID(int16(k)))
	}
	return out
}
