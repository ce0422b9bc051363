package texture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
)

// tracyPayload returns the uncompressed payload of a Zstd-compressed
// multi-stream .tracy container: block i of 64 KiB was
// compressed by stream i mod N, each stream being one never-ended Zstd
// frame. Only what this package's golden test needs; the real reader is
// package tracefile.
func tracyPayload(tb testing.TB, path string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if len(raw) < 6 || string(raw[:4]) != "tr\xfdP" || raw[4] != 1 {
		tb.Skipf("%s is not a Zstd multi-stream trace", path)
	}
	n := int(raw[5])
	var chunks [][]byte
	for p := raw[6:]; len(p) > 0; {
		sz := int(binary.LittleEndian.Uint32(p))
		chunks = append(chunks, p[4:4+sz])
		p = p[4+sz:]
	}
	streams := make([][]byte, n)
	for s := range streams {
		var cat []byte
		for i := s; i < len(chunks); i += n {
			cat = append(cat, chunks[i]...)
		}
		d, err := zstd.NewReader(bytes.NewReader(cat))
		if err != nil {
			tb.Fatal(err)
		}
		streams[s], err = io.ReadAll(d)
		d.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			tb.Fatalf("stream %d: %v", s, err)
		}
	}
	var out []byte
	for i := range chunks {
		s := streams[i%n]
		k := min(65536, len(s))
		out = append(out, s[:k]...)
		streams[i%n] = s[k:]
	}
	return out
}

// TestPrepareMatchesTracyServer is the golden test for FixOrder and RDO:
// the real Tracy 0.14.0 capture tool received the fixture frames as DXT1
// from the client, ran FixOrder + RDO + Zstd, and wrote the images,
// decompressed, into demo.tracy. Prepare on the same
// client bytes must reproduce those bytes exactly.
func TestPrepareMatchesTracyServer(t *testing.T) {
	payload := tracyPayload(t, fixtures.Path(t, "demo.tracy"))
	for _, k := range fixtureFrames {
		_, dxt := loadFixture(t, k)
		Prepare(dxt)
		// Each stored image is preceded by w, h (u16) and flip (u8).
		rec := binary.LittleEndian.AppendUint16(nil, fixW)
		rec = binary.LittleEndian.AppendUint16(rec, fixH)
		rec = append(rec, 0)
		rec = append(rec, dxt...)
		if !bytes.Contains(payload, rec) {
			// Say whether FixOrder alone would have matched, to point at
			// the faulty stage.
			_, plain := loadFixture(t, k)
			FixOrder(plain)
			t.Errorf("frame %d: Prepare output not found in demo.tracy (FixOrder-only found: %v)",
				k, bytes.Contains(payload, plain))
		}
	}
}

func TestRDOKeepsBlocksValidAndClose(t *testing.T) {
	imgs := generatedImages()
	var flat, two, three int // blocks each RDO outcome produced, over all images
	for _, k := range fixtureFrames {
		if fixtures.Dir() == "" {
			break
		}
		rgba, _ := loadFixture(t, k)
		imgs = append(imgs, namedImage{fmt.Sprintf("fixture f%d", k), rgba, fixW, fixH})
	}
	for _, im := range imgs {
		enc, err := AppendDXT1(nil, im.rgba, im.w, im.h, false)
		if err != nil {
			t.Fatal(err)
		}
		FixOrder(enc)
		before := make([]byte, len(im.rgba))
		if err := DecodeDXT1(before, enc, im.w, im.h, false); err != nil {
			t.Fatal(err)
		}
		rdo := bytes.Clone(enc)
		RDO(rdo)
		after := make([]byte, len(im.rgba))
		if err := DecodeDXT1(after, rdo, im.w, im.h, false); err != nil {
			t.Fatal(err)
		}
		changed, maxErr := 0, 0
		for i := 0; i < len(rdo); i += 8 {
			if bytes.Equal(rdo[i:i+8], enc[i:i+8]) {
				continue
			}
			changed++
			c0, c1 := binary.LittleEndian.Uint16(rdo[i:]), binary.LittleEndian.Uint16(rdo[i+2:])
			switch {
			case c1 == 0 && binary.LittleEndian.Uint32(rdo[i+4:]) == 0:
				flat++
			case c0 <= c1:
				three++
			default:
				two++
			}
		}
		for i := 0; i < len(after); i += 4 {
			// Valid for an opaque image: RDO's 3-colour blocks never
			// select the transparent index.
			if after[i+3] != 255 {
				t.Fatalf("%s: RDO made pixel %d transparent", im.name, i/4)
			}
			for c := 0; c < 3; c++ {
				maxErr = max(maxErr, absInt(int(after[i+c])-int(before[i+c])))
			}
		}
		// The widest endpoint gap RDO touches is 48 (tr3) plus the
		// 565 step; re-expressing a block moves a pixel by at most a
		// third of that gap plus rounding, flattening by at most 12/2+8.
		const bound = 24
		if maxErr > bound {
			t.Errorf("%s: RDO moved a channel by %d (> %d)", im.name, maxErr, bound)
		}
		t.Logf("%s: RDO changed %d of %d blocks, max channel change %d", im.name, changed, len(rdo)/8, maxErr)
	}
	t.Logf("outcomes: %d flat, %d two-colour, %d three-colour", flat, two, three)
	if flat == 0 || two == 0 || three == 0 {
		t.Errorf("test images do not exercise every RDO outcome: %d flat, %d two-colour, %d three-colour", flat, two, three)
	}
}

