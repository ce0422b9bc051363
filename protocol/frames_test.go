package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/pierrec/lz4/v4"
)

// synthItems appends roughly n bytes of a realistic item mix: zones with
// compact times on a few threads, plots, memory events, strings, and now and
// then an incompressible payload or a large frame image.
func synthItems(rng *rand.Rand, dst []byte, n int, refs *TimeRefs, now *int64) []byte {
	start := len(dst)
	for len(dst)-start < n {
		*now += int64(rng.IntN(300))
		switch k := rng.IntN(100); {
		case k < 3:
			dst = refs.AppendThreadContext(dst, uint32(rng.IntN(3)+1))
		case k < 45:
			dst = refs.AppendZoneBegin(dst, *now, 0x5555000010+uint64(rng.IntN(4)))
		case k < 85:
			dst = refs.AppendZoneEnd(dst, *now)
		case k < 90:
			dst = AppendPlotDataDouble(dst, 0x77, refs.Delta(TimeThread, *now), rng.Float64())
		case k < 94:
			dst = AppendMemAlloc(dst, refs.Delta(TimeSerial, *now), 2, rng.Uint64(), uint64(rng.IntN(1<<20)))
		case k < 97:
			dst, _ = AppendSingleString(dst, "worker frame message")
			dst = AppendMessage(dst, *now, 0x20)
		case k < 99:
			p := make([]byte, rng.IntN(3000))
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			dst, _ = AppendSymbolCode(dst, rng.Uint64(), p)
		default:
			if rng.IntN(20) == 0 {
				p := make([]byte, 200000+rng.IntN(MaxLongPayload-200000))
				for i := range p {
					p[i] = byte(i*7) ^ byte(rng.IntN(2))
				}
				dst, _ = AppendFrameImageData(dst, 0, p)
				dst = AppendFrameImage(dst, 1, 4, 4, 0)
			}
		}
	}
	return dst
}

// pierrecReader decodes frames with pierrec/lz4 as an independent oracle,
// using the last 64 KiB of output as the dictionary.
func pierrecFrames(t testing.TB, stream []byte, dict bool) [][]byte {
	var out [][]byte
	var hist []byte
	for len(stream) > 0 {
		n := binary.LittleEndian.Uint32(stream)
		block := stream[4 : 4+n]
		stream = stream[4+n:]
		dst := make([]byte, TargetFrameSize)
		var m int
		var err error
		if dict {
			d := hist
			if len(d) > DictSize {
				d = d[len(d)-DictSize:]
			}
			m, err = lz4.UncompressBlockWithDict(block, dst, d)
		} else {
			m, err = lz4.UncompressBlock(block, dst)
		}
		if err != nil {
			t.Fatalf("pierrec: frame %d: %v", len(out), err)
		}
		out = append(out, dst[:m])
		hist = append(hist, dst[:m]...)
		if len(hist) > 4*DictSize {
			hist = append(hist[:0], hist[len(hist)-DictSize:]...)
		}
	}
	return out
}

