package model

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// Builder fills a Trace incrementally, as a capture does while it decodes a
// live stream. It keeps the lookup state a finished trace does not need
// (string interning, thread and source-location maps, open-zone stacks,
// active allocations, call-stack de-duplication), so that every call is
// O(1) amortised.
//
// Indices returned by the Builder (thread, zone, plot, pool, lock, frame
// set) are positions in the corresponding Trace slices and stay valid; any
// pointer it returns is valid only until the next Builder call.
type Builder struct {
	t *Trace

	strs      map[string]StrID
	threads   map[uint64]int // tid -> index in t.Threads
	local     map[uint64]uint16
	open      [][]int32 // per thread: open zone indices, outermost first
	static    map[uint64]SrcLocID
	plots     map[uint64]int
	pools     map[uint64]int
	active    []map[uint64]int32 // per pool: ptr -> event index
	locks     map[uint32]int
	frameSets map[uint64]int
	csSeed    maphash.Seed
	cs        map[uint64][]uint32 // hash of frames -> call stack indices
	lastTime  int64
}

// NewBuilder returns a Builder over a fresh trace (see New).
func NewBuilder() *Builder { return BuilderFor(New()) }

// BuilderFor returns a Builder that continues filling t, rebuilding its
// lookup state from what t already holds. Zones already in t are treated as
// closed.
func BuilderFor(t *Trace) *Builder {
	b := &Builder{
		t:         t,
		strs:      make(map[string]StrID, len(t.Strings)),
		threads:   make(map[uint64]int, len(t.Threads)),
		local:     make(map[uint64]uint16, len(t.ThreadIndex)),
		static:    make(map[uint64]SrcLocID, len(t.SrcLocIndex)),
		plots:     map[uint64]int{},
		pools:     map[uint64]int{},
		locks:     map[uint32]int{},
		frameSets: map[uint64]int{},
		csSeed:    maphash.MakeSeed(),
		cs:        map[uint64][]uint32{},
		lastTime:  t.Metadata.LastTime,
	}
	if t.PtrStrings == nil {
		t.PtrStrings = map[uint64]StrID{}
	}
	if t.ThreadNames == nil {
		t.ThreadNames = map[uint64]StrID{}
	}
	if t.ExtThreadNames == nil {
		t.ExtThreadNames = map[uint64][2]StrID{}
	}
	if t.StaticSrcLocs == nil {
		t.StaticSrcLocs = map[uint64]SourceLocation{}
	}
	if t.Frames == nil {
		t.Frames = map[uint64]FrameData{}
	}
	if t.TidToPid == nil {
		t.TidToPid = map[uint64]uint64{}
	}
	if len(t.Strings) == 0 {
		t.Strings = []string{""}
	}
	if len(t.ThreadIndex) == 0 {
		t.ThreadIndex = []uint64{0}
	}
	if len(t.SrcLocIndex) == 0 {
		t.SrcLocIndex = []uint64{0}
	}
	if len(t.ZoneExtras) == 0 {
		t.ZoneExtras = []ZoneExtra{{}}
	}
	for i, s := range t.Strings {
		if i > 0 {
			if _, dup := b.strs[s]; !dup {
				b.strs[s] = StrID(i)
			}
		}
	}
	for i := range t.Threads {
		b.threads[t.Threads[i].ID] = i
	}
	b.open = make([][]int32, len(t.Threads))
	for i, tid := range t.ThreadIndex {
		if _, dup := b.local[tid]; !dup {
			b.local[tid] = uint16(i)
		}
	}
	for i, k := range t.SrcLocIndex {
		if i > 0 {
			b.static[k] = SrcLocID(i)
		}
	}
	for i := range t.Plots {
		b.plots[t.Plots[i].Name] = i
	}
	b.active = make([]map[uint64]int32, len(t.MemPools))
	for i := range t.MemPools {
		p := &t.MemPools[i]
		b.pools[p.Name] = i
		b.active[i] = map[uint64]int32{}
		for j := range p.Events {
			if p.Events[j].TimeFree < 0 {
				b.active[i][p.Events[j].Ptr] = int32(j)
			}
		}
	}
	for i := range t.Locks {
		b.locks[t.Locks[i].ID] = i
	}
	if len(t.FrameSets) == 0 {
		t.FrameSets = []FrameSet{{Name: 0, Continuous: true}}
	}
	for i := range t.FrameSets {
		b.frameSets[t.FrameSets[i].Name] = i
	}
	for i := 1; i <= t.NumCallStacks(); i++ {
		h := b.hashFrames(t.CallStack(uint32(i)))
		b.cs[h] = append(b.cs[h], uint32(i))
	}
	return b
}

