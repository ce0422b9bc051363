package protocol

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRoundTripEveryType encodes every queue type with the generated
// encoders, many times with random values, and decodes it back.
func TestRoundTripEveryType(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[QueueType]int{}
	for round := 0; round < 50; round++ {
		v := func() uint64 {
			switch rng.IntN(4) {
			case 0:
				return 0
			case 1:
				return ^uint64(0)
			}
			return rng.Uint64()
		}
		s := func() string {
			switch rng.IntN(3) {
			case 0:
				return strings.Repeat("x", rng.IntN(256))
			case 1:
				return strings.Repeat("y", 256+rng.IntN(1000))
			}
			return strings.Repeat("z", rng.IntN(70000))
		}
		var stream []byte
		var wants []func(Item)
		generatedEncodings(v, s, func(typ QueueType, b []byte, err error, fields []uint64, ptr uint64, payload string) {
			sp := typ.Spec()
			if err != nil {
				// Only lengths outside the variant's range may fail.
				ok := errors.Is(err, ErrTooLong) && (sp.Len == LenString8 && len(payload) > 255 ||
					sp.Len == LenString16 && (len(payload) < 256 || len(payload) > 65535) ||
					sp.Len == LenKey16 && len(payload) > 65535)
				if !ok || len(b) != 0 {
					t.Errorf("%v: len %d: %v", typ, len(payload), err)
				}
				return
			}
			seen[typ]++
			n, err := ItemSize(b)
			if err != nil || n != len(b) || b[0] != byte(typ) {
				t.Errorf("%v: ItemSize %d, %v; encoded %d bytes", typ, n, err, len(b))
				return
			}
			if !sp.Variable() && len(b) != sp.Size {
				t.Errorf("%v: %d bytes, want %d", typ, len(b), sp.Size)
			}
			stream = append(stream, b...)
			wants = append(wants, func(it Item) {
				if it.Type != typ || !bytes.Equal(it.Raw, b) {
					t.Errorf("%v: decoded as %v", typ, it.Type)
					return
				}
				if sp.Variable() {
					if string(it.Payload()) != payload || (sp.Len >= LenKey16 && it.Ptr() != ptr) {
						t.Errorf("%v: payload/ptr mismatch", typ)
					}
					return
				}
				for i, f := range sp.Fields {
					if got := it.Field(f); got != fields[i] {
						t.Errorf("%v.%s = %#x, want %#x", typ, f.Name, got, fields[i])
					}
				}
			})
		})
		// Decode all items of the round as one stream (ignoring the frame
		// size limit, which the decoder does not enforce).
		var d ItemDecoder
		d.Reset(stream, 0)
		i := 0
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			if i < len(wants) {
				wants[i](it)
			}
			i++
		}
		if d.Err() != nil || i != len(wants) {
			t.Fatalf("decoded %d of %d items: %v", i, len(wants), d.Err())
		}
	}
	for typ := range QueueType(NumQueueTypes) {
		if typ.Valid() && seen[typ] == 0 {
			t.Errorf("%v never encoded", typ)
		}
	}
}

func TestItemDecoderErrors(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want error
		typ  QueueType
	}{
		{[]byte{65}, ErrUnknownItem, 65},
		{[]byte{132}, ErrUnknownItem, 132},
		{[]byte{255, 1, 2}, ErrUnknownItem, 255},
		{[]byte{byte(ZoneBegin), 1, 2}, ErrTruncated, ZoneBegin},
		{[]byte{byte(SingleStringData8), 5, 'a'}, ErrTruncated, SingleStringData8},
		{[]byte{byte(SingleStringData), 0}, ErrTruncated, SingleStringData},
		{append([]byte{byte(FrameImageData)}, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), ErrTruncated, FrameImageData},
	} {
		var d ItemDecoder
		in := append(AppendZoneEnd16(nil, 5), c.in...)
		d.Reset(in, 100)
		n := 0
		for _, ok := d.Next(); ok; _, ok = d.Next() {
			n++
		}
		var se *StreamError
		if n != 1 || !errors.As(d.Err(), &se) || !errors.Is(d.Err(), c.want) || se.Offset != 103 || !se.HasType || se.Type != c.typ {
			t.Errorf("% x: %d items, %v", c.in, n, d.Err())
		}
		if _, ok := d.Next(); ok {
			t.Error("Next after error")
		}
	}
}

