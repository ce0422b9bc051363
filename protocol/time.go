package protocol

import "encoding/binary"

// Offsets of the compact time encodings (see TimeRefs).
const (
	// CompactOff16 is the first delta that needs the 32-bit variant.
	CompactOff16 = 65536
	// CompactOff32 is the first delta that needs the 64-bit variant; the
	// 64-bit field stores delta-CompactOff32 for such deltas.
	CompactOff32 = 65536 + 4294967296
)

// CompactWidth is the wire width of a compact time variant.
type CompactWidth uint8

const (
	Compact16 CompactWidth = 16
	Compact32 CompactWidth = 32
	Compact64 CompactWidth = 64
)

// EncodeCompact returns the variant forced by delta d and the field value to
// store. The variant is not a free choice: each range of d has exactly one.
func EncodeCompact(d int64) (CompactWidth, int64) {
	switch {
	case d < 0:
		return Compact64, d
	case d < CompactOff16:
		return Compact16, d
	case d < CompactOff32:
		return Compact32, d - CompactOff16
	default:
		return Compact64, d - CompactOff32
	}
}

// DecodeCompact turns a compact field of width w back into a delta.
func DecodeCompact(w CompactWidth, field int64) int64 {
	switch w {
	case Compact16:
		return field
	case Compact32:
		return field + CompactOff16
	}
	if field < 0 {
		return field
	}
	return field + CompactOff32
}

// timeInfo locates the time field of each type.
type timeInfo struct {
	off   uint8
	kind  TimeKind
	width CompactWidth // for compact kinds
}

var timeInfos = func() (ti [NumQueueTypes]timeInfo) {
	for i := range Specs {
		s := &Specs[i]
		k := s.TimeField()
		if k < 0 {
			continue
		}
		f := s.Fields[k]
		w := Compact64
		switch f.Kind {
		case KindU16:
			w = Compact16
		case KindU32:
			w = Compact32
		}
		ti[i] = timeInfo{off: f.Off, kind: s.Time, width: w}
	}
	return
}()

// TimeRefs holds the four time references of one connection:
// R_T (Thread, reset to 0 by every ThreadContext), R_S (Serial), R_C
// (Context) and R_G (GPU). Client and server must apply exactly the same
// sequence of items, so both sides use this one implementation: the decoder
// calls Time for every item in stream order; the encoder calls the Append*
// methods (or Delta) in emission order. The zero value is a fresh
// connection.
type TimeRefs struct {
	Thread, Serial, Context, GPU int64
}

// Reset starts a new connection.
func (r *TimeRefs) Reset() { *r = TimeRefs{} }

func (r *TimeRefs) ref(k TimeKind) *int64 {
	switch k {
	case TimeThread, TimeThreadCompact:
		return &r.Thread
	case TimeSerial:
		return &r.Serial
	case TimeContext, TimeContextCompact:
		return &r.Context
	case TimeGPU:
		return &r.GPU
	}
	return nil
}

// Time reconstructs the item's time and advances the references. For
// ThreadContext it resets R_T and reports no time. For TimeAbs items it
// returns the field. ok is false for items without a time field. The GPU
// time returned for GpuTime is in GPU ticks; all others are client ticks.
func (r *TimeRefs) Time(it Item) (t int64, ok bool) {
	typ := it.Type
	if typ >= NumQueueTypes {
		return 0, false
	}
	if typ == ThreadContext {
		r.Thread = 0
		return 0, false
	}
	ti := &timeInfos[typ]
	switch ti.kind {
	case TimeNone:
		return 0, false
	case TimeAbs:
		return it.I64(int(ti.off)), true
	case TimeThreadCompact, TimeContextCompact:
		var field int64
		switch ti.width {
		case Compact16:
			field = int64(binary.LittleEndian.Uint16(it.Raw[ti.off:]))
		case Compact32:
			field = int64(binary.LittleEndian.Uint32(it.Raw[ti.off:]))
		default:
			field = it.I64(int(ti.off))
		}
		p := r.ref(ti.kind)
		*p += DecodeCompact(ti.width, field)
		return *p, true
	}
	p := r.ref(ti.kind)
	*p += it.I64(int(ti.off))
	return *p, true
}

// Delta encodes time t for a plain time kind: it returns the field value to
// store (t itself for TimeAbs) and advances the reference.
func (r *TimeRefs) Delta(kind TimeKind, t int64) int64 {
	p := r.ref(kind)
	if p == nil {
		return t
	}
	d := t - *p
	*p = t
	return d
}

// AppendThreadContext appends ThreadContext(thread) and resets R_T, as every
// ThreadContext does on both sides.
func (r *TimeRefs) AppendThreadContext(dst []byte, thread uint32) []byte {
	r.Thread = 0
	return AppendThreadContext(dst, thread)
}

func (r *TimeRefs) compact(ref *int64, t int64) (CompactWidth, int64) {
	d := t - *ref
	*ref = t
	return EncodeCompact(d)
}

// AppendZoneBegin appends ZoneBegin, ZoneBegin32 or ZoneBegin16, whichever
// the delta of t against R_T requires.
func (r *TimeRefs) AppendZoneBegin(dst []byte, t int64, srcloc uint64) []byte {
	switch w, f := r.compact(&r.Thread, t); w {
	case Compact16:
		return AppendZoneBegin16(dst, uint16(f), srcloc)
	case Compact32:
		return AppendZoneBegin32(dst, uint32(f), srcloc)
	default:
		return AppendZoneBegin(dst, f, srcloc)
	}
}

// AppendZoneBeginCallstack is AppendZoneBegin for the callstack variants.
func (r *TimeRefs) AppendZoneBeginCallstack(dst []byte, t int64, srcloc uint64) []byte {
	switch w, f := r.compact(&r.Thread, t); w {
	case Compact16:
		return AppendZoneBeginCallstack16(dst, uint16(f), srcloc)
	case Compact32:
		return AppendZoneBeginCallstack32(dst, uint32(f), srcloc)
	default:
		return AppendZoneBeginCallstack(dst, f, srcloc)
	}
}

// AppendZoneEnd appends ZoneEnd, ZoneEnd32 or ZoneEnd16.
func (r *TimeRefs) AppendZoneEnd(dst []byte, t int64) []byte {
	switch w, f := r.compact(&r.Thread, t); w {
	case Compact16:
		return AppendZoneEnd16(dst, uint16(f))
	case Compact32:
		return AppendZoneEnd32(dst, uint32(f))
	default:
		return AppendZoneEnd(dst, f)
	}
}

// AppendCallstackSample appends CallstackSample{,32,16} on R_C.
func (r *TimeRefs) AppendCallstackSample(dst []byte, thread uint32, t int64) []byte {
	switch w, f := r.compact(&r.Context, t); w {
	case Compact16:
		return AppendCallstackSample16(dst, thread, uint16(f))
	case Compact32:
		return AppendCallstackSample32(dst, thread, uint32(f))
	default:
		return AppendCallstackSample(dst, thread, f)
	}
}

// AppendCallstackSampleContextSwitch appends
// CallstackSampleContextSwitch{,32,16} on R_C.
func (r *TimeRefs) AppendCallstackSampleContextSwitch(dst []byte, thread uint32, t int64) []byte {
	switch w, f := r.compact(&r.Context, t); w {
	case Compact16:
		return AppendCallstackSampleContextSwitch16(dst, thread, uint16(f))
	case Compact32:
		return AppendCallstackSampleContextSwitch32(dst, thread, uint32(f))
	default:
		return AppendCallstackSampleContextSwitch(dst, thread, f)
	}
}