// Trace returns the trace being built.
func (b *Builder) Trace() *Trace { return b.t }

func (b *Builder) seen(t int64) {
	if t > b.lastTime {
		b.lastTime = t
	}
}

// Intern returns the id of s, adding it to the string table if new.
func (b *Builder) Intern(s string) StrID {
	if s == "" {
		return NoString
	}
	if id, ok := b.strs[s]; ok {
		return id
	}
	id := StrID(len(b.t.Strings))
	b.t.Strings = append(b.t.Strings, s)
	b.strs[s] = id
	return id
}

// SetPtrString records that client pointer key names s (string literals,
// frame-set, plot and pool names sent by pointer) and returns its id.
func (b *Builder) SetPtrString(key uint64, s string) StrID {
	id := b.Intern(s)
	b.t.PtrStrings[key] = id
	return id
}

// SetThreadName names thread tid.
func (b *Builder) SetThreadName(tid uint64, name string) {
	b.t.ThreadNames[tid] = b.Intern(name)
}

// LocalThread returns the local thread index of tid (Tracy's
// CompressThread), adding tid to Trace.ThreadIndex if new.
func (b *Builder) LocalThread(tid uint64) uint16 {
	if i, ok := b.local[tid]; ok {
		return i
	}
	i := uint16(len(b.t.ThreadIndex))
	b.t.ThreadIndex = append(b.t.ThreadIndex, tid)
	b.local[tid] = i
	return i
}

// Thread returns the index in Trace.Threads of thread tid, creating it (and
// its local thread index) if new.
func (b *Builder) Thread(tid uint64) int {
	if i, ok := b.threads[tid]; ok {
		return i
	}
	b.LocalThread(tid)
	i := len(b.t.Threads)
	b.t.Threads = append(b.t.Threads, Thread{ID: tid})
	b.open = append(b.open, nil)
	b.threads[tid] = i
	return i
}

// StaticSrcLoc returns the srcloc value for the static source location at
// client address key, if it was added.
func (b *Builder) StaticSrcLoc(key uint64) (SrcLocID, bool) {
	id, ok := b.static[key]
	return id, ok
}

// AddStaticSrcLoc registers the static source location at client address
// key (once; later calls return the first id). When Tracy's 32767 limit is
// reached it returns EmptySrcLoc, as the server does.
func (b *Builder) AddStaticSrcLoc(key uint64, sl SourceLocation) SrcLocID {
	if id, ok := b.static[key]; ok {
		return id
	}
	if len(b.t.SrcLocIndex) >= int(EmptySrcLoc) {
		return EmptySrcLoc
	}
	id := SrcLocID(len(b.t.SrcLocIndex))
	b.t.SrcLocIndex = append(b.t.SrcLocIndex, key)
	b.t.StaticSrcLocs[key] = sl
	b.static[key] = id
	return id
}

// AddDynSrcLoc adds an allocated (dynamic) source location and returns its
// negative srcloc value, or EmptySrcLoc when 32767 exist. Callers that want
// Tracy's de-duplication of identical allocated locations keep their own
// map from content to id.
func (b *Builder) AddDynSrcLoc(sl SourceLocation) SrcLocID {
	if len(b.t.DynSrcLocs) >= int(EmptySrcLoc) {
		return EmptySrcLoc
	}
	b.t.DynSrcLocs = append(b.t.DynSrcLocs, sl)
	return SrcLocID(-len(b.t.DynSrcLocs))
}

// BeginZone appends a zone that starts at start to thread th (an index
// from Thread) as a child of the thread's innermost open zone, and returns
// its index in the thread's Zones. The zone stays open (End -1) until
// EndZone.
func (b *Builder) BeginZone(th int, start int64, srcloc SrcLocID) int {
	t := &b.t.Threads[th]
	idx := t.Zones.Append(MakeZone(start, -1, srcloc, 0, uint32(t.Zones.Len()+1)))
	// Keep ancestors' subtree ends current so the tree is walkable at any
	// time during a live capture.
	for _, a := range b.open[th] {
		t.Zones.At(int(a)).SetNext(uint32(idx + 1))
	}
	b.open[th] = append(b.open[th], int32(idx))
	b.seen(start)
	return idx
}

