package texture

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinel errors. Callers branch on them with errors.Is; the returned errors
// wrap them with the offending sizes.
var (
	// ErrDimensions reports a width or height that is not a positive
	// multiple of 4, or an image too large for a Tracy frame image.
	ErrDimensions = errors.New("texture: width and height must be positive multiples of 4")
	// ErrSize reports a buffer whose length does not match the dimensions.
	ErrSize = errors.New("texture: buffer length does not match image dimensions")
	// ErrCorrupt reports packed image data that does not decompress to a
	// DXT1 image of the expected size.
	ErrCorrupt = errors.New("texture: corrupt packed image")
)

// MaxDim is the largest width or height a frame image can have: the wire
// and file formats store both as u16.
const MaxDim = 65535 &^ 3

// DXT1Size returns the number of bytes of a w x h DXT1 image: one 8-byte
// block per 4x4 pixels.
func DXT1Size(w, h int) int { return w * h / 2 }

func checkDims(w, h int) error {
	if w <= 0 || h <= 0 || w%4 != 0 || h%4 != 0 || w > MaxDim || h > MaxDim {
		return fmt.Errorf("%w (got %dx%d)", ErrDimensions, w, h)
	}
	return nil
}

// divTable[s] is the fixed-point reciprocal Tracy's encoder multiplies a
// pixel's channel-sum distance from the block minimum by, so that
// (d*divTable[s])>>16 maps d in [0, s] onto the indices 0..3 without a
// division. s is the sum of the three channel ranges (0..765). Values for
// s < 4 saturate at 0xffff; the resulting index then never exceeds 2, exactly
// as in the reference tables. Entries past 765 are padding that lets the
// encoder index with &1023 instead of a bounds check.
var divTable = func() (t [1024]uint16) {
	for s := range 256*3 + 1 {
		v := (4 << 16) / (s + 1)
		if v > 0xffff {
			v = 0xffff
		}
		t[s] = uint16(v)
	}
	return t
}()

// to565 packs 8-bit channels into RGB565 by truncation, as Tracy does (no
// rounding), so endpoints match the reference bit for bit.
func to565(r, g, b uint32) uint32 {
	return (r&0xF8)<<8 | (g&0xFC)<<3 | b>>3
}

// AppendDXT1 appends the DXT1 encoding of the w x h RGBA8 image rgba to dst
// and returns the extended slice. It produces exactly the bytes Tracy 0.14's
// client encoder (CompressImageDxt1) produces, including Tracy's private
// index order (index 0 = color1 = block minimum ... 3 = color0 = block
// maximum), because that is what the Tracy server expects on the wire: it
// runs FixOrder on arrival. Use FixOrder to obtain standard BC1.
//
// With flip set the source rows are read bottom-up, so a bottom-up (OpenGL
// style) framebuffer comes out top-down; the wire flag should then be 0.
//
// It allocates nothing when dst has room for DXT1Size(w, h) more bytes. It
// is safe to call from several goroutines on distinct buffers.
func AppendDXT1(dst, rgba []byte, w, h int, flip bool) ([]byte, error) {
	if err := checkDims(w, h); err != nil {
		return dst, err
	}
	if len(rgba) != w*h*4 {
		return dst, fmt.Errorf("%w: rgba has %d bytes, %dx%d needs %d", ErrSize, len(rgba), w, h, w*h*4)
	}
	n := DXT1Size(w, h)
	dst = grow(dst, n)
	out := dst[len(dst)-n:]
	encode(out, rgba, w, h, flip)
	return dst, nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, 2*cap(b)+n)
	copy(nb, b)
	return nb
}

// encodeGeneric is the portable encoder; the assembly paths must produce the
// same bytes (see the differential fuzz test).
func encodeGeneric(out, rgba []byte, w, h int, flip bool) {
	stride := w * 4
	o := 0
	for by := 0; by < h/4; by++ {
		var r0, r1, r2, r3 int
		if flip {
			r0 = (h - 1 - 4*by) * stride
			r1, r2, r3 = r0-stride, r0-2*stride, r0-3*stride
		} else {
			r0 = 4 * by * stride
			r1, r2, r3 = r0+stride, r0+2*stride, r0+3*stride
		}
		for x := 0; x < stride; x += 16 {
			blk := encodeBlock(rgba[r0+x:r0+x+16], rgba[r1+x:r1+x+16], rgba[r2+x:r2+x+16], rgba[r3+x:r3+x+16])
			binary.LittleEndian.PutUint64(out[o:o+8], blk)
			o += 8
		}
	}
}

