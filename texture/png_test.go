package texture

import (
	"bytes"
	"image/png"
	"testing"
)

func TestWritePNG(t *testing.T) {
	rgba := textImage(64, 32, 9)
	enc, err := AppendDXT1(nil, rgba, 64, 32, false)
	if err != nil {
		t.Fatal(err)
	}
	Prepare(enc)
	want := decodeStd(t, enc, 64, 32)
	for _, flip := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WritePNG(&buf, enc, 64, 32, flip); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 32 {
			t.Fatalf("PNG is %v, want 64x32", b)
		}
		for y := 0; y < 32; y++ {
			sy := y
			if flip {
				sy = 31 - y
			}
			for x := 0; x < 64; x++ {
				r, g, b, a := img.At(x, y).RGBA()
				o := (sy*64 + x) * 4
				if byte(r>>8) != want[o] || byte(g>>8) != want[o+1] || byte(b>>8) != want[o+2] || byte(a>>8) != want[o+3] {
					t.Fatalf("flip=%v: pixel (%d,%d) differs from the decoded image", flip, x, y)
				}
			}
		}
	}
	if err := WritePNG(&bytes.Buffer{}, enc[:10], 64, 32, false); !isErr(err, ErrSize) {
		t.Errorf("short data: %v", err)
	}
}
