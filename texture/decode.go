package texture

import (
	"encoding/binary"
	"fmt"
)

// DecodeDXT1 decodes the standard BC1 image src (w x h, w and h multiples of
// 4) into RGBA8 pixels written to dst, which must hold w*h*4 bytes; with
// flip set the rows are written bottom-up. Both BC1 modes are implemented:
// color0 > color1 gives four opaque colours, color0 <= color1 gives three
// colours plus transparent black, which Tracy's server-side RDO pass
// produces. Data straight from a Tracy client is in Tracy's index order and
// must go through FixOrder first.
//
// Interpolated colours use the exact integer (2a+b)/3 and (a+b)/2 of the
// 565 endpoints expanded to 8 bits by bit replication; hardware decoders may
// differ by one step, which does not matter for previews.
func DecodeDXT1(dst, src []byte, w, h int, flip bool) error {
	if err := checkDims(w, h); err != nil {
		return err
	}
	if len(src) != DXT1Size(w, h) {
		return fmt.Errorf("%w: DXT1 data has %d bytes, %dx%d needs %d", ErrSize, len(src), w, h, DXT1Size(w, h))
	}
	if len(dst) != w*h*4 {
		return fmt.Errorf("%w: RGBA buffer has %d bytes, %dx%d needs %d", ErrSize, len(dst), w, h, w*h*4)
	}
	stride := w * 4
	var pal [4]uint32
	o := 0
	for by := 0; by < h/4; by++ {
		for bx := 0; bx < w/4; bx++ {
			blk := binary.LittleEndian.Uint64(src[o : o+8])
			o += 8
			palette(&pal, uint16(blk), uint16(blk>>16))
			idx := uint32(blk >> 32)
			for y := 0; y < 4; y++ {
				row := 4*by + y
				if flip {
					row = h - 1 - row
				}
				p := dst[row*stride+bx*16 : row*stride+bx*16+16]
				binary.LittleEndian.PutUint32(p[0:], pal[idx&3])
				binary.LittleEndian.PutUint32(p[4:], pal[idx>>2&3])
				binary.LittleEndian.PutUint32(p[8:], pal[idx>>4&3])
				binary.LittleEndian.PutUint32(p[12:], pal[idx>>6&3])
				idx >>= 8
			}
		}
	}
	return nil
}

// palette fills pal with the four RGBA colours (little-endian R,G,B,A bytes)
// of a BC1 block with endpoints c0 and c1.
func palette(pal *[4]uint32, c0, c1 uint16) {
	r0, g0, b0 := expand565(c0)
	r1, g1, b1 := expand565(c1)
	pal[0] = rgba(r0, g0, b0, 255)
	pal[1] = rgba(r1, g1, b1, 255)
	if c0 > c1 {
		pal[2] = rgba((2*r0+r1)/3, (2*g0+g1)/3, (2*b0+b1)/3, 255)
		pal[3] = rgba((r0+2*r1)/3, (g0+2*g1)/3, (b0+2*b1)/3, 255)
	} else {
		pal[2] = rgba((r0+r1)/2, (g0+g1)/2, (b0+b1)/2, 255)
		pal[3] = 0
	}
}

func expand565(c uint16) (r, g, b uint32) {
	r = uint32(c>>11) & 31
	g = uint32(c>>5) & 63
	b = uint32(c) & 31
	return r<<3 | r>>2, g<<2 | g>>4, b<<3 | b>>2
}

func rgba(r, g, b, a uint32) uint32 { return r | g<<8 | b<<16 | a<<24 }