// encodeBlock encodes one 4x4 block given its four 16-byte pixel rows.
//
// Tracy's algorithm: a block whose pixels all agree after truncation to 565
// is stored as that colour with all-zero indices. Otherwise the per-channel
// bounding box is inset by 1/16 of its extent on each side to give the two
// endpoints, and each pixel's index is its channel-sum distance from the
// box minimum scaled to 0..3 — a projection on the box's grey diagonal, not
// a least-squares fit, which is what makes it fast.
func encodeBlock(p0, p1, p2, p3 []byte) uint64 {
	_ = p0[15]
	_ = p1[15]
	_ = p2[15]
	_ = p3[15]
	const m64 = 0x00F8FCF8_00F8FCF8
	a0 := binary.LittleEndian.Uint64(p0[0:])
	a1 := binary.LittleEndian.Uint64(p0[8:])
	a2 := binary.LittleEndian.Uint64(p1[0:])
	a3 := binary.LittleEndian.Uint64(p1[8:])
	a4 := binary.LittleEndian.Uint64(p2[0:])
	a5 := binary.LittleEndian.Uint64(p2[8:])
	a6 := binary.LittleEndian.Uint64(p3[0:])
	a7 := binary.LittleEndian.Uint64(p3[8:])
	ref := a0 & 0x00F8FCF8
	ref |= ref << 32
	diff := (a0 ^ ref) | (a1 ^ ref) | (a2 ^ ref) | (a3 ^ ref) | (a4 ^ ref) | (a5 ^ ref) | (a6 ^ ref) | (a7 ^ ref)
	if diff&m64 == 0 {
		return uint64(to565(uint32(a0)&0xFF, uint32(a0>>8)&0xFF, uint32(a0>>16)&0xFF)) << 16
	}

	// Split each pair of pixels into 16-bit lanes: rb = (r, b, r', b'),
	// g = (g, 0, g', 0). Lanes hold values < 256, so lane-wise min/max and
	// sums need no carries between lanes.
	const lo = 0x00FF00FF_00FF00FF
	rb0, g0 := a0&lo, (a0>>8)&0x000000FF_000000FF
	rb1, g1 := a1&lo, (a1>>8)&0x000000FF_000000FF
	rb2, g2 := a2&lo, (a2>>8)&0x000000FF_000000FF
	rb3, g3 := a3&lo, (a3>>8)&0x000000FF_000000FF
	rb4, g4 := a4&lo, (a4>>8)&0x000000FF_000000FF
	rb5, g5 := a5&lo, (a5>>8)&0x000000FF_000000FF
	rb6, g6 := a6&lo, (a6>>8)&0x000000FF_000000FF
	rb7, g7 := a7&lo, (a7>>8)&0x000000FF_000000FF

	mnRB, mxRB := minmax16(rb0, rb1)
	t0, t1 := minmax16(rb2, rb3)
	mnRB, mxRB = min16(mnRB, t0), max16(mxRB, t1)
	t0, t1 = minmax16(rb4, rb5)
	mnRB, mxRB = min16(mnRB, t0), max16(mxRB, t1)
	t0, t1 = minmax16(rb6, rb7)
	mnRB, mxRB = min16(mnRB, t0), max16(mxRB, t1)
	// Green fills only two lanes per word; pair words up first so the
	// reduction runs on full words.
	mnG, mxG := minmax16(g0|g1<<16, g2|g3<<16)
	t0, t1 = minmax16(g4|g5<<16, g6|g7<<16)
	mnG, mxG = min16(mnG, t0), max16(mxG, t1)
	// Fold the lanes that belong to different pixels.
	mnRB = min16(mnRB, mnRB>>32)
	mxRB = max16(mxRB, mxRB>>32)
	mnG = min16(mnG, mnG>>32)
	mxG = max16(mxG, mxG>>32)
	mnG = min16(mnG, mnG>>16)
	mxG = max16(mxG, mxG>>16)

	minR, minB, minG := uint32(mnRB)&0xFF, uint32(mnRB>>16)&0xFF, uint32(mnG)&0xFF
	maxR, maxB, maxG := uint32(mxRB)&0xFF, uint32(mxRB>>16)&0xFF, uint32(mxG)&0xFF
	rr, rg, rbb := maxR-minR, maxG-minG, maxB-minB
	rng := uint64(divTable[(rr+rg+rbb)&1023])
	lowR, lowG, lowB := minR+rr>>4, minG+rg>>4, minB+rbb>>4
	highR, highG, highB := maxR-rr>>4, maxG-rg>>4, maxB-rbb>>4

	// Per-pixel distance d = (r+g+b) - (minR+minG+minB), two pixels per
	// 64-bit word in 32-bit lanes; d*rng < 2^18, so lanes never overflow.
	base := uint64(minR+minG+minB) * 0x00000001_00000001
	sum := func(rb, g uint64) uint64 {
		s := rb + g                                             // (r+g, b, r'+g', b')
		s = (s + s>>16) & 0x0000FFFF_0000FFFF                   // (r+g+b, r'+g'+b')
		return (((s - base) * rng) >> 16) & 0x00000003_00000003 // indices
	}
	idx := sum(rb0, g0) | sum(rb1, g1)<<4 | sum(rb2, g2)<<8 | sum(rb3, g3)<<12 |
		sum(rb4, g4)<<16 | sum(rb5, g5)<<20 | sum(rb6, g6)<<24 | sum(rb7, g7)<<28
	// Pixel 2k sits at bit 4k and pixel 2k+1 at bit 32+4k; interleave.
	data := uint32(idx) | uint32(idx>>32)<<2

	return uint64(to565(highR, highG, highB)) | uint64(to565(lowR, lowG, lowB))<<16 | uint64(data)<<32
}

// minmax16 returns lane-wise min and max of four 16-bit lanes holding values
// below 256. (a|0x100)-b sets bit 8 of a lane exactly when a >= b and cannot
// borrow from the next lane.
func minmax16(a, b uint64) (mn, mx uint64) {
	ge := (((a | 0x0100_0100_0100_0100) - b) >> 8) & 0x0001_0001_0001_0001
	m := ge * 0xFF
	x := (a ^ b) & m
	return a ^ x, b ^ x
}

func min16(a, b uint64) uint64 {
	ge := (((a | 0x0100_0100_0100_0100) - b) >> 8) & 0x0001_0001_0001_0001
	return a ^ ((a ^ b) & (ge * 0xFF))
}

func max16(a, b uint64) uint64 {
	ge := (((a | 0x0100_0100_0100_0100) - b) >> 8) & 0x0001_0001_0001_0001
	return b ^ ((a ^ b) & (ge * 0xFF))
}
