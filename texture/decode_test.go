package texture

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// block builds one BC1 block from its endpoints and 16 indices (pixel 0
// first, row-major).
func block(c0, c1 uint16, idx [16]uint8) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint16(b[0:], c0)
	binary.LittleEndian.PutUint16(b[2:], c1)
	var bits uint32
	for i, v := range idx {
		bits |= uint32(v&3) << (2 * i)
	}
	binary.LittleEndian.PutUint32(b[4:], bits)
	return b[:]
}

type px [4]byte

// TestDecodeGolden checks known blocks against colours worked out by hand
// from the BC1 definition: 565 endpoints expanded by bit replication,
// thirds and halves truncated.
func TestDecodeGolden(t *testing.T) {
	ramp := [16]uint8{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}
	red, blue := uint16(0xF800), uint16(0x001F)
	cases := []struct {
		name string
		blk  []byte
		want [4]px // colours of indices 0..3 (pixels 0..3 of each row)
	}{
		{"4-colour red>blue", block(red, blue, ramp),
			[4]px{{255, 0, 0, 255}, {0, 0, 255, 255}, {170, 0, 85, 255}, {85, 0, 170, 255}}},
		{"3-colour blue<red", block(blue, red, ramp),
			[4]px{{0, 0, 255, 255}, {255, 0, 0, 255}, {127, 0, 127, 255}, {0, 0, 0, 0}}},
		{"equal endpoints are 3-colour", block(0xFFFF, 0xFFFF, ramp),
			[4]px{{255, 255, 255, 255}, {255, 255, 255, 255}, {255, 255, 255, 255}, {0, 0, 0, 0}}},
		{"green and bit replication", block(0x0FE1, 0x0041, ramp), // 565 (1,63,1) and (0,2,1)
			[4]px{{8, 255, 8, 255}, {0, 8, 8, 255}, {5, 172, 8, 255}, {2, 90, 8, 255}}},
	}
	for _, c := range cases {
		got := make([]byte, 4*4*4)
		if err := DecodeDXT1(got, c.blk, 4, 4, false); err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				var g px
				copy(g[:], got[(y*4+x)*4:])
				if g != c.want[x] {
					t.Errorf("%s: pixel (%d,%d) = %v, want %v", c.name, x, y, g, c.want[x])
				}
			}
		}
	}
}

func TestDecodeLayoutAndFlip(t *testing.T) {
	// 8x4 image: left block solid red (index 0), right block solid blue.
	var zero [16]uint8
	src := append(block(0xF800, 0, zero), block(0x001F, 0, zero)...)
	got := make([]byte, 8*4*4)
	if err := DecodeDXT1(got, src, 8, 4, false); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 4; y++ {
		for x := 0; x < 8; x++ {
			want := px{255, 0, 0, 255}
			if x >= 4 {
				want = px{0, 0, 255, 255}
			}
			var g px
			copy(g[:], got[(y*8+x)*4:])
			if g != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, want)
			}
		}
	}
	// Flip: a 4x8 image whose top block is red decodes red at the bottom.
	flipped := make([]byte, 4*8*4)
	if err := DecodeDXT1(flipped, src, 4, 8, true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(flipped[:4], []byte{0, 0, 255, 255}) || !bytes.Equal(flipped[len(flipped)-4:], []byte{255, 0, 0, 255}) {
		t.Errorf("flip: top-left %v, bottom-right %v", flipped[:4], flipped[len(flipped)-4:])
	}
}

func TestDecodeErrors(t *testing.T) {
	if err := DecodeDXT1(make([]byte, 64), make([]byte, 7), 4, 4, false); !isErr(err, ErrSize) {
		t.Errorf("short source: %v", err)
	}
	if err := DecodeDXT1(make([]byte, 60), make([]byte, 8), 4, 4, false); !isErr(err, ErrSize) {
		t.Errorf("short destination: %v", err)
	}
	if err := DecodeDXT1(nil, nil, 3, 4, false); !isErr(err, ErrDimensions) {
		t.Errorf("bad width: %v", err)
	}
}

// TestSolidBlockRoundTrip: Tracy encodes a flat block as color1 with all
// indices 0; after FixOrder that is index 1 = color1 in either BC1 mode.
func TestSolidBlockRoundTrip(t *testing.T) {
	for _, c := range [][3]byte{{0, 0, 0}, {255, 255, 255}, {200, 100, 50}, {8, 4, 8}} {
		rgba := bytes.Repeat([]byte{c[0], c[1], c[2], 255}, 16)
		enc, err := AppendDXT1(nil, rgba, 4, 4, false)
		if err != nil {
			t.Fatal(err)
		}
		FixOrder(enc)
		got := make([]byte, 64)
		if err := DecodeDXT1(got, enc, 4, 4, false); err != nil {
			t.Fatal(err)
		}
		r, g, b := expand565(uint16(to565(uint32(c[0]), uint32(c[1]), uint32(c[2]))))
		want := bytes.Repeat([]byte{byte(r), byte(g), byte(b), 255}, 16)
		if !bytes.Equal(got, want) {
			t.Errorf("solid %v: decoded %v, want %v", c, got[:4], want[:4])
		}
	}
}

func FuzzDecodeDXT1(f *testing.F) {
	f.Add([]byte{0x00, 0xF8, 0x1F, 0x00, 0xE4, 0xE4, 0xE4, 0xE4}, uint8(1), uint8(1), false)
	f.Add(make([]byte, 64), uint8(4), uint8(2), true)
	f.Add([]byte{1, 2, 3}, uint8(0), uint8(7), false)
	f.Fuzz(func(t *testing.T, data []byte, bw, bh uint8, flip bool) {
		w, h := int(bw)*4, int(bh)*4
		dst := make([]byte, w*h*4)
		err := DecodeDXT1(dst, data, w, h, flip)
		if err == nil && len(data) != w*h/2 {
			t.Fatalf("accepted %d bytes for %dx%d", len(data), w, h)
		}
		if err != nil {
			return
		}
		// Decoding is a pure function of the block: re-encoding standard
		// blocks must not panic either.
		FixOrder(data)
		UnfixOrder(data)
		RDO(data)
	})
}
