package protocol

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Item is one queue item viewed in place: Raw holds the whole item, tag byte
// included. When it comes from an ItemDecoder, Raw aliases the decoder's
// frame and is only valid until that frame is replaced (for a FrameReader,
// until the next call to Next); copy what you keep.
//
// The accessors read fields at the offsets of the spec table; they do not
// check the item type, and Raw is guaranteed long enough only for items
// produced by the decoder.
type Item struct {
	Type QueueType
	Raw  []byte
}

// Len is the item's size on the wire.
func (it Item) Len() int { return len(it.Raw) }

// U8 reads a byte at off.
func (it Item) U8(off int) uint8 { return it.Raw[off] }

// U16 reads a little-endian u16 at off.
func (it Item) U16(off int) uint16 { return binary.LittleEndian.Uint16(it.Raw[off:]) }

// U32 reads a little-endian u32 at off.
func (it Item) U32(off int) uint32 { return binary.LittleEndian.Uint32(it.Raw[off:]) }

// U64 reads a little-endian u64 at off.
func (it Item) U64(off int) uint64 { return binary.LittleEndian.Uint64(it.Raw[off:]) }

// I64 reads a little-endian i64 at off.
func (it Item) I64(off int) int64 { return int64(binary.LittleEndian.Uint64(it.Raw[off:])) }

// U48 reads the 6-byte little-endian unsigned size of the MemAlloc family.
func (it Item) U48(off int) uint64 {
	b := it.Raw[off : off+6]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40
}

// Field reads field f as a signed or unsigned integer widened to 64 bits
// (floats as their IEEE bits; see Float).
func (it Item) Field(f Field) uint64 {
	o := int(f.Off)
	switch f.Kind {
	case KindU8:
		return uint64(it.Raw[o])
	case KindI8:
		return uint64(int64(int8(it.Raw[o])))
	case KindU16:
		return uint64(it.U16(o))
	case KindU32, KindF32:
		return uint64(it.U32(o))
	case KindI32:
		return uint64(int64(int32(it.U32(o))))
	case KindU64, KindI64, KindF64:
		return it.U64(o)
	case KindU48:
		return it.U48(o)
	}
	return 0
}

// Float reads a KindF32 or KindF64 field.
func (it Item) Float(f Field) float64 {
	if f.Kind == KindF32 {
		return float64(math.Float32frombits(it.U32(int(f.Off))))
	}
	return math.Float64frombits(it.U64(int(f.Off)))
}

// Ptr is the key of a keyed variable item (StringData ... FiberName).
func (it Item) Ptr() uint64 { return it.U64(1) }

// Payload is the data bytes of a variable item (strings, payloads, code),
// nil for fixed items.
func (it Item) Payload() []byte {
	if it.Type >= NumQueueTypes {
		return nil
	}
	switch Specs[it.Type].Len {
	case LenString8:
		return it.Raw[2:]
	case LenString16:
		return it.Raw[3:]
	case LenKey16:
		return it.Raw[11:]
	case LenKey32:
		return it.Raw[13:]
	}
	return nil
}

// Thread is the thread id of ThreadContext and the explicit thread field of
// other items (memory, locks, GPU zones, samples...); ok is false when the
// item has none. CpuTopology's "thread" is a logical CPU index, not a
// thread, and is not reported.
func (it Item) Thread() (thread uint32, ok bool) {
	if it.Type >= NumQueueTypes {
		return 0, false
	}
	off := threadOff[it.Type]
	if off == 0 {
		return 0, false
	}
	return it.U32(int(off)), true
}

var threadOff = func() (o [NumQueueTypes]uint8) {
	for i := range Specs {
		for _, f := range Specs[i].Fields {
			if f.Name == "thread" && f.Kind == KindU32 && QueueType(i) != CpuTopology {
				o[i] = f.Off
			}
		}
	}
	return
}()