// TestRDOGolden checks the three RDO outcomes on blocks built by hand.
func TestRDOGolden(t *testing.T) {
	all := func(v uint8) (a [16]uint8) {
		for i := range a {
			a[i] = v
		}
		return a
	}
	mixed := [16]uint8{0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 1, 1, 2, 2, 3, 3}
	cases := []struct {
		name    string
		in, out []byte
	}{
		// Dark endpoints (8,8,8) and (0,4,0), within tr1 = 12: flattened
		// to the per-field mean of the 565 fields as color0.
		{"flat", block(0x0841, 0x0020, mixed), block(0x0020, 0, all(0))},
		// Dark blue endpoints 8 levels apart (< tr2 = 12): indices keep
		// only their low bit.
		{"two-colour", block(0x0003, 0x0001, mixed), block(0x0003, 0x0001, [16]uint8{0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1})},
		// Bright greys (198,195,198) and (173,174,173), 23 apart after
		// the channel offsets (tr3 = 24 here): swapped into 3-colour
		// mode, thirds become the midpoint.
		{"three-colour", block(0xC618, 0xAD75, mixed), block(0xAD75, 0xC618, [16]uint8{1, 0, 2, 2, 2, 2, 0, 1, 1, 1, 0, 0, 2, 2, 2, 2})},
		// Solid blocks from the encoder are left alone.
		{"solid", block(0, 0x1234, all(1)), block(0, 0x1234, all(1))},
		// Far endpoints: unchanged.
		{"contrast", block(0xFFFF, 0x0000, mixed), block(0xFFFF, 0x0000, mixed)},
	}
	for _, c := range cases {
		got := bytes.Clone(c.in)
		RDO(got)
		if !bytes.Equal(got, c.out) {
			t.Errorf("%s: RDO(%x) = %x, want %x", c.name, c.in, got, c.out)
		}
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	for _, im := range generatedImages() {
		enc, err := AppendDXT1(nil, im.rgba, im.w, im.h, false)
		if err != nil {
			t.Fatal(err)
		}
		orig := bytes.Clone(enc)
		packed, err := Pack([]byte("x"), enc, im.w, im.h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, orig) {
			t.Fatalf("%s: Pack modified its input", im.name)
		}
		got, err := Unpack([]byte("y"), packed[1:], im.w, im.h)
		if err != nil {
			t.Fatalf("%s: %v", im.name, err)
		}
		want := bytes.Clone(orig)
		Prepare(want)
		if got[0] != 'y' || !bytes.Equal(got[1:], want) {
			t.Errorf("%s: Unpack(Pack(x)) != Prepare(x)", im.name)
		}
		// PackPrepared on the prepared image gives the same data back.
		p2, err := defaultPacker().PackPrepared(nil, want, im.w, im.h)
		if err != nil {
			t.Fatal(err)
		}
		if g2, err := Unpack(nil, p2, im.w, im.h); err != nil || !bytes.Equal(g2, want) {
			t.Errorf("%s: PackPrepared round trip failed: %v", im.name, err)
		}
	}
}

func TestUnpackErrors(t *testing.T) {
	enc, _ := AppendDXT1(nil, gradientImage(64, 32), 64, 32, false)
	packed, err := Pack(nil, enc, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(nil, packed, 32, 32); !isErr(err, ErrCorrupt) {
		t.Errorf("wrong dimensions: got %v, want ErrCorrupt", err)
	}
	if _, err := Unpack(nil, packed[:len(packed)/2], 64, 32); !isErr(err, ErrCorrupt) {
		t.Errorf("truncated: got %v, want ErrCorrupt", err)
	}
	if _, err := Unpack(nil, []byte("not zstd at all"), 64, 32); !isErr(err, ErrCorrupt) {
		t.Errorf("garbage: got %v, want ErrCorrupt", err)
	}
	if _, err := Pack(nil, enc[:8], 64, 32); !isErr(err, ErrSize) {
		t.Errorf("short input: got %v, want ErrSize", err)
	}
}

func TestDictionary(t *testing.T) {
	var samples [][]byte
	for i := 0; i < 6; i++ {
		enc, _ := AppendDXT1(nil, textImage(320, 180, uint64(i)), 320, 180, false)
		Prepare(enc)
		samples = append(samples, enc)
	}
	dict, err := TrainDict(samples[:5], 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := NewPacker(WithDict(dict))
	if err != nil {
		t.Fatal(err)
	}
	defer pd.Close()
	withDict, err := pd.PackPrepared(nil, samples[5], 320, 180)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := defaultPacker().PackPrepared(nil, samples[5], 320, 180)
	got, err := pd.Unpack(nil, withDict, 320, 180)
	if err != nil || !bytes.Equal(got, samples[5]) {
		t.Fatalf("dictionary round trip failed: %v", err)
	}
	if _, err := Unpack(nil, withDict, 320, 180); err == nil {
		t.Error("data packed with a dictionary unpacked without it")
	}
	t.Logf("unseen frame: %d bytes with a %d-byte dictionary, %d without", len(withDict), len(dict), len(plain))
	if len(withDict) >= len(plain) {
		t.Errorf("dictionary does not help: %d >= %d bytes", len(withDict), len(plain))
	}
	if _, err := TrainDict(nil, 0); !errors.Is(err, ErrNoSamples) {
		t.Errorf("TrainDict(nil) = %v, want ErrNoSamples", err)
	}
}

func TestPackNoAlloc(t *testing.T) {
	if race.Enabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	enc, _ := AppendDXT1(nil, gradientImage(320, 180), 320, 180, false)
	dst := make([]byte, 0, 64<<10)
	out := make([]byte, 0, len(enc))
	p := defaultPacker()
	for i := 0; i < 3; i++ { // warm the pools
		packed, _ := p.Pack(dst[:0], enc, 320, 180)
		p.Unpack(out[:0], packed, 320, 180)
	}
	allocs := testing.AllocsPerRun(20, func() {
		packed, _ := p.Pack(dst[:0], enc, 320, 180)
		p.Unpack(out[:0], packed, 320, 180)
	})
	if allocs > 0 {
		t.Errorf("Pack+Unpack allocate %v times per call after warm-up, want 0", allocs)
	}
}

// TestPackedSizeFixtures logs the packed size of each fixture frame; the
// seed expects a 320x180 frame to pack to under 10 KB.
func TestPackedSizeFixtures(t *testing.T) {
	for _, k := range fixtureFrames {
		_, dxt := loadFixture(t, k)
		packed, err := Pack(nil, dxt, fixW, fixH)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("frame %d: %d DXT1 bytes -> %d packed", k, len(dxt), len(packed))
		if len(packed) >= 10000 {
			t.Errorf("frame %d packs to %d bytes, want < 10000", k, len(packed))
		}
	}
}

// FuzzUnpack: arbitrary bytes as packed data must give an image or an
// error, never a panic or an image of the wrong size.
func FuzzUnpack(f *testing.F) {
	enc, _ := AppendDXT1(nil, gradientImage(16, 8), 16, 8, false)
	packed, _ := Pack(nil, enc, 16, 8)
	f.Add(packed, uint8(4), uint8(2))
	f.Add(packed[:len(packed)-3], uint8(4), uint8(2))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, bw, bh uint8) {
		w, h := int(bw)*4, int(bh)*4
		out, err := Unpack(nil, data, w, h)
		if err == nil && len(out) != DXT1Size(w, h) {
			t.Fatalf("Unpack returned %d bytes for %dx%d", len(out), w, h)
		}
	})
}

// TestImageData: packed and unpacked stored forms give the same BC1 bytes,
// a reused dst is reused, and bad data is an error, not a panic.
func TestImageData(t *testing.T) {
	im := generatedImages()[0]
	enc, err := AppendDXT1(nil, im.rgba, im.w, im.h, false)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := Pack(nil, enc, im.w, im.h)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(enc)
	Prepare(want)
	got, err := ImageData(nil, want, im.w, im.h, false)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("unpacked: err %v, equal %v", err, bytes.Equal(got, want))
	}
	buf := make([]byte, 0, len(want))
	got, err = ImageData(buf[:3], packed, im.w, im.h, true)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("packed: err %v, equal %v", err, bytes.Equal(got, want))
	}
	if &got[0] != &buf[:1][0] {
		t.Error("dst was not reused")
	}
	if _, err := ImageData(nil, want[:8], im.w, im.h, false); !errors.Is(err, ErrSize) {
		t.Errorf("short unpacked data: %v, want ErrSize", err)
	}
	if _, err := ImageData(nil, packed[:len(packed)/2], im.w, im.h, true); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated packed data: %v, want ErrCorrupt", err)
	}
}
