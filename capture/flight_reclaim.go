package capture

import (
	"slices"

	"github.com/gotracy/gotracy/model"
)

// With a flight recorder, what dropped zones and messages leave behind is
// reclaimed too: their zone extras (text, name, colour, value, call stack)
// and the strings only zone texts, zone names and messages used. Without
// it a client that puts a distinct text on every zone, or logs distinct
// messages, grows the capture for as long as it runs. See docs/DESIGN.md
// ("daemon, flight recorder, object storage") for why it is built this way.

// The states of a string in worker.strUse besides a count of references
// (0 or more) from zone extras and messages.
const (
	strPinned int32 = -1 // something that is never trimmed uses it
	strFreed  int32 = -2 // its slot waits for a new string
)

// extraRef records which zone an extra was made for: the zone's index in
// its thread's list plus the zones the list dropped from its front before
// (threadState.logBase), so that the number survives DropFront.
type extraRef struct {
	zone  int64
	extra uint32
}

// startReclaim turns the accounting on: every string already interned is
// pinned (nothing says what uses it).
func (w *worker) startReclaim() {
	w.strUse = make([]int32, len(w.t.Strings))
	for i := range w.strUse {
		w.strUse[i] = strPinned
	}
}

// storeArrived interns a SingleString or SecondString as it arrives. What
// it is for is known only when an event takes it, so a new string starts
// unpinned with no reference; the taker pins it or counts itself.
func (w *worker) storeArrived(b []byte, m *strMemo) model.StrID {
	added := w.strAdded
	id := w.storeStringMemo(b, m)
	if w.strUse != nil && w.strAdded != added {
		w.strUse[id] = 0
	}
	return id
}

// untaken frees a SingleString or SecondString that the next one replaced
// before any event took it, when nothing else holds it.
func (w *worker) untaken(id model.StrID) {
	if w.strUse != nil && int(id) < len(w.strUse) && w.strUse[id] == 0 && !w.pending(id) {
		w.freeString(id)
	}
}

// pending tells whether id waits to be taken as the SingleString or the
// SecondString.
func (w *worker) pending(id model.StrID) bool {
	return w.hasSingle && w.single == id || w.hasSecond && w.second == id
}

// pin marks a string as used by something never trimmed.
func (w *worker) pin(id model.StrID) {
	if w.strUse != nil && int(id) < len(w.strUse) && w.strUse[id] >= 0 {
		w.strUse[id] = strPinned
	}
}

// ref counts one more zone extra or message using the string.
func (w *worker) ref(id model.StrID) {
	if w.strUse != nil && id != model.NoString && int(id) < len(w.strUse) && w.strUse[id] >= 0 {
		w.strUse[id]++
	}
}

// release undoes a ref; the last one frees the string unless a SingleString
// or SecondString waiting to be taken is that string.
func (w *worker) release(id model.StrID) {
	if w.strUse == nil || id == model.NoString || int(id) >= len(w.strUse) || w.strUse[id] <= 0 {
		return
	}
	w.strUse[id]--
	if w.strUse[id] == 0 && !w.pending(id) {
		w.freeString(id)
	}
}

// storeRef interns s (a zone text the capture composes: a value, or texts
// joined) and counts one reference to it.
func (w *worker) storeRef(s string) model.StrID {
	added := w.strAdded
	id := w.storeStringS(s)
	if w.strUse != nil && w.strAdded != added {
		w.strUse[id] = 0
	}
	w.ref(id)
	return id
}

// freeString empties a string's slot for the next new string. Copies of
// the trace already published (snapshots, the live viewer's) hold their
// own string table, so they keep the text.
func (w *worker) freeString(id model.StrID) {
	s := w.t.Strings[id]
	if cur, ok := w.strIdx[s]; ok && cur == id {
		delete(w.strIdx, s)
	}
	w.t.Strings[id] = ""
	w.strUse[id] = strFreed
	w.strFree = append(w.strFree, id)
	// A memo compares contents: an empty slot would match "".
	for _, m := range []*strMemo{&w.singleMemo, &w.secondMemo} {
		if slices.Contains(m.id[:m.n], id) {
			m.n = 0
		}
	}
}

// newExtra returns the index of a blank zone extra for zone zi of td,
// reusing one a dropped zone left when there is one.
func (w *worker) newExtra(td *threadState, zi uint32) uint32 {
	var e uint32
	if n := len(w.extraFree); n > 0 {
		e = w.extraFree[n-1]
		w.extraFree = w.extraFree[:n-1]
	} else {
		e = uint32(len(w.t.ZoneExtras))
		w.t.ZoneExtras = append(w.t.ZoneExtras, model.ZoneExtra{})
	}
	if w.strUse != nil {
		td.extraLog = append(td.extraLog, extraRef{zone: int64(zi) + td.logBase, extra: e})
	}
	return e
}

// freeExtra lets go of a dropped zone's extra and the strings it used.
func (w *worker) freeExtra(e uint32) {
	x := &w.t.ZoneExtras[e]
	text, name := x.Text, x.Name
	*x = model.ZoneExtra{}
	w.release(text)
	w.release(name)
	w.extraFree = append(w.extraFree, e)
}

// droppedFront frees the extras of the first n zones of td, which
// DropFront just let go. The log holds each top-level subtree's extras
// before the next subtree's (an extra is made for an open zone, whose
// top-level ancestor is open too), and DropFront drops whole top-level
// subtrees, so the extras to free are a prefix of the log.
func (w *worker) droppedFront(td *threadState, n int) {
	if w.strUse == nil || n <= 0 {
		return
	}
	limit := td.logBase + int64(n)
	k := td.logHead
	for k < len(td.extraLog) && td.extraLog[k].zone < limit {
		w.freeExtra(td.extraLog[k].extra)
		k++
	}
	td.logHead = k
	td.logBase = limit
	if k > 1024 && 2*k > len(td.extraLog) {
		td.extraLog = td.extraLog[:copy(td.extraLog, td.extraLog[k:])]
		td.logHead = 0
	}
}

// keptRun is a run of a thread's zones that a compaction keeps: zones
// [from, to) of the old list, numbered removed lower in the new one.
type keptRun struct{ from, to, removed int }

// compacted renumbers td's extra log after compactZones copied the runs
// it keeps into a new list, and frees the extras of the zones it removed.
func (w *worker) compacted(td *threadState, runs []keptRun) {
	if w.strUse == nil {
		return
	}
	out := td.extraLog[:0]
	for _, r := range td.extraLog[td.logHead:] {
		rel := int(r.zone - td.logBase)
		k, _ := slices.BinarySearchFunc(runs, rel, func(kr keptRun, z int) int {
			if kr.to <= z {
				return -1
			}
			if kr.from > z {
				return 1
			}
			return 0
		})
		if k < len(runs) && runs[k].from <= rel && rel < runs[k].to {
			r.zone -= int64(runs[k].removed)
			out = append(out, r)
			continue
		}
		w.freeExtra(r.extra)
	}
	td.extraLog = out
	td.logHead = 0
}

// extrasRenumbered forgets the logs and the free slots once the final trim
// has copied the kept zones' extras into a new table.
func (w *worker) extrasRenumbered() {
	w.extraFree = nil
	for _, td := range w.threads {
		td.extraLog, td.logHead = nil, 0
	}
}

// releaseMessage lets go of a dropped message's text when the capture
// stored it (a pointer key's text belongs to the pointer, pinned).
func (w *worker) releaseMessage(m *model.Message) {
	if m.Text.Flags&model.RefIsIdx != 0 {
		w.release(model.StrID(m.Text.Str + 1))
	}
}