// ItemSize returns the size of the item that starts at b[0]. It fails with
// ErrUnknownItem for tags that cannot appear on the wire and ErrTruncated
// when b is shorter than the item.
func ItemSize(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, ErrTruncated
	}
	t := b[0]
	n := int(fixedSize[t])
	if n == 0 {
		return 0, ErrUnknownItem
	}
	if len(b) < n {
		return 0, ErrTruncated
	}
	switch lenKind[t] {
	case LenString8:
		n += int(b[1])
	case LenString16:
		n += int(binary.LittleEndian.Uint16(b[1:])) + 256
	case LenKey16:
		n += int(binary.LittleEndian.Uint16(b[9:]))
	case LenKey32:
		l := binary.LittleEndian.Uint32(b[9:])
		if uint64(l) > uint64(len(b)) {
			return 0, ErrTruncated
		}
		n += int(l)
	}
	if len(b) < n {
		return 0, ErrTruncated
	}
	return n, nil
}

// fastSize[t] is the size of fixed items and 0 for variable or invalid
// tags: the decoder's one-lookup fast path.
var fastSize = func() (s [256]uint16) {
	for i := range Specs {
		if Specs[i].OnWire && Specs[i].Len == LenFixed {
			s[i] = uint16(Specs[i].Size)
		}
	}
	return
}()

var lenKind = func() (k [256]LenKind) {
	for i := range Specs {
		k[i] = Specs[i].Len
	}
	return
}()

// ItemDecoder splits a decompressed frame into items without copying or
// allocating. Usage:
//
//	d.Reset(frame, offset)
//	for it, ok := d.Next(); ok; it, ok = d.Next() { ... }
//	if err := d.Err(); err != nil { ... }
//
// Items never straddle frames (the server parses each frame on its own), so
// an item that runs past the end of the frame is ErrTruncated.
type ItemDecoder struct {
	buf  []byte
	pos  int
	base int64
	err  error
}

// Reset starts decoding frame; base is the offset of frame[0] in the
// decompressed stream, used in errors.
func (d *ItemDecoder) Reset(frame []byte, base int64) {
	d.buf, d.pos, d.base, d.err = frame, 0, base, nil
}

// Next returns the next item; ok is false at the end of the frame or on
// error (see Err). The fixed-size path is small enough to be inlined into
// the caller's loop.
func (d *ItemDecoder) Next() (it Item, ok bool) {
	if p := d.pos; p < len(d.buf) {
		t := d.buf[p]
		if end := p + int(fastSize[t]); end > p && end <= len(d.buf) {
			d.pos = end
			return Item{Type: QueueType(t), Raw: d.buf[p:end:end]}, true
		}
	}
	return d.slow()
}

// slow handles variable-length items, the end of the frame and errors.
func (d *ItemDecoder) slow() (Item, bool) {
	if d.err != nil || d.pos >= len(d.buf) {
		return Item{}, false
	}
	b := d.buf[d.pos:]
	n, err := ItemSize(b)
	if err != nil {
		if err == ErrUnknownItem {
			err = fmt.Errorf("%w (tag %d)", err, b[0])
		}
		d.err = &StreamError{Offset: d.base + int64(d.pos), Type: QueueType(b[0]), HasType: true, Err: err}
		d.pos = len(d.buf)
		return Item{}, false
	}
	d.pos += n
	return Item{Type: QueueType(b[0]), Raw: b[:n:n]}, true
}

// Err returns the error that stopped Next, nil at a clean end of frame.
func (d *ItemDecoder) Err() error { return d.err }

// Offset is the decompressed-stream offset of the next item.
func (d *ItemDecoder) Offset() int64 { return d.base + int64(d.pos) }

// Payload limits for the variable items.
const (
	// MaxStringLen is the longest string a 0.14.0 server accepts in a
	// string item (u16 length; longer SingleStrings overflow its arithmetic).
	MaxStringLen = 65535
	// MaxLongPayload is the longest FrameImageData/SymbolCode/SourceCode
	// payload: the whole item must fit one 256 KiB frame.
	MaxLongPayload = TargetFrameSize - 13
)
