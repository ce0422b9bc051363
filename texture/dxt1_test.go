package texture

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

const fixW, fixH = 320, 180

var fixtureFrames = []int{0, 1, 7}

// loadFixture returns the RGBA input and the real Tracy 0.14.0 encoder's
// DXT1 output for demo frame k.
func loadFixture(tb testing.TB, k int) (rgba, dxt1 []byte) {
	tb.Helper()
	var err error
	rgba, err = os.ReadFile(fixtures.Path(tb, fmt.Sprintf("dxt1/gradient_f%d.rgba", k)))
	if err != nil {
		tb.Fatal(err)
	}
	dxt1, err = os.ReadFile(fixtures.Path(tb, fmt.Sprintf("dxt1/gradient_f%d.dxt1", k)))
	if err != nil {
		tb.Fatal(err)
	}
	if len(rgba) != fixW*fixH*4 || len(dxt1) != DXT1Size(fixW, fixH) {
		tb.Fatalf("fixture %d: unexpected sizes %d, %d", k, len(rgba), len(dxt1))
	}
	return rgba, dxt1
}

// encoders lists every encoder implementation this machine can run, so the
// bit-exact tests cover the assembly paths and the Go path alike.
func encoders() map[string]func(out, rgba []byte, w, h int, flip bool) {
	m := map[string]func(out, rgba []byte, w, h int, flip bool){"go": encodeGeneric}
	for name, f := range asmEncoders() {
		m[name] = f
	}
	return m
}

func TestEncodeBitExactFixtures(t *testing.T) {
	for _, k := range fixtureFrames {
		rgba, want := loadFixture(t, k)
		for name, enc := range encoders() {
			got := make([]byte, len(want))
			enc(got, rgba, fixW, fixH, false)
			if i := firstDiff(got, want); i >= 0 {
				t.Errorf("frame %d, %s encoder: first difference in block %d: got %x, want %x",
					k, name, i/8, got[i/8*8:i/8*8+8], want[i/8*8:i/8*8+8])
			}
		}
		// The public entry point, appending after existing bytes.
		out, err := AppendDXT1([]byte("head"), rgba, fixW, fixH, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(out[:4]) != "head" || !bytes.Equal(out[4:], want) {
			t.Errorf("frame %d: AppendDXT1 (%s path) differs from Tracy's output", k, EncoderPath())
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return len(a)
	}
	return -1
}

// flipRows returns a copy of the w x h RGBA image upside down.
func flipRows(rgba []byte, w, h int) []byte {
	out := make([]byte, len(rgba))
	for y := 0; y < h; y++ {
		copy(out[y*w*4:(y+1)*w*4], rgba[(h-1-y)*w*4:(h-y)*w*4])
	}
	return out
}

func TestEncodeFlip(t *testing.T) {
	rgba, want := loadFixture(t, 7)
	up := flipRows(rgba, fixW, fixH)
	for name, enc := range encoders() {
		got := make([]byte, len(want))
		enc(got, up, fixW, fixH, true)
		if !bytes.Equal(got, want) {
			t.Errorf("%s encoder: flip of an upside-down image does not give the upright encoding", name)
		}
	}
}

func TestAppendDXT1Errors(t *testing.T) {
	for _, c := range []struct{ w, h, n int }{{0, 4, 0}, {6, 4, 96}, {4, 5, 80}, {-4, 4, 64}} {
		if _, err := AppendDXT1(nil, make([]byte, c.n), c.w, c.h, false); !isErr(err, ErrDimensions) {
			t.Errorf("%dx%d: got %v, want ErrDimensions", c.w, c.h, err)
		}
	}
	if _, err := AppendDXT1(nil, make([]byte, 63), 4, 4, false); !isErr(err, ErrSize) {
		t.Errorf("short input: got %v, want ErrSize", err)
	}
}

func TestAppendDXT1NoAlloc(t *testing.T) {
	rgba := gradientImage(320, 180)
	dst := make([]byte, 0, DXT1Size(320, 180))
	allocs := testing.AllocsPerRun(10, func() {
		var err error
		if _, err = AppendDXT1(dst[:0], rgba, 320, 180, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendDXT1 with capacity allocates %v times per call, want 0", allocs)
	}
}

// contrastImage gives every block two colours a random distance apart, with
// ranges spread over the whole 0..765 span of the range sum and every
// block position (SIMD kernels treat blocks 0..3 of a step in different
// lanes), plus near-solid blocks that differ only below the 565 bits.
func contrastImage(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 13))
	p := make([]byte, w*h*4)
	for by := 0; by < h/4; by++ {
		for bx := 0; bx < w/4; bx++ {
			var lo, hi [3]int
			for c := range lo {
				rg := r.IntN(256)
				if (bx+by)%5 == 0 {
					rg = r.IntN(4) // near-solid
				}
				lo[c] = r.IntN(256 - rg)
				hi[c] = lo[c] + rg
			}
			mask := r.Uint32()
			for i := 0; i < 16; i++ {
				o := ((by*4+i/4)*w + bx*4 + i%4) * 4
				for c := range lo {
					v := lo[c]
					if mask>>(i+c)&1 != 0 {
						v = hi[c]
					}
					p[o+c] = byte(v)
				}
				p[o+3] = byte(r.Uint32())
			}
		}
	}
	return p
}

// TestEncodeGeneratedAllPaths checks every encoder this machine runs, with
// and without flip, against the plain reference on content the fixtures
// lack: noise, saturated edges and blocks with large channel ranges.
func TestEncodeGeneratedAllPaths(t *testing.T) {
	images := append(generatedImages(),
		namedImage{"contrast", contrastImage(80, 64, 1), 80, 64},
		namedImage{"contrast narrow", contrastImage(12, 8, 2), 12, 8})
	for _, im := range images {
		want := tracyReference(im.rgba, im.w, im.h)
		up := flipRows(im.rgba, im.w, im.h)
		for name, enc := range encoders() {
			for _, flip := range []bool{false, true} {
				src := im.rgba
				if flip {
					src = up
				}
				got := make([]byte, len(want))
				enc(got, src, im.w, im.h, flip)
				if i := firstDiff(got, want); i >= 0 {
					t.Errorf("%s, %s encoder, flip=%v: block %d = %x, reference %x",
						im.name, name, flip, i/8, got[i/8*8:i/8*8+8], want[i/8*8:i/8*8+8])
				}
			}
		}
	}
}