func TestFrameWriterReaderWrap(t *testing.T) {
	total := 24 << 20 // ~23x the decoder's history buffer
	if race.Enabled || testing.Short() {
		total = 4 << 20
	}
	for _, tc := range []struct{ indep, trusted bool }{{false, false}, {true, false}, {false, true}} {
		indep := tc.indep
		rng := rand.New(rand.NewPCG(7, 8))
		var refs TimeRefs
		now := int64(1e9)
		var sent bytes.Buffer
		var wire bytes.Buffer
		var opts []FrameWriterOption
		if indep {
			opts = append(opts, WithIndependentFrames())
		}
		fw := NewFrameWriter(&wire, opts...)
		var batch []byte
		for sent.Len() < total {
			batch = synthItems(rng, batch[:0], rng.IntN(100000), &refs, &now)
			write := fw.WriteItems
			if tc.trusted {
				// Batches above TargetFrameSize take the checked path,
				// the others are never split.
				write = fw.WriteTrustedItems
			}
			if err := write(batch); err != nil {
				t.Fatal(err)
			}
			sent.Write(batch)
			if rng.IntN(4) == 0 {
				if err := fw.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
		frames, raw, written := fw.Stats()
		if raw != int64(sent.Len()) || written != int64(wire.Len()) {
			t.Fatalf("stats %d/%d/%d vs %d/%d", frames, raw, written, sent.Len(), wire.Len())
		}
		// Our reader.
		fr := NewFrameReader(bytes.NewReader(wire.Bytes()), 0)
		var got []byte
		var d ItemDecoder
		nf := 0
		for {
			f, err := fr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(f) == 0 || len(f) > TargetFrameSize {
				t.Fatalf("frame of %d bytes", len(f))
			}
			d.Reset(f, 0)
			for _, ok := d.Next(); ok; _, ok = d.Next() {
			}
			if d.Err() != nil {
				t.Fatalf("frame %d does not hold whole items: %v", nf, d.Err())
			}
			got = append(got, f...)
			nf++
		}
		if !bytes.Equal(got, sent.Bytes()) || int64(nf) != frames {
			t.Fatalf("%+v: read back %d bytes in %d frames, sent %d in %d", tc, len(got), nf, sent.Len(), frames)
		}
		// The independent oracle.
		var oracle []byte
		for _, f := range pierrecFrames(t, wire.Bytes(), !indep) {
			oracle = append(oracle, f...)
		}
		if !bytes.Equal(oracle, sent.Bytes()) {
			t.Fatalf("indep=%v: pierrec/lz4 decodes our stream differently", indep)
		}
		t.Logf("indep=%v: %d bytes in %d frames -> %d bytes (ratio %.2f)", indep, sent.Len(), frames, wire.Len(), float64(sent.Len())/float64(wire.Len()))
	}
}

// TestFrameReaderMatchesPierrec decodes a real recording with both decoders.
func TestFrameReaderMatchesPierrec(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSession(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := pierrecFrames(t, data[s.Size:], true)
	fr := NewFrameReader(bytes.NewReader(data[s.Size:]), s.Size)
	for i := 0; ; i++ {
		f, err := fr.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("%d frames, pierrec %d", i, len(want))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f, want[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}

func frameBytes(block []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(block))), block...)
}

func TestFrameReaderErrors(t *testing.T) {
	big := appendLiteralBlock(nil, make([]byte, TargetFrameSize+1))
	for _, c := range []struct {
		name   string
		stream []byte
		want   error
		offset int64
	}{
		{"zero size", []byte{0, 0, 0, 0}, ErrFrameSize, 10},
		{"oversize", binary.LittleEndian.AppendUint32(nil, LZ4Size+1), ErrFrameSize, 10},
		{"short header", []byte{1, 0}, ErrTruncated, 10},
		{"short block", []byte{5, 0, 0, 0, 0x10}, ErrTruncated, 10},
		{"empty output", frameBytes([]byte{0x00}), ErrFrameSize, 10},
		{"too much output", frameBytes(big), ErrFrameSize, 10},
		{"offset before stream", frameBytes([]byte{0x10, 'a', 1, 0, 0x00}), nil, 10}, // ok: 'a' then match off 1 len 4
		{"offset 0", frameBytes([]byte{0x10, 'a', 0, 0}), ErrCorruptLZ4, 10},
		{"offset past history", frameBytes([]byte{0x10, 'a', 2, 0}), ErrCorruptLZ4, 10},
		{"literal run past block", frameBytes([]byte{0xf0, 40, 'a'}), ErrCorruptLZ4, 10},
		{"second frame bad", append(frameBytes([]byte{0x10, 'a'}), frameBytes([]byte{0x10, 'b', 3, 0})...), ErrCorruptLZ4, 16},
	} {
		fr := NewFrameReader(bytes.NewReader(c.stream), 10)
		var err error
		for err == nil {
			_, err = fr.Next()
		}
		if c.want == nil {
			if err != io.EOF {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var se *StreamError
		if !errors.Is(err, c.want) || !errors.As(err, &se) || se.Offset != c.offset || !se.Compressed {
			t.Errorf("%s: %v", c.name, err)
		}
		if _, again := fr.Next(); again != err {
			t.Errorf("%s: error not sticky", c.name)
		}
	}
}

func TestFrameWriterRejects(t *testing.T) {
	var wire bytes.Buffer
	fw := NewFrameWriter(&wire)
	if err := fw.WriteItems([]byte{byte(ZoneEnd16), 1}); !errors.Is(err, ErrTruncated) {
		t.Error(err)
	}
	if err := fw.WriteItems([]byte{66}); !errors.Is(err, ErrUnknownItem) {
		t.Error(err)
	}
	if fw.Buffered() != 0 {
		t.Error("rejected batch was buffered")
	}
	if err := fw.Flush(); err != nil || wire.Len() != 0 {
		t.Error("empty flush wrote a frame")
	}
	// An incompressible maximal item still makes a valid frame.
	p := make([]byte, MaxLongPayload)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	item, _ := AppendSourceCode(nil, 1, p)
	if err := fw.WriteItems(append(item, AppendTerminate(nil)...)); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	fr := NewFrameReader(&wire, 0)
	f1, err := fr.Next()
	if err != nil || len(f1) != TargetFrameSize {
		t.Fatalf("frame 1: %d %v", len(f1), err)
	}
	f2, err := fr.Next()
	if err != nil || len(f2) != 1 || f2[0] != byte(Terminate) {
		t.Fatalf("frame 2: %v %v", f2, err)
	}
}

// TestSteadyStateAllocs: neither direction allocates per frame or item once
// created.
func TestSteadyStateAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var refs TimeRefs
	now := int64(0)
	items := synthItems(rng, nil, 200000, &refs, &now)
	var wire bytes.Buffer
	fw := NewFrameWriter(&wire)
	wire.Grow(64 << 20)
	allocs := testing.AllocsPerRun(20, func() {
		if err := fw.WriteItems(items); err != nil {
			t.Fatal(err)
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("FrameWriter: %v allocs per batch", allocs)
	}
	rd := bytes.NewReader(wire.Bytes())
	fr := NewFrameReader(rd, 0)
	var d ItemDecoder
	n := 0
	allocs = testing.AllocsPerRun(20, func() {
		f, err := fr.Next()
		if err != nil {
			t.Fatal(err)
		}
		d.Reset(f, 0)
		for _, ok := d.Next(); ok; _, ok = d.Next() {
			n++
		}
	})
	if allocs != 0 || n == 0 {
		t.Errorf("FrameReader: %v allocs per frame", allocs)
	}
}

// TestWriteTrustedItemsNeverSplits: a trusted batch that does not fit the
// pending frame starts a new one whole; one larger than a frame is checked
// and split like WriteItems (so a malformed one is still refused).
func TestWriteTrustedItemsNeverSplits(t *testing.T) {
	var wire bytes.Buffer
	fw := NewFrameWriter(&wire)
	zone := AppendZoneEnd16(AppendZoneBegin16(nil, 1, 2), 3) // 14 bytes
	var batch []byte
	for len(batch)+len(zone) <= TargetFrameSize/2+100 {
		batch = append(batch, zone...)
	}
	for i := 0; i < 3; i++ {
		if err := fw.WriteTrustedItems(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	fr := NewFrameReader(bytes.NewReader(wire.Bytes()), 0)
	n := 0
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f, batch) {
			t.Fatalf("frame %d: %d bytes, want the %d-byte batch whole", n, len(f), len(batch))
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d frames, want 3", n)
	}
	big := append(bytes.Repeat(zone, TargetFrameSize/len(zone)+1), 66)
	if err := fw.WriteTrustedItems(big); !errors.Is(err, ErrUnknownItem) {
		t.Fatalf("oversized malformed batch: %v, want ErrUnknownItem", err)
	}
}

// TestLZ4DecodeShortCopies: lz4Decode's word copies (short literals, short
// matches at least 16 bytes back) against pierrec/lz4 on blocks pierrec
// compresses, with lengths and offsets of every size around the 16-byte
// limits, decoded after a history into a buffer full of junk: the output is
// pierrec's, and the history before it is untouched.
func TestLZ4DecodeShortCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 14))
	for k := range 300 {
		// Runs of random bytes and copies of earlier pieces, short and long.
		var data []byte
		for len(data) < 4000+k*50 {
			if len(data) > 40 && rng.IntN(2) == 0 {
				off := 1 + rng.IntN(min(len(data), 40))
				n := 4 + rng.IntN(30)
				for range n {
					data = append(data, data[len(data)-off])
				}
			} else {
				for range rng.IntN(25) {
					data = append(data, byte(rng.IntN(8+k%200)))
				}
			}
		}
		comp := make([]byte, lz4.CompressBlockBound(len(data)))
		var c lz4.Compressor
		n, err := c.CompressBlock(data, comp)
		if err != nil || n == 0 {
			t.Fatalf("pierrec: %d, %v", n, err)
		}
		const hist = 100
		buf := bytes.Repeat([]byte{0xAA}, hist+TargetFrameSize)
		for i := range hist {
			buf[i] = byte(i)
		}
		m, err := lz4Decode(buf, 0, hist, TargetFrameSize, comp[:n])
		if err != nil || m != len(data) || !bytes.Equal(buf[hist:hist+m], data) {
			t.Fatalf("block %d: %d of %d bytes, %v, equal %v", k, m, len(data), err, bytes.Equal(buf[hist:hist+m], data))
		}
		for i := range hist {
			if buf[i] != byte(i) {
				t.Fatalf("block %d: history byte %d overwritten", k, i)
			}
		}
	}
}