// EndZone ends thread th's innermost open zone at end and returns its
// index; ok is false if no zone is open.
func (b *Builder) EndZone(th int, end int64) (idx int, ok bool) {
	st := b.open[th]
	if len(st) == 0 {
		return -1, false
	}
	idx = int(st[len(st)-1])
	b.open[th] = st[:len(st)-1]
	b.t.Threads[th].Zones.At(idx).SetEnd(end)
	b.seen(end)
	return idx, true
}

// OpenZone returns the index of thread th's innermost open zone, or -1.
func (b *Builder) OpenZone(th int) int {
	st := b.open[th]
	if len(st) == 0 {
		return -1
	}
	return int(st[len(st)-1])
}

// OpenDepth returns how many zones of thread th are open.
func (b *Builder) OpenDepth(th int) int { return len(b.open[th]) }

// ZoneExtra returns the extra record of zone idx of thread th, allocating
// one if the zone has none. The pointer is valid until the next Builder
// call.
func (b *Builder) ZoneExtra(th, idx int) *ZoneExtra {
	z := b.t.Threads[th].Zones.At(idx)
	e := z.Extra()
	if e == 0 {
		e = uint32(len(b.t.ZoneExtras))
		b.t.ZoneExtras = append(b.t.ZoneExtras, ZoneExtra{})
		z.SetExtra(e)
	}
	return &b.t.ZoneExtras[e]
}

// SetZoneText sets the ZoneText of a zone.
func (b *Builder) SetZoneText(th, idx int, text string) {
	id := b.Intern(text)
	b.ZoneExtra(th, idx).Text = id
}

// SetZoneName sets the ZoneName override of a zone.
func (b *Builder) SetZoneName(th, idx int, name string) {
	id := b.Intern(name)
	b.ZoneExtra(th, idx).Name = id
}

// SetZoneColor sets a zone's colour (0x00BBGGRR, 24 bits).
func (b *Builder) SetZoneColor(th, idx int, color uint32) {
	b.ZoneExtra(th, idx).Color = color & 0xFFFFFF
}

// SetZoneCallStack sets a zone's call stack index.
func (b *Builder) SetZoneCallStack(th, idx int, cs uint32) {
	b.ZoneExtra(th, idx).CallStack = cs & 0xFFFFFF
}

// AddMessage appends a message of thread tid (messages must arrive in time
// order) and returns its index in Trace.Messages. m.Thread is set.
func (b *Builder) AddMessage(tid uint64, m Message) int {
	th := b.Thread(tid)
	m.Thread = b.LocalThread(tid)
	i := len(b.t.Messages)
	b.t.Messages = append(b.t.Messages, m)
	b.t.Threads[th].Messages = append(b.t.Threads[th].Messages, uint32(i))
	b.seen(m.Time)
	return i
}

// Plot returns the index of plot name, creating a User plot if new.
func (b *Builder) Plot(name uint64) int {
	if i, ok := b.plots[name]; ok {
		return i
	}
	i := len(b.t.Plots)
	b.t.Plots = append(b.t.Plots, Plot{Name: name, Min: math.Inf(1), Max: math.Inf(-1)})
	b.plots[name] = i
	return i
}

// PlotConfig sets a plot's display configuration.
func (b *Builder) PlotConfig(name uint64, format uint8, showSteps, fill bool, color uint32) {
	p := &b.t.Plots[b.Plot(name)]
	p.Format, p.ShowSteps, p.Fill, p.Color = format, showSteps, fill, color&0xFFFFFF
}

// PlotPoint appends a point to plot name, keeping min, max and sum.
func (b *Builder) PlotPoint(name uint64, time int64, v float64) {
	p := &b.t.Plots[b.Plot(name)]
	p.Points = append(p.Points, PlotPoint{Time: time, Value: v})
	p.Min = math.Min(p.Min, v)
	p.Max = math.Max(p.Max, v)
	p.Sum += v
	b.seen(time)
}

