package protocol

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/pierrec/lz4/v4"
)

// typedErr reports whether err is one of the package's documented failures.
func typedErr(err error) bool {
	var se *StreamError
	if !errors.As(err, &se) {
		return false
	}
	for _, s := range []error{ErrUnknownItem, ErrTruncated, ErrFrameSize, ErrCorruptLZ4, ErrBadHandshake,
		ErrProtocolMismatch, ErrNotAvailable} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

var (
	fuzzReader = NewFrameReader(nil, 0)
	fuzzSrc    = bytes.NewReader(nil)
)

// FuzzFrameReader feeds arbitrary bytes as a frame stream (after the
// handshake), then splits every frame into items: the result is frames and
// items, io.EOF, or a typed *StreamError; never a panic, and no allocation
// beyond the error values (one for the stream, at most one per frame).
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 0, 0, 0, 0x10, 0x49})
	f.Add(frameBytes(appendLiteralBlock(nil, AppendZoneEnd16(nil, 5))))
	f.Add(frameBytes([]byte{0x1f, 0x4b, 1, 0, 255, 255, 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d ItemDecoder
		var err error
		frames := 0
		allocs := testing.AllocsPerRun(1, func() {
			frames = 0
			fuzzSrc.Reset(data)
			fuzzReader.Reset(fuzzSrc, 0)
			for {
				var fr []byte
				fr, err = fuzzReader.Next()
				if err != nil {
					return
				}
				frames++
				if len(fr) == 0 || len(fr) > TargetFrameSize {
					t.Fatalf("frame of %d bytes", len(fr))
				}
				d.Reset(fr, fuzzReader.DecodedOffset())
				for _, ok := d.Next(); ok; _, ok = d.Next() {
				}
				if e := d.Err(); e != nil && !typedErr(e) {
					t.Fatalf("untyped item error %v", e)
				}
			}
		})
		if err != io.EOF && !typedErr(err) {
			t.Fatalf("untyped error %v", err)
		}
		// The stream error, plus at most one item error per frame.
		if !race.Enabled && allocs > float64(6+3*frames) {
			t.Fatalf("%v allocations for %d bytes", allocs, len(data))
		}
	})
}

// FuzzItemDecoder feeds arbitrary bytes as one decompressed frame and
// exercises every accessor of every item it yields.
func FuzzItemDecoder(f *testing.F) {
	f.Add(AppendZoneEnd16(nil, 5))
	b, _ := AppendSingleString(nil, "hello")
	f.Add(b)
	b, _ = AppendAllocSourceLocation(nil, 1, &SourceLocationData{Function: "f", File: "g", Name: "n"})
	f.Add(b)
	b, _ = AppendCallstackAllocPayloadFrames(nil, 1, []AllocFrame{{1, "a", "b"}})
	f.Add(b)
	f.Add([]byte{byte(FrameImageData), 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		var d ItemDecoder
		var refs TimeRefs
		var text []byte
		d.Reset(data, 0)
		total := 0
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			n, err := ItemSize(it.Raw)
			if err != nil || n != len(it.Raw) || QueueType(it.Raw[0]) != it.Type || !it.Type.Valid() {
				t.Fatalf("%v: ItemSize %d, %v for %d bytes", it.Type, n, err, len(it.Raw))
			}
			total += n
			refs.Time(it)
			it.Thread()
			text = it.AppendText(text[:0])
			if !bytes.HasPrefix(text, []byte(it.Type.String())) {
				t.Fatalf("text %q", text)
			}
			for _, fl := range it.Type.Spec().Fields {
				it.Field(fl)
			}
			switch it.Type {
			case CallstackAllocPayload:
				ParseCallstackAllocPayload(it.Payload())
			case CallstackPayload:
				CallstackFrames(it, nil)
			}
		}
		if err := d.Err(); err != nil {
			if !typedErr(err) {
				t.Fatalf("untyped error %v", err)
			}
		} else if total != len(data) {
			t.Fatalf("decoded %d of %d bytes without error", total, len(data))
		}
	})
}

// FuzzLZ4 compresses data[split:] with data[:split] (at most 64 KiB) as the
// prefix dictionary, and checks that this package's decoder and pierrec/lz4
// both restore it.
func FuzzLZ4(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabcabcabcabc"), uint16(3))
	f.Add(bytes.Repeat([]byte{0x1b, 0xf4, 0x01, 0x15, 0x10}, 400), uint16(100))
	f.Add([]byte("0123456789abcdef"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		s := int(split)
		if s > len(data) {
			s = len(data)
		}
		if s > DictSize {
			s = DictSize
		}
		block := len(data) - s
		if block == 0 || block > TargetFrameSize {
			return
		}
		var enc lz4Encoder
		// Warm the table with the dictionary, as the writer does frame by
		// frame.
		if s > 0 {
			enc.compress(nil, data, 0, 0, s)
		}
		comp := enc.compress(nil, data, 0, s, len(data))
		if len(comp) > LZ4Size {
			t.Fatalf("block of %d bytes for %d input", len(comp), block)
		}
		buf := make([]byte, s+TargetFrameSize)
		copy(buf, data[:s])
		n, err := lz4Decode(buf, 0, s, TargetFrameSize, comp)
		if err != nil || n != block || !bytes.Equal(buf[s:s+n], data[s:]) {
			t.Fatalf("own decoder: %d bytes, %v", n, err)
		}
		out := make([]byte, block)
		m, err := lz4.UncompressBlockWithDict(comp, out, data[:s])
		if err != nil || m != block || !bytes.Equal(out, data[s:]) {
			t.Fatalf("pierrec: %d bytes, %v", m, err)
		}
	})
}
