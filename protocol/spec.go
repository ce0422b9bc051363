package protocol

import "strconv"

// FieldKind is the wire encoding of one fixed field of an item.
type FieldKind uint8

// Field kinds. All are little-endian; KindU48 is the 6-byte unsigned size of
// the MemAlloc family.
const (
	KindU8 FieldKind = iota
	KindU16
	KindU32
	KindU64
	KindI8
	KindI32
	KindI64
	KindF32
	KindF64
	KindU48
)

var kindSizes = [...]uint8{KindU8: 1, KindU16: 2, KindU32: 4, KindU64: 8, KindI8: 1, KindI32: 4, KindI64: 8, KindF32: 4, KindF64: 8, KindU48: 6}
var kindNames = [...]string{"u8", "u16", "u32", "u64", "i8", "i32", "i64", "f32", "f64", "u48"}

// Size is the number of bytes the kind occupies on the wire.
func (k FieldKind) Size() int {
	if int(k) < len(kindSizes) {
		return int(kindSizes[k])
	}
	return 0
}

func (k FieldKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "FieldKind(" + strconv.Itoa(int(k)) + ")"
}

// Field is one fixed field of an item: its byte offset counted from the tag
// byte (offset 0), its kind and its name as in Tracy's structs.
type Field struct {
	Off  uint8
	Kind FieldKind
	Name string
}

// LenKind says how an item's total length is found.
type LenKind uint8

const (
	// LenFixed items are exactly Spec.Size bytes.
	LenFixed LenKind = iota
	// LenString8 items (SingleStringData8, SecondStringData8) carry
	// @1 u8 len, then len bytes.
	LenString8
	// LenString16 items (SingleStringData, SecondStringData) carry
	// @1 u16 len-256, then len bytes.
	LenString16
	// LenKey16 items (StringData ... FiberName, except the three below)
	// carry @1 u64 ptr, @9 u16 len, then len bytes.
	LenKey16
	// LenKey32 items (FrameImageData, SymbolCode, SourceCode) carry
	// @1 u64 ptr, @9 u32 len, then len bytes.
	LenKey32
)

// TimeKind says which time reference, if any, an item's time field uses.
type TimeKind uint8

const (
	TimeNone           TimeKind = iota // no time field
	TimeAbs                            // absolute client tick
	TimeThread                         // plain i64 delta on R_T (reset by ThreadContext)
	TimeSerial                         // plain i64 delta on R_S
	TimeContext                        // plain i64 delta on R_C
	TimeGPU                            // plain i64 delta on R_G
	TimeThreadCompact                  // compact 16/32/64 delta on R_T
	TimeContextCompact                 // compact 16/32/64 delta on R_C
)

var timeKindNames = [...]string{"—", "ABS", "T±", "S±", "C±", "G±", "T*", "C*"}

// String gives the notation of the Specs table (ABS, T+, S*, ...).
func (k TimeKind) String() string {
	if int(k) < len(timeKindNames) {
		return timeKindNames[k]
	}
	return "TimeKind(" + strconv.Itoa(int(k)) + ")"
}

// Ctx says whether an item needs the current ThreadContext.
type Ctx uint8

const (
	// CtxNone items are context-free: they carry their thread, or none.
	CtxNone Ctx = iota
	// CtxThread items belong to the current thread (zone stacks, messages,
	// callstack attachment).
	CtxThread
	// CtxThreadRef items only use R_T, but a client must still emit them
	// under the producing thread's ThreadContext.
	CtxThreadRef
)

// Spec describes one queue type.
type Spec struct {
	Type QueueType
	Name string // Tracy's enum name
	// Size is the fixed size including the tag byte; for variable items it
	// is the header before the data bytes (tag, key and length field).
	Size   int
	Len    LenKind
	Time   TimeKind
	Ctx    Ctx
	OnWire bool // false for the three client-internal types 65-67
	// Fields are the fixed fields in offset order. For variable items they
	// include the key and the length field.
	Fields []Field
}

// Variable reports whether the item carries a length-prefixed payload.
func (s *Spec) Variable() bool { return s.Len != LenFixed }

// TimeField returns the index in Fields of the field the Time kind applies
// to (the client-tick time; for GpuTime the GPU tick), or -1.
func (s *Spec) TimeField() int {
	if s.Time == TimeNone {
		return -1
	}
	// GPU calibration and sync items carry a raw GPU tick first; their
	// client-tick time is cpuTime. Only GpuTime's time is the GPU tick.
	for _, name := range [...]string{"time", "cpuTime", "gpuTime"} {
		for i, f := range s.Fields {
			if f.Name == name {
				return i
			}
		}
	}
	return -1
}

// String returns Tracy's enum name, or QueueType(N) for an unknown tag.
func (t QueueType) String() string {
	if t < NumQueueTypes {
		return Specs[t].Name
	}
	return "QueueType(" + strconv.Itoa(int(t)) + ")"
}

// Valid reports whether t may appear on the wire.
func (t QueueType) Valid() bool { return t < NumQueueTypes && Specs[t].OnWire }

// Spec returns the table entry of t; nil when t is out of range.
func (t QueueType) Spec() *Spec {
	if t < NumQueueTypes {
		return &Specs[t]
	}
	return nil
}

// queueTypeByName maps Tracy's enum names to types (for text forms).
var queueTypeByName = func() map[string]QueueType {
	m := make(map[string]QueueType, NumQueueTypes)
	for i := range Specs {
		m[Specs[i].Name] = QueueType(i)
	}
	return m
}()

// ParseQueueType returns the type with Tracy's enum name.
func ParseQueueType(name string) (QueueType, bool) {
	t, ok := queueTypeByName[name]
	return t, ok
}

// fixedSize[t] is the full size of a fixed item, the header size of a
// variable item, and 0 for tags that may not appear on the wire. It is the
// hot path of the decoder, derived from Specs once.
var fixedSize = func() (s [256]uint16) {
	for i := range Specs {
		if Specs[i].OnWire {
			s[i] = uint16(Specs[i].Size)
		}
	}
	return
}()