// MemPool returns the index of memory pool name (0 = default), creating it.
func (b *Builder) MemPool(name uint64) int {
	if i, ok := b.pools[name]; ok {
		return i
	}
	i := len(b.t.MemPools)
	b.t.MemPools = append(b.t.MemPools, MemPool{Name: name, Low: ^uint64(0)})
	b.active = append(b.active, map[uint64]int32{})
	b.pools[name] = i
	return i
}

// MemAlloc records an allocation in pool (name). It returns false, and
// records nothing, if ptr is already allocated there (Tracy reports this as
// a client error).
func (b *Builder) MemAlloc(pool uint64, ptr, size uint64, time int64, thread uint16, cs uint32) bool {
	pi := b.MemPool(pool)
	if _, dup := b.active[pi][ptr]; dup {
		return false
	}
	p := &b.t.MemPools[pi]
	b.active[pi][ptr] = int32(len(p.Events))
	p.Events = append(p.Events, MemEvent{Ptr: ptr, Size: size, TimeAlloc: time, TimeFree: -1, CSAlloc: cs, ThreadAlloc: thread})
	p.Usage += size
	p.Low = min(p.Low, ptr)
	p.High = max(p.High, ptr+size)
	p.ActiveCount++
	b.seen(time)
	return true
}

// MemFree records the free of ptr in pool (name); false if ptr is not
// allocated there.
func (b *Builder) MemFree(pool uint64, ptr uint64, time int64, thread uint16, cs uint32) bool {
	pi, ok := b.pools[pool]
	if !ok {
		return false
	}
	ei, ok := b.active[pi][ptr]
	if !ok {
		return false
	}
	delete(b.active[pi], ptr)
	p := &b.t.MemPools[pi]
	ev := &p.Events[ei]
	ev.TimeFree, ev.ThreadFree, ev.CSFree = time, thread, cs
	p.Usage -= ev.Size
	p.ActiveCount--
	b.seen(time)
	return true
}

// MemDiscard frees every active allocation of pool (name) at time and
// returns how many it freed.
func (b *Builder) MemDiscard(pool uint64, time int64, thread uint16, cs uint32) int {
	pi, ok := b.pools[pool]
	if !ok {
		return 0
	}
	n := 0
	for ptr := range b.active[pi] {
		b.MemFree(pool, ptr, time, thread, cs)
		n++
	}
	return n
}

// FrameSet returns the index of frame set name, creating it (continuous or
// not) if new.
func (b *Builder) FrameSet(name uint64, continuous bool) int {
	if i, ok := b.frameSets[name]; ok {
		return i
	}
	i := len(b.t.FrameSets)
	b.t.FrameSets = append(b.t.FrameSets, FrameSet{Name: name, Continuous: continuous})
	b.frameSets[name] = i
	return i
}

// FrameMark starts a new frame of continuous set name at time and returns
// its frame number.
func (b *Builder) FrameMark(name uint64, time int64) int {
	fs := &b.t.FrameSets[b.FrameSet(name, true)]
	fs.Frames = append(fs.Frames, Frame{Start: time, End: -1, Image: -1})
	b.seen(time)
	return len(fs.Frames) - 1
}

// FrameStart starts a frame of discontinuous set name.
func (b *Builder) FrameStart(name uint64, time int64) int {
	fs := &b.t.FrameSets[b.FrameSet(name, false)]
	fs.Frames = append(fs.Frames, Frame{Start: time, End: -1, Image: -1})
	b.seen(time)
	return len(fs.Frames) - 1
}

// FrameEnd ends the last frame of discontinuous set name; false if there is
// no unfinished frame.
func (b *Builder) FrameEnd(name uint64, time int64) bool {
	i, ok := b.frameSets[name]
	if !ok {
		return false
	}
	fs := &b.t.FrameSets[i]
	if fs.Continuous || len(fs.Frames) == 0 || fs.Frames[len(fs.Frames)-1].End >= 0 {
		return false
	}
	fs.Frames[len(fs.Frames)-1].End = time
	b.seen(time)
	return true
}