// TestCompactTimes checks worked examples of the compact encodings and that every
// range boundary round-trips through the variant it forces.
func TestCompactTimes(t *testing.T) {
	for _, c := range []struct {
		d     int64
		w     CompactWidth
		field int64
	}{
		{0, Compact16, 0}, {500, Compact16, 500}, {65535, Compact16, 65535}, {65536, Compact32, 0},
		{1002000000, Compact32, 1001934464}, {CompactOff32 - 1, Compact32, 4294967295},
		{CompactOff32, Compact64, 0}, {5000000000, Compact64, 704967168}, {-100, Compact64, -100},
		{-1 << 63, Compact64, -1 << 63},
	} {
		w, f := EncodeCompact(c.d)
		if w != c.w || f != c.field {
			t.Errorf("EncodeCompact(%d) = %d,%d want %d,%d", c.d, w, f, c.w, c.field)
		}
		if back := DecodeCompact(w, f); back != c.d {
			t.Errorf("DecodeCompact(%d,%d) = %d, want %d", w, f, back, c.d)
		}
	}
}

// TestTimeRefsRoundTrip drives the encoder and decoder sides of TimeRefs
// with the same random event sequence over all four references.
func TestTimeRefsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var enc, dec TimeRefs
	var buf []byte
	var want []int64
	now := int64(1 << 40)
	step := func() int64 {
		switch rng.IntN(5) {
		case 0:
			now += int64(rng.IntN(65536))
		case 1:
			now += int64(rng.IntN(1 << 33))
		case 2:
			now += 5000000000 + int64(rng.IntN(1<<20))
		case 3:
			now -= int64(rng.IntN(1000))
		default:
			now += int64(rng.IntN(20))
		}
		return now
	}
	for i := 0; i < 20000; i++ {
		switch rng.IntN(9) {
		case 0:
			buf = enc.AppendThreadContext(buf, uint32(rng.IntN(4)+1))
		case 1:
			t := step()
			buf = enc.AppendZoneBegin(buf, t, 77)
			want = append(want, t)
		case 2:
			t := step()
			buf = enc.AppendZoneEnd(buf, t)
			want = append(want, t)
		case 3:
			t := step()
			buf = enc.AppendZoneBeginCallstack(buf, t, 78)
			want = append(want, t)
		case 4:
			t := step()
			buf = AppendPlotDataInt(buf, 5, enc.Delta(TimeThread, t), 1)
			want = append(want, t)
		case 5:
			t := step()
			buf = AppendMemFree(buf, enc.Delta(TimeSerial, t), 1, 2)
			want = append(want, t)
		case 6:
			t := step()
			buf = enc.AppendCallstackSample(buf, 9, t)
			want = append(want, t)
		case 7:
			t := step()
			buf = enc.AppendCallstackSampleContextSwitch(buf, 9, t)
			want = append(want, t)
		case 8:
			t := step()
			buf = AppendGpuTime(buf, enc.Delta(TimeGPU, t), 1, 0)
			want = append(want, t)
		}
		if rng.IntN(50) == 0 {
			t := step()
			buf = AppendFrameMarkMsg(buf, enc.Delta(TimeAbs, t), 0)
			want = append(want, t)
		}
	}
	var d ItemDecoder
	d.Reset(buf, 0)
	i := 0
	variants := map[QueueType]bool{}
	for it, ok := d.Next(); ok; it, ok = d.Next() {
		variants[it.Type] = true
		tm, ok := dec.Time(it)
		if it.Type == ThreadContext {
			if ok || dec.Thread != 0 {
				t.Fatal("ThreadContext must reset R_T and carry no time")
			}
			continue
		}
		if !ok || tm != want[i] {
			t.Fatalf("item %d %v: time %d, %v; want %d", i, it.Type, tm, ok, want[i])
		}
		i++
	}
	if d.Err() != nil || i != len(want) || dec != enc {
		t.Fatalf("%d of %d times, %v; refs %+v vs %+v", i, len(want), d.Err(), dec, enc)
	}
	for _, typ := range []QueueType{ZoneBegin, ZoneBegin32, ZoneBegin16, ZoneEnd, ZoneEnd32, ZoneEnd16,
		CallstackSample, CallstackSample32, CallstackSample16, CallstackSampleContextSwitch16} {
		if !variants[typ] {
			t.Errorf("%v never produced", typ)
		}
	}
}

