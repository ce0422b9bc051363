package texture

import "encoding/binary"

// Thresholds of Tracy's rate-distortion pass, indexed by the brightest
// channel of color0 (the eye forgives more error in bright blocks). tr1
// bounds the endpoint distance below which a block becomes one flat colour,
// tr2 the distance below which it keeps only two colours, tr3 the distance
// below which it is re-expressed in 3-colour mode.
var (
	rdoTr1 = [64]uint8{12, 12, 12, 12, 6, 6, 6, 6, 6, 6, 6, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	rdoTr2 = [16]uint8{12, 12, 6, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	rdoTr3 = [16]uint8{48, 48, 48, 32, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24}
)

// to3Colour maps one byte (four 2-bit standard 4-colour indices) to the
// 3-colour indices that give nearly the same colours once color0 and
// color1 are swapped: the endpoints exchange places (0<->1), the two thirds
// points both become the midpoint (2), which keeps index 3 (transparent)
// unused.
var to3Colour = func() (t [256]uint8) {
	m := [4]uint8{1, 0, 2, 2}
	for v := range t {
		t[v] = m[v&3] | m[v>>2&3]<<2 | m[v>>4&3]<<4 | m[v>>6&3]<<6
	}
	return t
}()

// RDO runs, in place, the rate-distortion pass Tracy's server applies to
// every frame image after FixOrder and before Zstd: blocks whose endpoints
// are close enough (thresholds depend on brightness) are simplified so that
// the following Zstd pass finds more repetition. It keeps every block valid
// BC1. The input must be standard BC1 (after FixOrder); a trailing partial
// block is left alone.
func RDO(data []byte) {
	for ; len(data) >= 8; data = data[8:] {
		blk := binary.LittleEndian.Uint64(data[:8])
		idx := uint32(blk >> 32)
		if idx == 0x55555555 { // a solid block from the encoder: all color1
			continue
		}
		c0, c1 := uint32(blk)&0xFFFF, uint32(blk>>16)&0xFFFF
		r0b, g0b, b0b := int(c0&0xF800), int(c0&0x07E0), int(c0&0x001F)
		r1b, g1b, b1b := int(c1&0xF800), int(c1&0x07E0), int(c1&0x001F)
		r0, g0, b0 := r0b>>8|r0b>>13, g0b>>3|g0b>>9, b0b<<3|b0b>>2
		r1, g1, b1 := r1b>>8|r1b>>13, g1b>>3|g1b>>9, b1b<<3|b1b>>2
		dr, dg, db := absInt(r0-r1), absInt(g0-g1), absInt(b0-b1)

		if max(dr-1, dg, db-2) <= int(rdoTr1[max(r0-1, g0, b0-2)/4]) {
			// Flat: the average endpoint as color0, color1 = 0, indices 0.
			avg := ((r0b+r1b)>>1)&0xF800 | ((g0b+g1b)>>1)&0x07E0 | (b0b+b1b)>>1
			binary.LittleEndian.PutUint64(data[:8], uint64(avg))
			continue
		}
		maxChan := max(r0-2, g0, b0-5) / 16
		maxDelta := max(dr-2, dg, db-5)
		switch {
		case maxDelta <= int(rdoTr2[maxChan]):
			// Two colours: drop the high bit of every index, leaving each
			// pixel at its nearer endpoint's side (0/1).
			binary.LittleEndian.PutUint32(data[4:8], idx&0x55555555)
		case maxDelta <= int(rdoTr3[maxChan]):
			// Three-colour mode: swap the endpoints (color0 <= color1
			// now selects it) and remap the indices.
			out := uint64(c1) | uint64(c0)<<16
			for k := 0; k < 4; k++ {
				out |= uint64(to3Colour[idx>>(8*k)&0xFF]) << (32 + 8*k)
			}
			binary.LittleEndian.PutUint64(data[:8], out)
		}
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