// AddFrameImage stores img and links it to base-set frame number frame (if
// that frame exists); it returns the image index.
func (b *Builder) AddFrameImage(img FrameImage, frame int) int32 {
	i := int32(len(b.t.FrameImages))
	b.t.FrameImages = append(b.t.FrameImages, img)
	if fr := b.t.FrameSets[0].Frames; frame >= 0 && frame < len(fr) {
		fr[frame].Image = i
	}
	return i
}

// Lock returns the index of lock id, creating an unannounced lock if new.
func (b *Builder) Lock(id uint32) int {
	if i, ok := b.locks[id]; ok {
		return i
	}
	i := len(b.t.Locks)
	b.t.Locks = append(b.t.Locks, Lock{ID: id})
	b.locks[id] = i
	return i
}

// LockAnnounce records a lock's announcement.
func (b *Builder) LockAnnounce(id uint32, srcloc SrcLocID, typ uint8, time int64) int {
	l := &b.t.Locks[b.Lock(id)]
	l.SrcLoc, l.Type, l.Valid, l.TimeAnnounce = srcloc, typ, true, time
	b.seen(time)
	return b.locks[id]
}

// LockTerminate records a lock's destruction.
func (b *Builder) LockTerminate(id uint32, time int64) {
	b.t.Locks[b.Lock(id)].TimeTerminate = time
	b.seen(time)
}

// LockName sets a lock's custom name.
func (b *Builder) LockName(id uint32, name string) {
	n := b.Intern(name)
	b.t.Locks[b.Lock(id)].CustomName = n
}

// LockEvent appends an event of thread tid to lock id. It returns false if
// the lock already has 64 other threads (Tracy's limit).
func (b *Builder) LockEvent(id uint32, tid uint64, time int64, typ uint8, srcloc SrcLocID) bool {
	l := &b.t.Locks[b.Lock(id)]
	ti := -1
	for i, x := range l.Threads {
		if x == tid {
			ti = i
			break
		}
	}
	if ti < 0 {
		if len(l.Threads) >= 64 {
			return false
		}
		ti = len(l.Threads)
		l.Threads = append(l.Threads, tid)
	}
	l.Events = append(l.Events, LockEvent{Time: time, SrcLoc: srcloc, Thread: uint8(ti), Type: typ})
	b.seen(time)
	return true
}

func (b *Builder) hashFrames(frames []uint64) uint64 {
	var h maphash.Hash
	h.SetSeed(b.csSeed)
	var buf [8]byte
	for _, f := range frames {
		binary.LittleEndian.PutUint64(buf[:], f)
		h.Write(buf[:])
	}
	return h.Sum64()
}

// MaxCallStacks is the number of call stacks a 24-bit index can address.
const MaxCallStacks = 1<<24 - 1

// InternCallStack returns the 1-based index of the call stack with these
// frames (innermost first), adding it if new; identical stacks share one
// index. It returns 0 for an empty stack or when the 24-bit index space is
// exhausted.
func (b *Builder) InternCallStack(frames []uint64) uint32 {
	if len(frames) == 0 || len(frames) > math.MaxUint16 {
		return 0
	}
	h := b.hashFrames(frames)
	for _, idx := range b.cs[h] {
		if equalFrames(b.t.CallStack(idx), frames) {
			return idx
		}
	}
	if b.t.NumCallStacks() >= MaxCallStacks {
		return 0
	}
	b.t.CallStackFrames = append(b.t.CallStackFrames, frames...)
	b.t.CallStackOffsets = append(b.t.CallStackOffsets, uint32(len(b.t.CallStackFrames)))
	idx := uint32(b.t.NumCallStacks())
	b.cs[h] = append(b.cs[h], idx)
	return idx
}

func equalFrames(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Observe extends the trace's last time to at least time (for events the
// caller appends to the Trace directly).
func (b *Builder) Observe(time int64) { b.seen(time) }

// Finish makes the trace ready to save: zones still open keep End -1
// (never ended), plots with no points get zero min/max, and
// Metadata.LastTime becomes at least the latest time seen. The Builder may
// continue to be used; open zones stay open.
func (b *Builder) Finish() *Trace {
	for i := range b.t.Plots {
		if p := &b.t.Plots[i]; len(p.Points) == 0 {
			p.Min, p.Max = 0, 0
		}
	}
	if b.lastTime > b.t.Metadata.LastTime {
		b.t.Metadata.LastTime = b.lastTime
	}
	return b.t
}
