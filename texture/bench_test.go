package texture

import (
	"os"
	"testing"
)

// benchImage is a realistic frame: the fixture's gradient frame when
// available (scaled by tiling for 960x540), else a generated mix.
func benchImage(b *testing.B, w, h int) []byte {
	b.Helper()
	var src []byte
	if p := fixtureFile("dxt1/gradient_f7.rgba"); p != "" {
		src, _ = os.ReadFile(p)
	}
	if len(src) != fixW*fixH*4 {
		src = textImage(fixW, fixH, 1)
	}
	out := make([]byte, w*h*4)
	for y := 0; y < h; y++ {
		sy := y % fixH
		for x := 0; x < w; x += fixW {
			n := min(fixW, w-x)
			copy(out[(y*w+x)*4:(y*w+x+n)*4], src[sy*fixW*4:(sy*fixW+n)*4])
		}
	}
	return out
}

func benchEncode(b *testing.B, w, h int) {
	rgba := benchImage(b, w, h)
	for name, enc := range encoders() {
		b.Run(name, func(b *testing.B) {
			out := make([]byte, DXT1Size(w, h))
			b.SetBytes(int64(len(rgba)))
			b.ReportAllocs()
			for b.Loop() {
				enc(out, rgba, w, h, false)
			}
		})
	}
}

func BenchmarkDXT1Encode320x180(b *testing.B) { benchEncode(b, 320, 180) }
func BenchmarkDXT1Encode960x540(b *testing.B) { benchEncode(b, 960, 540) }

func BenchmarkDecodeDXT1320x180(b *testing.B) {
	rgba := benchImage(b, 320, 180)
	enc, _ := AppendDXT1(nil, rgba, 320, 180, false)
	Prepare(enc)
	out := make([]byte, len(rgba))
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeDXT1(out, enc, 320, 180, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPack320x180 is the server's per-frame cost: FixOrder, RDO and
// Zstd level 3. It reports the packed size as bytes/frame.
func BenchmarkPack320x180(b *testing.B) {
	rgba := benchImage(b, 320, 180)
	enc, _ := AppendDXT1(nil, rgba, 320, 180, false)
	dst := make([]byte, 0, 64<<10)
	var n int
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := Pack(dst[:0], enc, 320, 180)
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "bytes/frame")
}

func BenchmarkUnpack320x180(b *testing.B) {
	rgba := benchImage(b, 320, 180)
	enc, _ := AppendDXT1(nil, rgba, 320, 180, false)
	packed, _ := Pack(nil, enc, 320, 180)
	dst := make([]byte, 0, len(enc))
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unpack(dst[:0], packed, 320, 180); err != nil {
			b.Fatal(err)
		}
	}
}
