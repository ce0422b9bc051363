package texture

import "encoding/binary"

// FixOrder converts DXT1 blocks in place from the index order Tracy's client
// encoder emits (0 = color1 ... 3 = color0, so that the index grows with
// brightness) into standard BC1 order (0 = color0, 1 = color1, 2 = 2/3 c0 +
// 1/3 c1, 3 = 1/3 c0 + 2/3 c1). The Tracy server does this on arrival, so
// everything it stores or writes to a .tracy file is standard BC1. A
// trailing partial block is left alone.
//
// Per 2-bit index (h, l) the standard index is (h^l, ^h).
func FixOrder(data []byte) {
	for len(data) >= 8 {
		t := ^binary.LittleEndian.Uint32(data[4:8])
		t0 := t & 0x55555555
		t1 := t & 0xAAAAAAAA
		binary.LittleEndian.PutUint32(data[4:8], (t0<<1|t1>>1)^t1)
		data = data[8:]
	}
}

// UnfixOrder is the inverse of FixOrder: it turns standard BC1 blocks back
// into Tracy's client index order, so that data read from a file can be
// replayed to a Tracy server as if a client had sent it.
//
// Per 2-bit standard index (h, l) the Tracy index is (^l, h^^l).
func UnfixOrder(data []byte) {
	for len(data) >= 8 {
		y := binary.LittleEndian.Uint32(data[4:8])
		u0 := ^y & 0x55555555
		x := u0<<1 | ((y&0xAAAAAAAA)>>1 ^ u0)
		binary.LittleEndian.PutUint32(data[4:8], x)
		data = data[8:]
	}
}
