package texture

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// psnr is the peak signal-to-noise ratio over the RGB channels, in dB.
func psnr(a, b []byte) float64 {
	var se float64
	n := 0
	for i := 0; i < len(a); i += 4 {
		for c := 0; c < 3; c++ {
			d := float64(a[i+c]) - float64(b[i+c])
			se += d * d
			n++
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(n)/se)
}

// roundTrip encodes with the package encoder, converts to standard BC1 and
// decodes.
func roundTrip(tb testing.TB, rgba []byte, w, h int) []byte {
	enc, err := AppendDXT1(nil, rgba, w, h, false)
	if err != nil {
		tb.Fatal(err)
	}
	FixOrder(enc)
	out := make([]byte, len(rgba))
	if err := DecodeDXT1(out, enc, w, h, false); err != nil {
		tb.Fatal(err)
	}
	return out
}

// tracyReference is a deliberately plain, per-pixel rendering of Tracy's
// scalar encoder (TracyDxt1.cpp, the non-SIMD branch), kept independent of
// the optimized code so the two check each other on arbitrary images.
func tracyReference(rgba []byte, w, h int) []byte {
	out := make([]byte, 0, DXT1Size(w, h))
	for by := 0; by < h; by += 4 {
		for bx := 0; bx < w; bx += 4 {
			var p [16][3]uint32
			for i := range p {
				o := ((by+i/4)*w + bx + i%4) * 4
				p[i] = [3]uint32{uint32(rgba[o]), uint32(rgba[o+1]), uint32(rgba[o+2])}
			}
			solid := true
			for i := range p {
				if p[i][0]&0xF8 != p[0][0]&0xF8 || p[i][1]&0xFC != p[0][1]&0xFC || p[i][2]&0xF8 != p[0][2]&0xF8 {
					solid = false
				}
			}
			if solid {
				out = binary.LittleEndian.AppendUint64(out, uint64(to565(p[0][0], p[0][1], p[0][2]))<<16)
				continue
			}
			mn, mx := p[0], p[0]
			for i := range p {
				for c := 0; c < 3; c++ {
					mn[c], mx[c] = min(mn[c], p[i][c]), max(mx[c], p[i][c])
				}
			}
			rng := uint32(divTable[mx[0]-mn[0]+mx[1]-mn[1]+mx[2]-mn[2]])
			var idx uint32
			for i := range p {
				d := p[i][0] + p[i][1] + p[i][2] - mn[0] - mn[1] - mn[2]
				idx |= (d * rng >> 16) << (2 * i)
			}
			var lo, hi [3]uint32
			for c := 0; c < 3; c++ {
				in := (mx[c] - mn[c]) >> 4
				lo[c], hi[c] = mn[c]+in, mx[c]-in
			}
			blk := uint64(to565(hi[0], hi[1], hi[2])) | uint64(to565(lo[0], lo[1], lo[2]))<<16 | uint64(idx)<<32
			out = binary.LittleEndian.AppendUint64(out, blk)
		}
	}
	return out
}

// bruteForce is a slow, higher-quality reference encoder: for every block
// it tries every ordered pair of the block's own colours (565-quantized) as
// 4-colour endpoints and keeps the pair with the least squared error. It
// bounds how much quality Tracy's fast projection gives away.
func bruteForce(rgba []byte, w, h int) []byte {
	out := make([]byte, 0, DXT1Size(w, h))
	var pal [4]uint32
	for by := 0; by < h; by += 4 {
		for bx := 0; bx < w; bx += 4 {
			var p [16][3]int
			var cand []uint16
			for i := range p {
				o := ((by+i/4)*w + bx + i%4) * 4
				p[i] = [3]int{int(rgba[o]), int(rgba[o+1]), int(rgba[o+2])}
				cand = append(cand, uint16(to565(uint32(rgba[o]), uint32(rgba[o+1]), uint32(rgba[o+2]))))
			}
			best, bestErr := uint64(0), math.MaxInt
			for _, a := range cand {
				for _, b := range cand {
					if a <= b && !(a == b && a == cand[0]) {
						continue
					}
					c0, c1 := a, b
					if a == b {
						c0, c1 = a, 0 // flat block: one colour
						if a == 0 {
							c0, c1 = 1, 0
						}
					}
					palette(&pal, c0, c1)
					var idx uint32
					total := 0
					for i := range p {
						bi, be := 0, math.MaxInt
						for k := 0; k < 4; k++ {
							e := 0
							for c := 0; c < 3; c++ {
								d := int(pal[k]>>(8*c)&0xFF) - p[i][c]
								e += d * d
							}
							if e < be {
								bi, be = k, e
							}
						}
						idx |= uint32(bi) << (2 * i)
						total += be
					}
					if total < bestErr {
						bestErr = total
						best = uint64(c0) | uint64(c1)<<16 | uint64(idx)<<32
					}
				}
			}
			out = binary.LittleEndian.AppendUint64(out, best)
		}
	}
	return out
}

func decodeStd(tb testing.TB, bc1 []byte, w, h int) []byte {
	out := make([]byte, w*h*4)
	if err := DecodeDXT1(out, bc1, w, h, false); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestQualityFixtures(t *testing.T) {
	for _, k := range fixtureFrames {
		rgba, tracy := loadFixture(t, k)
		FixOrder(tracy)
		ref := psnr(rgba, decodeStd(t, tracy, fixW, fixH))
		got := psnr(rgba, roundTrip(t, rgba, fixW, fixH))
		t.Logf("frame %d: PSNR %.2f dB (Tracy's encoder %.2f dB)", k, got, ref)
		if got < ref {
			t.Errorf("frame %d: PSNR %.2f dB below Tracy's %.2f dB", k, got, ref)
		}
	}
}

// TestQualityGenerated: on generated images our output must equal Tracy's
// algorithm (the plain reference above) bit for bit, hence the same PSNR,
// and must stay within a stated distance of a brute-force encoder.
func TestQualityGenerated(t *testing.T) {
	// The bound is Tracy's own quality, which we must reproduce bit for
	// bit: its bounding-box endpoints and grey-diagonal projection lose
	// little on smooth content but a lot where a block mixes saturated
	// hues (a red|green edge gets black and yellow endpoints). Gaps to
	// brute force measured when this test was written: gradient 2.5,
	// noise 1.3, edges 12.5, text 6.6, soft 2.7, odd blocks 7.1 dB. The
	// limits allow 1 dB more, so they catch a regression, not Tracy.
	maxGap := map[string]float64{"gradient": 3.5, "noise": 2.5, "edges": 13.5, "text": 7.5, "soft": 3.7, "odd blocks": 8}
	for _, im := range generatedImages() {
		want := tracyReference(im.rgba, im.w, im.h)
		enc, err := AppendDXT1(nil, im.rgba, im.w, im.h, false)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, want) {
			t.Errorf("%s: output differs from the plain Tracy reference", im.name)
		}
		FixOrder(want)
		refPSNR := psnr(im.rgba, decodeStd(t, want, im.w, im.h))
		got := psnr(im.rgba, roundTrip(t, im.rgba, im.w, im.h))
		bf := psnr(im.rgba, decodeStd(t, bruteForce(im.rgba, im.w, im.h), im.w, im.h))
		t.Logf("%-10s PSNR %.2f dB, Tracy reference %.2f dB, brute force %.2f dB", im.name, got, refPSNR, bf)
		if got < refPSNR {
			t.Errorf("%s: PSNR %.2f below Tracy reference %.2f", im.name, got, refPSNR)
		}
		if gap, ok := maxGap[im.name]; !ok || got < bf-gap {
			t.Errorf("%s: PSNR %.2f more than %.1f dB below brute force %.2f", im.name, got, gap, bf)
		}
	}
}
