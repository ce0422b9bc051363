package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// stream builds a recorded client stream: hello, then items in frames.
func stream(t testing.TB, frames ...[]byte) []byte {
	t.Helper()
	w := protocol.Welcome{TimerMul: 1, InitBegin: 0, InitEnd: 100, ProgramName: "hostile"}
	b, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.Write(b)
	fw := protocol.NewFrameWriter(&out, protocol.WithIndependentFrames())
	for _, f := range frames {
		if err := fw.WriteItems(f); err != nil {
			t.Fatal(err)
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func zones(n int) []byte {
	var refs protocol.TimeRefs
	b := refs.AppendThreadContext(nil, 1)
	for i := range n {
		b = refs.AppendZoneBegin(b, int64(1000+i*10), 0x100)
		b = refs.AppendZoneEnd(b, int64(1005+i*10))
	}
	return b
}

// literalFrame is a frame whose LZ4 block is all literals, so tests can put
// any bytes (including unknown item types) in a frame.
func literalFrame(items []byte) []byte {
	blk := literalBlock(items)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(blk))), blk...)
}

func literalBlock(items []byte) []byte {
	n := len(items)
	var blk []byte
	if n < 15 {
		blk = append(blk, byte(n<<4))
	} else {
		blk = append(blk, 0xF0)
		r := n - 15
		for r >= 255 {
			blk = append(blk, 255)
			r -= 255
		}
		blk = append(blk, byte(r))
	}
	return append(blk, items...)
}

// withFrame appends a literal-only frame holding items to stream s.
func withFrame(s []byte, items []byte) []byte {
	return append(s[:len(s):len(s)], literalFrame(items)...)
}

// Every hostile stream ends with a typed error and the trace built from
// what came before the bad spot; nothing panics.
func TestHostileStreams(t *testing.T) {
	good := stream(t, zones(10))
	cases := []struct {
		name  string
		data  []byte
		want  error
		zones int
	}{
		{"truncated mid frame", good[:len(good)-7], ErrConnectionLost, 0},
		{"no terminate", good, ErrConnectionLost, 10},
		{"unknown item type", withFrame(good, []byte{200, 1, 2, 3}), ErrMalformed, 10},
		{"client-internal item type", withFrame(good, []byte{byte(protocol.SymbolCodeMetadata)}), ErrMalformed, 10},
		{"item past frame end", withFrame(good, []byte{byte(protocol.ZoneBegin), 1, 2}), ErrMalformed, 10},
		{"absurd frame size", append(good[:len(good):len(good)], 0xFF, 0xFF, 0xFF, 0x7F), ErrMalformed, 10},
		{"zero frame size", append(good[:len(good):len(good)], 0, 0, 0, 0), ErrMalformed, 10},
		{"bad lz4 offset", append(good[:len(good):len(good)], 4, 0, 0, 0, 0x0F, 0xFF, 0xFF, 0x00), ErrMalformed, 10},
		{"absurd string length", withFrame(good, []byte{byte(protocol.StringData), 1, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF}), ErrMalformed, 10},
		{"zone ended twice", stream(t, zones(3), protocol.AppendZoneEnd16(nil, 1)), ErrInstrumentation, 3},
		{"zone text without zone", stream(t, zones(2), append(protocol.AppendThreadContext(nil, 9), byte(protocol.ZoneText))), ErrInstrumentation, 2},
		{"free of unknown memory", stream(t, zones(1), protocol.AppendMemFree(nil, 5, 1, 0xdead)), ErrInstrumentation, 1},
		{"frame image twice", stream(t, zones(1), mustAppend(protocol.AppendFrameImageWithData(nil, 5, 4, 4, false, make([]byte, 8))),
			mustAppend(protocol.AppendFrameImageWithData(nil, 5, 4, 4, false, make([]byte, 8)))), ErrInstrumentation, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Replay(context.Background(), bytes.NewReader(c.data))
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if res == nil || res.Trace == nil {
				t.Fatal("no partial trace")
			}
			if n := res.Trace.ZoneCount(); n != c.zones {
				t.Errorf("%d zones kept, want %d", n, c.zones)
			}
			var file bytes.Buffer
			if err := tracefile.Write(&file, res.Trace); err != nil {
				t.Fatalf("partial trace does not save: %v", err)
			}
			back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
			if err != nil {
				t.Fatalf("partial trace does not load: %v", err)
			}
			if back.ZoneCount() != c.zones {
				t.Errorf("saved %d zones", back.ZoneCount())
			}
		})
	}
}

func mustAppend(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Cutting a real recording anywhere keeps everything before the cut.
func TestTruncatedRecording(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	prev := -1
	for _, cut := range []int{0, 1, 500, 1171, 1180, 5000, 100_000, 400_000, len(raw) / 2, len(raw) - 1} {
		res, err := Replay(context.Background(), bytes.NewReader(raw[:cut]))
		if err == nil {
			t.Fatalf("cut at %d: no error", cut)
		}
		if cut <= protocol.WelcomeSize {
			if !errors.Is(err, ErrHandshakeDropped) {
				t.Errorf("cut at %d: %v", cut, err)
			}
			continue
		}
		if !errors.Is(err, ErrConnectionLost) {
			t.Errorf("cut at %d: %v, want ErrConnectionLost", cut, err)
		}
		n := res.Trace.ZoneCount()
		if n < prev {
			t.Errorf("cut at %d keeps %d zones, fewer than a shorter cut (%d)", cut, n, prev)
		}
		prev = n
	}
	if prev <= 0 {
		t.Error("no zones kept from half a recording")
	}
}

// A memory limit stops the capture and keeps the trace.
func TestMemoryLimit(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "heavy1m.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), bytes.NewReader(raw), WithMemoryLimit(1), func(c *config) { c.progressInt = 1 })
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopMemoryLimit {
		t.Fatalf("stop = %v", res.Stop)
	}
	if n := res.Trace.ZoneCount(); n >= 1_000_000 {
		t.Errorf("kept %d zones: the limit did not stop the replay", n)
	}
}
