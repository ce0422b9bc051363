package model

// Zone is a CPU zone in Tracy's 22-byte layout: a 48-bit start and end
// (nanoseconds, end -1 = never ended), the int16 source location, a 32-bit
// index into Trace.ZoneExtras (0 = none) and Next, the index (within the
// thread's ZoneList) just past this zone's subtree. Fields are uint16 words so
// the struct has 2-byte alignment and no padding: a []Zone costs 22 bytes
// per zone and holds no pointers.
type Zone struct {
	start  [3]uint16
	end    [3]uint16
	SrcLoc SrcLocID
	extra  [2]uint16
	next   [2]uint16
}

// MaxTime and MinTime bound the times a Zone can hold (signed 48 bits).
const (
	MaxTime = 1<<47 - 1
	MinTime = -(1 << 47)
)

func put48(d *[3]uint16, v int64) {
	d[0] = uint16(v)
	d[1] = uint16(v >> 16)
	d[2] = uint16(v >> 32)
}

func get48(d *[3]uint16) int64 {
	u := uint64(d[0]) | uint64(d[1])<<16 | uint64(d[2])<<32
	return int64(u<<16) >> 16
}

// Start returns the zone's start time in ns.
func (z *Zone) Start() int64 { return get48(&z.start) }

// End returns the zone's end time in ns, or -1 if it never ended.
func (z *Zone) End() int64 { return get48(&z.end) }

// Extra returns the zone's index into Trace.ZoneExtras (0 = none).
func (z *Zone) Extra() uint32 { return uint32(z.extra[0]) | uint32(z.extra[1])<<16 }

// Next returns the index just past this zone's subtree in its thread's
// Zones: the next sibling, or the parent's end. It is stored offset by
// the list's origin, which is zero unless the list dropped zones from its
// front (a flight recorder's window; see ZoneList.DropFront): code that
// may see such a list reads it through ZoneList.NextOf.
func (z *Zone) Next() uint32 { return uint32(z.next[0]) | uint32(z.next[1])<<16 }

// SetStart sets the start time (truncated to 48 bits).
func (z *Zone) SetStart(t int64) { put48(&z.start, t) }

// SetEnd sets the end time (truncated to 48 bits; -1 = never ended).
func (z *Zone) SetEnd(t int64) { put48(&z.end, t) }

// SetExtra sets the zone-extra index.
func (z *Zone) SetExtra(i uint32) { z.extra[0], z.extra[1] = uint16(i), uint16(i>>16) }

// SetNext sets the subtree-end index.
func (z *Zone) SetNext(i uint32) { z.next[0], z.next[1] = uint16(i), uint16(i>>16) }

// MakeZone returns a zone with the given fields.
func MakeZone(start, end int64, srcloc SrcLocID, extra, next uint32) Zone {
	var z Zone
	z.SetStart(start)
	z.SetEnd(end)
	z.SrcLoc = srcloc
	z.SetExtra(extra)
	z.SetNext(next)
	return z
}

// HasChildren reports whether zone i of zones has children.
func HasChildren(zones *ZoneList, i int) bool { return zones.NextOf(zones.At(i)) > i+1 }
