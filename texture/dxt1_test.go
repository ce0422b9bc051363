package texture

import (
	"bytes"
	"fmt"
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
