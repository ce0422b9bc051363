package texture

import (
	"os"
	"path/filepath"

	"errors"
	"github.com/gotracy/gotracy/internal/fixtures"
	"math"
	"math/rand/v2"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// Generated test images. Each is deterministic so failures reproduce.

func gradientImage(w, h int) []byte {
	p := make([]byte, w*h*4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 4
			p[i] = byte(x * 255 / max(w-1, 1))
			p[i+1] = byte(y * 255 / max(h-1, 1))
			p[i+2] = byte((x + y) * 255 / max(w+h-2, 1))
			p[i+3] = 255
		}
	}
	return p
}

func noiseImage(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := make([]byte, w*h*4)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// edgesImage has hard-edged rectangles and circles of saturated colours.
func edgesImage(w, h int) []byte {
	p := make([]byte, w*h*4)
	cols := [][3]byte{{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 0}, {0, 255, 255}, {255, 0, 255}, {255, 255, 255}, {0, 0, 0}}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := cols[(x/13+y/7)%len(cols)]
			dx, dy := float64(x-w/2), float64(y-h/2)
			if math.Hypot(dx, dy) < float64(h)/3 {
				c = cols[(x/5)%len(cols)]
			}
			i := (y*w + x) * 4
			p[i], p[i+1], p[i+2], p[i+3] = c[0], c[1], c[2], 255
		}
	}
	return p
}

// textImage imitates dark glyph strokes on a light background, with
// anti-aliased grey steps, like a profiler's or editor's screenshot.
func textImage(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	p := make([]byte, w*h*4)
	for i := 0; i < len(p); i += 4 {
		p[i], p[i+1], p[i+2], p[i+3] = 235, 235, 228, 255
	}
	for line := 2; line+9 < h; line += 12 {
		for x := 2; x+6 < w; {
			gw := 3 + r.IntN(4)
			for k := 0; k < 12; k++ {
				gx, gy := x+r.IntN(gw), line+r.IntN(9)
				v := byte(20 + r.IntN(3)*80)
				i := (gy*w + gx) * 4
				p[i], p[i+1], p[i+2] = v, v, v+10
			}
			x += gw + 1 + r.IntN(3)
		}
	}
	return p
}

// fixtureFile is fixtures.Path without skipping: benchmarks fall back to a
// generated image instead.
func fixtureFile(name string) string {
	d := fixtures.Dir()
	if d == "" {
		return ""
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

type namedImage struct {
	name string
	rgba []byte
	w, h int
}

func generatedImages() []namedImage {
	return []namedImage{
		{"gradient", gradientImage(320, 180), 320, 180},
		{"noise", noiseImage(128, 64, 1), 128, 64},
		{"edges", edgesImage(320, 180), 320, 180},
		{"text", textImage(320, 180, 3), 320, 180},
		{"soft", softImage(320, 180, 5), 320, 180},
		{"odd blocks", textImage(20, 12, 4), 20, 12},
	}
}

// softImage is a slowly varying colour field with small noise, the kind of
// content (UI panels, skies) where RDO's thresholds bite.
func softImage(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	p := make([]byte, w*h*4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 4
			base := [3]int{40 + x*150/w, 200 - y*120/h, 90 + (x+y)%40}
			for c := 0; c < 3; c++ {
				p[i+c] = byte(min(255, max(0, base[c]+r.IntN(13)-6)))
			}
			p[i+3] = 255
		}
	}
	return p
}
