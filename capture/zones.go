package capture

import (
	"math"
	"strconv"

	"github.com/gotracy/gotracy/model"
)

// noticeThread returns the state of thread id, creating the thread (and
// asking for its name) the first time it is seen, as Tracy's NoticeThread.
func (w *worker) noticeThread(id uint64) *threadState {
	if td := w.lastThread; td != nil && td.id == id {
		return td
	}
	td := w.threads[id]
	if td == nil {
		w.checkThreadName(id)
		td = w.newThread(id, false, 0)
	}
	w.lastThread = td
	return td
}

func (w *worker) newThread(id uint64, fiber bool, groupHint int32) *threadState {
	td := &threadState{id: id, idx: len(w.t.Threads), isFiber: fiber}
	w.t.Threads = append(w.t.Threads, model.Thread{ID: id, IsFiber: fiber, GroupHint: groupHint})
	w.threads[id] = td
	return td
}

// currentThread is the thread of the current ThreadContext, or the fiber it
// runs (Tracy's GetCurrentThreadData).
func (w *worker) currentThread() *threadState {
	// the common case inlines into the zone path.
	if td := w.ctxData; td != nil && td.fiber == nil {
		return td
	}
	return w.currentThreadSlow()
}

func (w *worker) currentThreadSlow() *threadState {
	td := w.ctxData
	if td == nil {
		td = w.noticeThread(uint64(w.threadCtx))
		w.ctxData = td
	}
	if td.fiber != nil {
		return td.fiber
	}
	return td
}

// localThread is Tracy's CompressThread: the thread's index in the trace's
// local thread table, assigned on first use.
func (w *worker) localThread(id uint64) uint16 {
	if i, ok := w.threadLocal[id]; ok {
		return i
	}
	if len(w.t.ThreadIndex) > math.MaxUint16 {
		// Local thread indices are 16-bit in the file.
		w.failf(failTooManyThreads, id, "")
		return 0
	}
	i := uint16(len(w.t.ThreadIndex))
	w.t.ThreadIndex = append(w.t.ThreadIndex, id)
	w.threadLocal[id] = i
	return i
}

func (w *worker) checkThreadName(id uint64) {
	if _, ok := w.t.ThreadNames[id]; ok {
		return
	}
	if _, ok := w.threadNamePending[id]; ok {
		return
	}
	w.threadNamePending[id] = struct{}{}
	w.q.push(qThreadString, id, 0)
}

func (w *worker) zoneBegin(tick int64, srcloc uint64, withCallstack bool) {
	w.checkSourceLocation(srcloc)
	start := w.tscTime(tick)
	sl := w.shrinkSourceLocation(srcloc)
	w.setLast(start)
	td, zi := w.newZone(start, sl)
	if withCallstack {
		w.attachCallstack(td, zi)
	}
}

func (w *worker) zoneBeginAlloc(tick int64, withCallstack bool) {
	start := w.tscTime(tick)
	w.setLast(start)
	td, zi := w.newZone(start, w.pendingPayload)
	w.pendingPayload = 0
	if withCallstack {
		w.attachCallstack(td, zi)
	}
}

func (w *worker) attachCallstack(td *threadState, zi uint32) {
	e := w.zoneExtra(td, zi)
	e.CallStack = td.nextCS
	td.nextCS = 0
}

// newZone appends an open zone to the current thread. Zones are stored in
// depth-first pre-order, which is the order they begin in, so the thread's
// zone slice only ever grows at its end; the open stack holds indices.
func (w *worker) newZone(start int64, sl model.SrcLocID) (*threadState, uint32) {
	w.zones++
	td := w.currentThread()
	// Spare and Extend inline, AppendZero does not.
	i := td.zones.Len()
	z := &td.zones.Spare()[0]
	td.zones.Extend(1)
	z.SetStart(start)
	z.SetEnd(-1)
	z.SrcLoc = sl
	zi := uint32(i)
	td.stack = append(td.stack, zi)
	td.ids = append(td.ids, td.nextID)
	td.nextID = 0
	return td, zi
}

func (w *worker) zoneEnd(tick int64) {
	td := w.currentThread()
	if len(td.ids) == 0 {
		w.failf(failZoneDoubleEnd, td.id, "")
		return
	}
	id := td.ids[len(td.ids)-1]
	if id != td.nextID {
		w.failf(failZoneStack, td.id, "")
		return
	}
	td.ids = td.ids[:len(td.ids)-1]
	td.nextID = 0
	zi := td.stack[len(td.stack)-1]
	td.stack = td.stack[:len(td.stack)-1]
	z := td.zones.At(int(zi))
	end := w.tscTime(tick)
	z.SetEnd(end)
	td.zones.SetNextOf(z, td.zones.Len())
	w.setLast(end)
	if !td.hasLocal && end > z.Start() {
		// Tracy assigns local thread indices when it first records zone
		// statistics for a thread; the table's order is part of the file.
		w.localThread(td.id)
		td.hasLocal = true
	}
}

// activeZone returns the innermost open zone of the current thread for an
// annotation item, or records the failure reason.
func (w *worker) activeZone(reason string) (*threadState, uint32, bool) {
	td := w.ctxData
	if td == nil {
		td = w.threads[uint64(w.threadCtx)]
		if td == nil {
			w.failf(reason, uint64(w.threadCtx), "")
			return nil, 0, false
		}
	}
	if td.fiber != nil {
		td = td.fiber
	}
	if len(td.stack) == 0 || td.nextID != td.ids[len(td.ids)-1] {
		w.failf(reason, td.id, "")
		return nil, 0, false
	}
	td.nextID = 0
	return td, td.stack[len(td.stack)-1], true
}

// zoneExtra returns the zone's extra record, creating it on first use.
func (w *worker) zoneExtra(td *threadState, zi uint32) *model.ZoneExtra {
	z := td.zones.At(int(zi))
	e := z.Extra()
	if e == 0 {
		e = w.newExtra(td, zi)
		z.SetExtra(e)
	}
	return &w.t.ZoneExtras[e]
}

func (w *worker) zoneText() {
	text := w.takeSingleRef()
	td, zi, ok := w.activeZone(failZoneText)
	if !ok {
		w.release(text)
		return
	}
	e := w.zoneExtra(td, zi)
	if e.Text == model.NoString {
		e.Text = text
		return
	}
	old := e.Text
	e.Text = w.storeRef(w.t.Strings[old] + "\n" + w.t.Strings[text])
	w.release(old)
	w.release(text)
}

func (w *worker) zoneName() {
	name := w.takeSingleRef()
	td, zi, ok := w.activeZone(failZoneName)
	if !ok {
		w.release(name)
		return
	}
	e := w.zoneExtra(td, zi)
	old := e.Name
	e.Name = name
	w.release(old)
}

func (w *worker) zoneColor(b, g, r uint8) {
	td, zi, ok := w.activeZone(failZoneColor)
	if !ok {
		return
	}
	w.zoneExtra(td, zi).Color = uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}

func (w *worker) zoneValue(v uint64) {
	td, zi, ok := w.activeZone(failZoneValue)
	if !ok {
		return
	}
	s := strconv.FormatUint(v, 10) + " [0x" + strconv.FormatUint(v, 16) + "]"
	e := w.zoneExtra(td, zi)
	if e.Text == model.NoString {
		e.Text = w.storeRef(s)
		return
	}
	old := e.Text
	e.Text = w.storeRef(w.t.Strings[old] + "\n" + s)
	w.release(old)
}
