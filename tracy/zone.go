//go:build !notracy

package tracy

import (
	"encoding/binary"
	"runtime"
)

// Zone is an open zone, returned by the Begin functions and closed by End.
// It carries the goroutine's queue, so End, Text, Value, Color and Name find
// it without looking the goroutine up again. A Zone must be ended on the
// goroutine that began it (as in Tracy, where zones belong to a thread); the
// zero Zone (returned while nothing is recorded) ignores every method.
type Zone struct {
	s  *gstate
	ep uint32
}

// Begin opens a zone at a static location:
//
//	var loc = tracy.NewLoc("update")
//	func update() {
//		defer tracy.Begin(loc).End()
//	}
//
// It costs two counter reads and a few stores, and never allocates.
func Begin(loc *Loc) Zone {
	ep := rec.Load()
	if ep == 0 {
		return Zone{}
	}
	return begin(ep, loc)
}

// begin writes the zone-begin record: one call here, the goroutine id read
// and the first table probe of curState inline, then one assembly call that
// writes the record, reads the counter and publishes. Record kinds 2 and 4 are written
// by the assembly (see zoneKindsFixed).
func begin(ep uint32, loc *Loc) Zone {
	if loc == nil {
		loc = overflowLoc
	}
	if loc.unsited.Load() {
		siteLoc(loc)
	}
	// curState's first probe, inline: one call fewer on every Begin.
	var s *gstate
	if goidOff != 0 {
		id := loadGoid(goidOff)
		t := gtab.Load()
		if sl := &t.slots[ghash(id)&t.mask]; sl.key.Load() == id {
			s = sl.val.Load()
		}
	}
	if s == nil {
		s = curState()
	}
	if s.ep != ep {
		s.markEpoch(ep)
	}
	c, w := s.cur, s.w
	if w+17 > len(c.buf) {
		s.grow(17)
		c, w = s.cur, 0
	}
	b := c.buf[w : w+17 : w+17]
	s.w = w + 17
	if fastStamp {
		stampBegin(&b[0], loc.key, &c.pub, uint64(w+17))
	} else {
		b[0] = rZoneBegin
		binary.LittleEndian.PutUint64(b[9:], loc.key)
		binary.LittleEndian.PutUint64(b[1:], uint64(now()))
		publish(&c.pub, uint64(w+17))
	}
	return Zone{s: s, ep: ep}
}

// zoneKindsFixed fails to compile if the record kinds the assembly writes
// change.
var _ = [1]struct{}{}[(rZoneBegin-2)|(rZoneEnd-4)]

// BeginCallstack is Begin with the call stack of the caller, depth frames
// deep (at most 62), which the viewer shows and resolves through the
// client's symbol answers.
func BeginCallstack(loc *Loc, depth int) Zone {
	ep := rec.Load()
	if ep == 0 {
		return Zone{}
	}
	if loc == nil {
		loc = overflowLoc
	}
	if loc.unsited.Load() {
		siteLoc(loc)
	}
	var buf [maxStack]uintptr
	pcs := callers(1, depth, &buf)
	s := state(ep)
	n := 17 + 2 + 8*len(pcs)
	b := s.reserve(n)
	w := s.w
	b[w] = rZoneBeginCS
	binary.LittleEndian.PutUint64(b[w+9:], loc.key)
	putPCs(b[w+17:], pcs)
	binary.LittleEndian.PutUint64(b[w+1:], uint64(now()))
	s.commit(n)
	return Zone{s: s, ep: ep}
}

// BeginHere opens a zone whose location is the caller's own call site
// (function, file, line), interned once per call site by program counter.
// It is convenient where declaring a Loc is not, at the price of a
// runtime.Callers call (about 100 ns) per zone.
func BeginHere() Zone {
	ep := rec.Load()
	if ep == 0 {
		return Zone{}
	}
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	return begin(ep, locForPC(pc[0]))
}

// BeginNamed opens a zone with a name chosen at run time (a script
// function, a request route). Each distinct name gets its own location
// once, at the first call site that uses it, so a capture of hours neither
// grows client memory nor exhausts Tracy's 32767 locations: after 8192
// distinct names further names share one location and travel with each
// zone instead.
func BeginNamed(name string) Zone {
	ep := rec.Load()
	if ep == 0 {
		return Zone{}
	}
	loc, overflow := locForName(name, 1)
	z := begin(ep, loc)
	if overflow {
		z.s.writeText(rZoneName, name)
	}
	return z
}

// End closes the zone.
func (z Zone) End() {
	if z.s != nil {
		z.end() // small enough to inline: a disabled End costs no call
	}
}

func (z Zone) end() {
	if rec.Load() != z.ep {
		return
	}
	s := z.s
	c, w := s.cur, s.w
	if w+9 > len(c.buf) {
		s.grow(9)
		c, w = s.cur, 0
	}
	b := c.buf[w : w+9 : w+9]
	s.w = w + 9
	if prefetchW {
		stampEndPF(&b[0], &c.pub, uint64(w+9))
		return
	}
	if fastStamp {
		stampEnd(&b[0], &c.pub, uint64(w+9))
		return
	}
	b[0] = rZoneEnd
	binary.LittleEndian.PutUint64(b[1:], uint64(now()))
	publish(&c.pub, uint64(w+9))
}

// Active reports whether the zone is being recorded.
func (z Zone) Active() bool { return z.s != nil && rec.Load() == z.ep }

// Text appends text to the zone's text (Tracy joins several with newlines).
func (z Zone) Text(text string) {
	if z.Active() {
		z.s.writeText(rZoneText, text)
	}
}

// Name replaces the zone's displayed name for this zone only.
func (z Zone) Name(name string) {
	if z.Active() {
		z.s.writeText(rZoneName, name)
	}
}

// Color sets the zone's colour, 0xRRGGBB.
func (z Zone) Color(rgb uint32) {
	if !z.Active() {
		return
	}
	s := z.s
	b := s.reserve(5)
	w := s.w
	b[w] = rZoneColor
	binary.LittleEndian.PutUint32(b[w+1:], rgb&0xFFFFFF)
	s.commit(5)
}

// Value attaches a number to the zone (shown appended to its text).
func (z Zone) Value(v uint64) {
	if !z.Active() {
		return
	}
	s := z.s
	b := s.reserve(9)
	w := s.w
	b[w] = rZoneValue
	binary.LittleEndian.PutUint64(b[w+1:], v)
	s.commit(9)
}

// SetThreadName names the running goroutine in the viewer. Goroutines are
// otherwise shown as "goroutine N" ("main" for the main goroutine).
func SetThreadName(name string) {
	id := goid()
	p := &name
	threadNames.Store(id, p)
	if t := gtab.Load(); t != nil {
		if s := t.find(id); s != nil {
			s.name.Store(p)
		}
	}
}
