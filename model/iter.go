package model

import "iter"

// Str returns the string id names ("" for NoString or an id out of range).
func (t *Trace) Str(id StrID) string {
	if int(id) >= len(t.Strings) {
		return ""
	}
	return t.Strings[id]
}

// PtrString resolves a client pointer key through PtrStrings.
func (t *Trace) PtrString(key uint64) (string, bool) {
	id, ok := t.PtrStrings[key]
	if !ok {
		return "", false
	}
	return t.Str(id), true
}

// RefString resolves a tagged string reference as Tracy does: "" when
// inactive, "???" for a pointer key with no string.
func (t *Trace) RefString(r StringRef) string {
	if r.Flags&RefActive == 0 {
		return ""
	}
	if r.Flags&RefIsIdx != 0 {
		if r.Str >= uint64(len(t.Strings)-1) {
			return "???"
		}
		return t.Strings[r.Str+1]
	}
	s, ok := t.PtrString(r.Str)
	if !ok {
		return "???"
	}
	return s
}

// SrcLoc returns the source location a zone's or lock's srcloc value names;
// ok is false for EmptySrcLoc, index 0 and unknown ids.
func (t *Trace) SrcLoc(id SrcLocID) (sl SourceLocation, ok bool) {
	if id < 0 {
		i := -int(id) - 1
		if i < len(t.DynSrcLocs) {
			return t.DynSrcLocs[i], true
		}
		return sl, false
	}
	if id == 0 || id == EmptySrcLoc || int(id) >= len(t.SrcLocIndex) {
		return sl, false
	}
	sl, ok = t.StaticSrcLocs[t.SrcLocIndex[id]]
	return sl, ok
}

// SrcLocName is the display name of a source location: its name if set,
// otherwise its function.
func (t *Trace) SrcLocName(sl SourceLocation) string {
	if sl.Name.Flags&RefActive != 0 {
		return t.RefString(sl.Name)
	}
	return t.RefString(sl.Function)
}

// ZoneName is the display name of a zone: the ZoneName override if any,
// otherwise its source location's name.
func (t *Trace) ZoneName(z *Zone) string {
	if e := z.Extra(); e != 0 && int(e) < len(t.ZoneExtras) && t.ZoneExtras[e].Name != NoString {
		return t.Str(t.ZoneExtras[e].Name)
	}
	sl, _ := t.SrcLoc(z.SrcLoc)
	return t.SrcLocName(sl)
}

// NumCallStacks is the number of call stacks; valid indices are 1..n.
func (t *Trace) NumCallStacks() int { return len(t.CallStackOffsets) }

// CallStack returns the frames (innermost first) of 1-based call stack idx,
// or nil for 0 and out-of-range indices. The slice aliases the trace.
func (t *Trace) CallStack(idx uint32) []uint64 {
	if idx == 0 || int(idx) > len(t.CallStackOffsets) {
		return nil
	}
	var from uint32
	if idx > 1 {
		from = t.CallStackOffsets[idx-2]
	}
	return t.CallStackFrames[from:t.CallStackOffsets[idx-1]]
}

// ThreadName returns the name of thread tid, or "" if unnamed.
func (t *Trace) ThreadName(tid uint64) string { return t.Str(t.ThreadNames[tid]) }

// LocalThread returns the thread id of a local thread index (memory events,
// messages, GPU zones), or 0 if out of range.
func (t *Trace) LocalThread(idx uint16) uint64 {
	if int(idx) < len(t.ThreadIndex) {
		return t.ThreadIndex[idx]
	}
	return 0
}

// ZoneCount is the number of CPU zones in all threads.
func (t *Trace) ZoneCount() int {
	n := 0
	for i := range t.Threads {
		n += t.Threads[i].Zones.Len()
	}
	return n
}

// Roots yields the indices of the top-level zones of a thread.
func Roots(zones *ZoneList) iter.Seq[int] {
	return siblings(zones, 0, zones.Len())
}

// Children yields the indices of the direct children of zone i.
func Children(zones *ZoneList, i int) iter.Seq[int] {
	return siblings(zones, i+1, zones.NextOf(zones.At(i)))
}

func siblings(zones *ZoneList, from, to int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for j := from; j < to && j < zones.Len(); {
			if !yield(j) {
				return
			}
			n := zones.NextOf(zones.At(j))
			if n <= j { // malformed; never loop
				return
			}
			j = n
		}
	}
}

// Duration is end - start of a zone, or -1 if it never ended.
func (z *Zone) Duration() int64 {
	e := z.End()
	if e < 0 {
		return -1
	}
	return e - z.Start()
}

// SelfTime is the zone's duration minus the durations of its direct
// children (children that never ended count as running to the parent's
// end). It returns -1 for a zone that never ended.
func SelfTime(zones *ZoneList, i int) int64 {
	zi := zones.At(i)
	d := zi.Duration()
	if d < 0 {
		return -1
	}
	end := zi.End()
	for c := range Children(zones, i) {
		cz := zones.At(c)
		ce := cz.End()
		if ce < 0 {
			ce = end
		}
		d -= ce - cz.Start()
	}
	return d
}

// Depth-first walk with depth: Walk calls fn for every zone of a thread in
// pre-order with its nesting depth (0 = top level). It stops when fn returns
// false.
func Walk(zones *ZoneList, fn func(i, depth int) bool) {
	var stack []int // ends of open ancestors
	for i, z := range zones.All() {
		for len(stack) > 0 && i >= stack[len(stack)-1] {
			stack = stack[:len(stack)-1]
		}
		if !fn(i, len(stack)) {
			return
		}
		if n := zones.NextOf(z); n > i+1 {
			stack = append(stack, n)
		}
	}
}

// SrcLocTable resolves srcloc values without map lookups, for code that
// looks up millions of zones. Build it once per trace (after loading, or
// again after a Builder added source locations).
type SrcLocTable struct {
	static []SourceLocation // by SrcLocIndex position
	known  []bool
	dyn    []SourceLocation
}

// NewSrcLocTable resolves every static index entry and dynamic location of t.
func NewSrcLocTable(t *Trace) *SrcLocTable {
	st := &SrcLocTable{
		static: make([]SourceLocation, len(t.SrcLocIndex)),
		known:  make([]bool, len(t.SrcLocIndex)),
		dyn:    t.DynSrcLocs,
	}
	for i, k := range t.SrcLocIndex {
		if i == 0 {
			continue
		}
		st.static[i], st.known[i] = t.StaticSrcLocs[k]
	}
	return st
}

// Get returns the source location of srcloc value id, as Trace.SrcLoc.
func (st *SrcLocTable) Get(id SrcLocID) (SourceLocation, bool) {
	if id < 0 {
		if i := -int(id) - 1; i < len(st.dyn) {
			return st.dyn[i], true
		}
		return SourceLocation{}, false
	}
	if int(id) < len(st.static) && st.known[id] {
		return st.static[id], true
	}
	return SourceLocation{}, false
}
