package viewer

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gotracy/gotracy/viewer/lod"
)

// decodeBinary reads the binary timeline as a client written from
// docs/viewer-api.md would, so the tests check the wire format itself and
// not only lod's structs.
func decodeBinary(b []byte) (*lod.Timeline, [][]string, error) {
	r := &reader{b: b}
	if string(r.bytes(4)) != lod.BinaryMagic {
		return nil, nil, fmt.Errorf("no %s magic", lod.BinaryMagic)
	}
	tl := &lod.Timeline{T0: int64(r.u64()), T1: int64(r.u64()), Width: int(r.u32()), MinPx: math.Float64frombits(r.u64())}
	var names [][]string
	nl := r.uv()
	for range nl {
		var l lod.Lane
		kind := lod.LaneKind(r.byte())
		a, bb := int(r.uv()), int(r.uv())
		l.Kind = kind
		if kind == lod.LaneCPU {
			l.Thread = a
		} else {
			l.Context, l.Timeline = a, bb
		}
		l.Zones = r.uv()
		l.Depth = int(r.uv())
		n := r.uv()
		var ln []string
		prevEnd, prevDepth := tl.T0, -1
		for range n {
			var it lod.Item
			it.Depth = uint16(r.uv())
			if int(it.Depth) != prevDepth {
				prevEnd, prevDepth = tl.T0, int(it.Depth)
			}
			flags := r.byte()
			it.Start = prevEnd + r.sv()
			it.End = it.Start + int64(r.uv())
			it.Index = uint32(r.uv())
			it.Merged = flags&lod.FlagMerged != 0
			it.Unended = flags&lod.FlagUnended != 0
			name := ""
			if it.Merged {
				it.Count = uint32(r.uv())
			} else {
				it.Count = 1
				it.SrcLoc = int16(r.sv())
				r.uv() // colour
				if flags&lod.FlagName != 0 {
					name = string(r.bytes(int(r.uv())))
				}
			}
			ln = append(ln, name)
			prevEnd = it.End
			l.Items = append(l.Items, it)
		}
		names = append(names, ln)
		tl.Lanes = append(tl.Lanes, l)
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	if len(r.b) != 0 {
		return nil, nil, fmt.Errorf("%d bytes left after the last lane", len(r.b))
	}
	return tl, names, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("binary timeline cut short")
	}
	r.b = nil
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.b) || n < 0 {
		r.fail()
		return make([]byte, max(n, 0))
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte  { return r.bytes(1)[0] }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }

func (r *reader) uv() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) sv() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}
