package texture

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"
	"time"
)

// fuzzImage builds a w x h RGBA image from fuzz bytes. In blocky mode each
// 4x4 block takes one colour from data and only varies in the bits that
// 565 truncation drops, so solid and non-solid blocks mix (the AVX2 kernel
// handles such pairs without branching).
func fuzzImage(data []byte, w, h int, blocky bool) []byte {
	img := make([]byte, w*h*4)
	if len(data) == 0 {
		return img
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 4
			if blocky {
				b := ((y/4)*(w/4) + x/4) * 3
				r, g, bl := data[b%len(data)], data[(b+1)%len(data)], data[(b+2)%len(data)]
				n := data[(i/4)%len(data)]
				if (b/3)%3 == 2 { // every third block is not solid
					n = data[(i/4+1)%len(data)] << 3
				}
				img[i], img[i+1], img[i+2] = r|n&7, g|n&3, bl|n>>3&7
			} else {
				img[i], img[i+1], img[i+2] = data[i%len(data)], data[(i+1)%len(data)], data[(i+2)%len(data)]
			}
			img[i+3] = data[(i+3)%len(data)]
		}
	}
	return img
}

// FuzzEncodeDifferential checks every encoder this machine can run (Go,
// SSE4.1, AVX2, NEON) against the plain Tracy reference on arbitrary images,
// sizes (odd block counts exercise the AVX2 tail) and flips.
func FuzzEncodeDifferential(f *testing.F) {
	f.Add([]byte{0, 0, 0, 255}, uint8(1), uint8(1), uint8(0))
	f.Add([]byte{255, 128, 7, 1, 2, 3, 250, 251}, uint8(3), uint8(2), uint8(1))
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(5), uint8(3), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, bw, bh, mode uint8) {
		want := checkEncoders(t, data, bw, bh, mode)
		w, h := int(bw%24+1)*4, int(bh%12+1)*4
		// The stages after the encoder must accept whatever it made.
		packed, err := Pack(nil, want, w, h)
		if err != nil {
			t.Fatal(err)
		}
		un, err := Unpack(nil, packed, w, h)
		if err != nil {
			t.Fatal(err)
		}
		Prepare(want)
		if !bytes.Equal(un, want) {
			t.Fatal("Unpack(Pack(x)) != Prepare(x)")
		}
	})
}

// checkEncoders builds the image the fuzz arguments describe, compares
// every encoder against the plain reference and returns the reference
// encoding. Widths of 1 to 24 blocks exercise every kernel's tail and
// narrow-row handling.
func checkEncoders(t testing.TB, data []byte, bw, bh, mode uint8) []byte {
	t.Helper()
	w, h := int(bw%24+1)*4, int(bh%12+1)*4
	flip := mode&2 != 0
	img := fuzzImage(data, w, h, mode&1 != 0)
	src := img
	if flip {
		src = flipRows(img, w, h)
	}
	want := tracyReference(img, w, h)
	for name, enc := range encoders() {
		got := make([]byte, DXT1Size(w, h))
		enc(got, src, w, h, flip)
		if i := firstDiff(got, want); i >= 0 {
			t.Fatalf("%s encoder, %dx%d flip=%v mode=%d data=%x: block %d = %x, reference %x",
				name, w, h, flip, mode, data, i/8, got[i/8*8:i/8*8+8], want[i/8*8:i/8*8+8])
		}
	}
	return want
}

var soak = flag.Duration("soak", 0, "run TestEncodeDifferentialRandom for this long instead of a fixed count")

// TestEncodeDifferentialRandom feeds checkEncoders pseudo-random inputs from
// a fixed seed. It complements FuzzEncodeDifferential where the fuzzing
// engine cannot run: under qemu-user without binfmt_misc the coordinator
// cannot re-exec its worker binary, so arm64 kernels are soaked with
// -test.run=TestEncodeDifferentialRandom -soak=30s instead. (Assembly gets
// no coverage instrumentation, so for the kernels themselves the fuzzer's
// guidance is no better than random inputs.)
func TestEncodeDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	deadline := time.Now().Add(*soak)
	n := 0
	for ; n < 300 || time.Now().Before(deadline); n++ {
		data := make([]byte, 1+r.IntN(200))
		// Mostly arbitrary bytes; sometimes only extremes, so blocks span
		// the whole range, or a narrow band, so they come out near-solid.
		switch r.IntN(3) {
		case 0:
			for i := range data {
				data[i] = byte(r.Uint32())
			}
		case 1:
			for i := range data {
				data[i] = byte(r.IntN(2) * 255)
			}
		case 2:
			base := byte(r.Uint32())
			for i := range data {
				data[i] = base + byte(r.IntN(8))
			}
		}
		checkEncoders(t, data, uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.IntN(4)))
	}
	t.Logf("%d random images checked on %d encoders", n, len(encoders()))
}
