package main

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
	"github.com/gotracy/gotracy/tracefile"
)

// TestFramesExport exports the frame images of the real captures and checks
// one against the fixture DXT1 pair: the client's frame-7 image, after the
// server's FixOrder and RDO, must come out pixel for pixel under the frame
// number Tracy's GUI shows for it: frame 8, because the server attaches an
// image to frame index client frame + 1. The on-demand client connected
// before its first frame (frameOffset 0), so it numbers the same, but the
// server dropped its frame-0 image (on-demand images at index <= 1 are
// dropped), leaving 19.
func TestFramesExport(t *testing.T) {
	dxt, err := os.ReadFile(fixtures.Path(t, "dxt1/gradient_f7.dxt1"))
	if err != nil {
		t.Fatal(err)
	}
	texture.Prepare(dxt)
	want, err := texture.Image(dxt, 320, 180, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		trace, file string
		count       int
	}{
		{"demo.tracy", "frame000008.png", 20},
		{"demo-ondemand.tracy", "frame000008.png", 19},
	} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		if code := run([]string{"frames", fixtures.Path(t, c.trace), "-o", dir}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.trace, code, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(dir, "frame*.png"))
		if len(files) != c.count || !strings.Contains(stdout.String(), "wrote") {
			t.Errorf("%s: %d PNG files (%q), want %d", c.trace, len(files), stdout.String(), c.count)
		}
		f, err := os.Open(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.trace, err)
		}
		got, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !samePixels(got, want) {
			t.Errorf("%s: %s differs from the decoded fixture frame 7", c.trace, c.file)
		}
	}
}

func samePixels(a image.Image, b *image.NRGBA) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := 0; y < b.Rect.Dy(); y++ {
		for x := 0; x < b.Rect.Dx(); x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

func TestFramesUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"frames", "x.tracy"}, &stdout, &stderr); code != 2 {
		t.Errorf("missing --out: exit %d, want 2", code)
	}
	if code := run([]string{"frames", "--out", t.TempDir()}, &stdout, &stderr); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.tracy")
	os.WriteFile(bad, []byte("not a trace"), 0o644)
	if code := run([]string{"frames", bad, "-o", t.TempDir()}, &stdout, &stderr); code != 1 {
		t.Errorf("bad file: exit %d, want 1", code)
	}
}

// TestFrameImageName pins the GUI's numbering (View::GetFrameNumber): the
// base-set index, or index + frameOffset - 1 when the client had emitted
// frames before an on-demand connection.
func TestFrameImageName(t *testing.T) {
	var tr model.Trace
	if got := frameImageName(&tr, 8); got != "frame000008.png" {
		t.Errorf("offset 0: %s", got)
	}
	tr.Metadata.FrameOffset = 100
	if got := frameImageName(&tr, 2); got != "frame000101.png" {
		t.Errorf("offset 100: %s", got)
	}
}

// TestFramesExportPacked: a trace straight from a capture holds its images
// Zstd-packed; exporting it must write the same PNGs as the file does, and
// a corrupt packed image is an error, not a panic.
func TestFramesExportPacked(t *testing.T) {
	tr, err := tracefile.ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	plainDir, packedDir := t.TempDir(), t.TempDir()
	nPlain, err := exportFrameImages(&env{}, tr, plainDir, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := texture.NewPacker()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range tr.FrameImages {
		img := &tr.FrameImages[i]
		if img.Data, err = p.PackPrepared(nil, img.Data, int(img.W), int(img.H)); err != nil {
			t.Fatal(err)
		}
		img.Packed = true
	}
	nPacked, err := exportFrameImages(&env{}, tr, packedDir, false)
	if err != nil {
		t.Fatal(err)
	}
	if nPacked != nPlain || nPlain == 0 {
		t.Fatalf("exported %d packed images, %d plain", nPacked, nPlain)
	}
	files, _ := filepath.Glob(filepath.Join(plainDir, "*.png"))
	for _, f := range files {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(packedDir, filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: packed export differs (%v)", filepath.Base(f), err)
		}
	}
	tr.FrameImages[0].Data = tr.FrameImages[0].Data[:10]
	if _, err := exportFrameImages(&env{}, tr, t.TempDir(), false); !errors.Is(err, texture.ErrCorrupt) {
		t.Errorf("corrupt packed image: %v, want texture.ErrCorrupt", err)
	}
}
