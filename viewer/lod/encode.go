package lod

import (
	"encoding/binary"
	"math"

	"github.com/gotracy/gotracy/model"
)

// BinaryMagic starts every binary timeline answer; the digit is the
// format's version.
const BinaryMagic = "GTL1"

// Item flags in the binary encoding.
const (
	FlagMerged  = 1 << 0 // a merged run: a count follows instead of srcloc and colour
	FlagUnended = 1 << 1 // the zone never ended; its end is the trace's end
	FlagName    = 1 << 2 // the zone has its own name (ZoneName): length and UTF-8 bytes follow
)

// AppendBinary appends the compact encoding of tl to b (see
// docs/viewer-api.md, "Binary timeline"). Integers are little-endian;
// "uv" is an unsigned LEB128 varint, "sv" a zig-zag signed one:
//
//	"GTL1" t0:i64 t1:i64 width:u32 minpx:f64 lanes:uv
//	lane:  kind:u8 a:uv b:uv zones:uv depth:uv items:uv item...
//	       (CPU: a = thread index, b = 0; GPU: a = context, b = timeline)
//	item:  depth:uv flags:u8 start:sv dur:uv index:uv
//	       merged:     count:uv
//	       otherwise:  srcloc:sv color:uv [name: len:uv bytes]
//
// An item's start is relative to the end of the previous item of the same
// depth (to t0 for the first item of each depth), so most starts take one
// or two bytes. color is 0xRRGGBB, the zone's own colour (ZoneColor) or
// else its source location's; 0 means none, and the page picks one from
// the source location as Tracy does. Times fit a JavaScript number exactly
// (below 2^53 ns, 104 days).
func (tl *Timeline) AppendBinary(b []byte, t *model.Trace) []byte {
	b = append(b, BinaryMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(tl.T0))
	b = binary.LittleEndian.AppendUint64(b, uint64(tl.T1))
	b = binary.LittleEndian.AppendUint32(b, uint32(tl.Width))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(tl.MinPx))
	b = binary.AppendUvarint(b, uint64(len(tl.Lanes)))
	for li := range tl.Lanes {
		l := &tl.Lanes[li]
		b = append(b, byte(l.Kind))
		if l.Kind == LaneCPU {
			b = binary.AppendUvarint(b, uint64(l.Thread))
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(l.Context))
			b = binary.AppendUvarint(b, uint64(l.Timeline))
		}
		b = binary.AppendUvarint(b, l.Zones)
		b = binary.AppendUvarint(b, uint64(l.Depth))
		b = binary.AppendUvarint(b, uint64(len(l.Items)))
		prevEnd, prevDepth := tl.T0, -1
		for i := range l.Items {
			it := &l.Items[i]
			if int(it.Depth) != prevDepth {
				prevEnd, prevDepth = tl.T0, int(it.Depth)
			}
			var name string
			var color uint32
			flags := byte(0)
			if it.Merged {
				flags |= FlagMerged
			} else {
				name, color = zoneLook(t, tl.colors, l, it)
				if name != "" {
					flags |= FlagName
				}
			}
			if it.Unended {
				flags |= FlagUnended
			}
			b = binary.AppendUvarint(b, uint64(it.Depth))
			b = append(b, flags)
			b = binary.AppendVarint(b, it.Start-prevEnd)
			b = binary.AppendUvarint(b, uint64(it.End-it.Start))
			b = binary.AppendUvarint(b, uint64(it.Index))
			if it.Merged {
				b = binary.AppendUvarint(b, uint64(it.Count))
			} else {
				b = binary.AppendVarint(b, int64(it.SrcLoc))
				b = binary.AppendUvarint(b, uint64(color))
				if name != "" {
					b = binary.AppendUvarint(b, uint64(len(name)))
					b = append(b, name...)
				}
			}
			prevEnd = it.End
		}
	}
	return b
}

// zoneLook finds a drawn zone's own name (ZoneName; "" when it has none)
// and its colour as 0xRRGGBB (0 = none).
func zoneLook(t *model.Trace, colors []uint32, l *Lane, it *Item) (string, uint32) {
	var name string
	var color uint32
	if l.Kind == LaneCPU {
		z := t.Threads[l.Thread].Zones.At(int(it.Index))
		if e := z.Extra(); e != 0 && int(e) < len(t.ZoneExtras) {
			x := &t.ZoneExtras[e]
			name = t.Str(x.Name)
			color = x.Color
		}
	}
	if color == 0 {
		if colors != nil {
			color = colors[uint16(it.SrcLoc)]
		} else if sl, ok := t.SrcLoc(it.SrcLoc); ok {
			color = sl.Color
		}
	}
	return name, BGRToRGB(color)
}

// BGRToRGB turns a colour as Tracy stores it (0x00BBGGRR) into 0xRRGGBB.
func BGRToRGB(c uint32) uint32 {
	return (c&0xFF)<<16 | c&0xFF00 | (c>>16)&0xFF
}