// TestWorkedExampleFrame decodes the first frame of a worked example byte for byte.
func TestWorkedExampleFrame(t *testing.T) {
	wire := unhex(t, `28000000 f017 4b34120000 14804eb83b 0010000055550000 1bf401
		53c090c83b00000000 0000000000000000`)
	fr := NewFrameReader(bytes.NewReader(wire), 1171)
	frame, err := fr.Next()
	if err != nil {
		t.Fatal(err)
	}
	var refs TimeRefs
	var d ItemDecoder
	d.Reset(frame, 0)
	var got []string
	for it, ok := d.Next(); ok; it, ok = d.Next() {
		tm, _ := refs.Time(it)
		got = append(got, it.Type.String())
		switch it.Type {
		case ZoneBegin32:
			if tm != 1002000000 || it.U64(5) != 0x0000555500001000 {
				t.Errorf("ZoneBegin32 t=%d", tm)
			}
		case ZoneEnd16:
			if tm != 1002000500 {
				t.Errorf("ZoneEnd16 t=%d", tm)
			}
		case FrameMarkMsg:
			if tm != 1003000000 {
				t.Errorf("FrameMarkMsg t=%d", tm)
			}
		}
	}
	if strings.Join(got, " ") != "ThreadContext ZoneBegin32 ZoneEnd16 FrameMarkMsg" || d.Err() != nil {
		t.Errorf("items %v, %v", got, d.Err())
	}
	// And the encoder side produces the same 38 bytes.
	var enc TimeRefs
	b := enc.AppendThreadContext(nil, 0x1234)
	b = enc.AppendZoneBegin(b, 1002000000, 0x0000555500001000)
	b = enc.AppendZoneEnd(b, 1002000500)
	b = AppendFrameMarkMsg(b, 1003000000, 0)
	if !bytes.Equal(b, frame) {
		t.Errorf("encoded\n% x\nwant\n% x", b, frame)
	}
}

func TestPayloadHelpers(t *testing.T) {
	for _, n := range []int{0, 255, 256, 65535} {
		s := strings.Repeat("s", n)
		b, err := AppendSingleString(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		want := SingleStringData8
		if n > 255 {
			want = SingleStringData
		}
		var d ItemDecoder
		d.Reset(b, 0)
		it, ok := d.Next()
		if !ok || it.Type != want || string(it.Payload()) != s {
			t.Errorf("len %d: %v", n, it.Type)
		}
		b, _ = AppendSecondString(nil, s)
		if QueueType(b[0]) != want+1 {
			t.Errorf("second string len %d: %v", n, QueueType(b[0]))
		}
	}
	if _, err := AppendSingleString(nil, strings.Repeat("s", 65536)); !errors.Is(err, ErrTooLong) {
		t.Error(err)
	}
	loc := SourceLocationData{Color: 0xff00ff, Line: 1000, Function: "capi_named_fn", File: "demo.cpp", Name: "capi_zone_t0"}
	b, err := AppendAllocSourceLocation(nil, 1, &loc)
	if err != nil {
		t.Fatal(err)
	}
	it := Item{Type: QueueType(b[0]), Raw: b}
	back, err := ParseSourceLocationPayload(it.Payload())
	if err != nil || back != loc {
		t.Errorf("%+v %v", back, err)
	}
	b, _ = AppendCallstackPayloadFrames(nil, 0, []uint64{1, 2, 3})
	var addrs []uint64
	if n := CallstackFrames(Item{Type: CallstackPayload, Raw: b}, func(_ int, a uint64) { addrs = append(addrs, a) }); n != 3 || addrs[2] != 3 {
		t.Errorf("callstack %v", addrs)
	}
	fr := []AllocFrame{{Line: 3, Name: "f", File: "x.lua"}, {Line: 9, Name: "", File: "y"}}
	b, _ = AppendCallstackAllocPayloadFrames(nil, 0, fr)
	got, err := ParseCallstackAllocPayload(Item{Type: CallstackAllocPayload, Raw: b}.Payload())
	if err != nil || len(got) != 2 || got[0] != fr[0] || got[1] != fr[1] {
		t.Errorf("alloc frames %+v %v", got, err)
	}
	ans, err := AppendCallstackFrameAnswer(nil, 0x1234, "./app", []CallstackFrameInfo{{Name: "inl", File: "a.go"}, {Name: "main", File: "a.go", Line: 3, SymAddr: 0x1000, SymLen: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var d ItemDecoder
	d.Reset(ans, 0)
	for it, ok := d.Next(); ok; it, ok = d.Next() {
		types = append(types, it.Type.String())
	}
	if strings.Join(types, " ") != "SingleStringData8 CallstackFrameSize SingleStringData8 SecondStringData8 CallstackFrame SingleStringData8 SecondStringData8 CallstackFrame" {
		t.Errorf("answer %v", types)
	}
	if _, err := AppendCallstackFrameAnswer(nil, 1, "x", nil); !errors.Is(err, ErrTooLong) {
		t.Error("empty frame answer accepted")
	}
	img := make([]byte, 8*4/2)
	b, err = AppendFrameImageWithData(nil, 3, 8, 4, true, img)
	if err != nil || len(b) != 13+16+10 {
		t.Errorf("frame image %d %v", len(b), err)
	}
}
