package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
)

// streamCounts is what decoding a whole recording yields.
type streamCounts struct {
	session  *Session
	frames   int
	decoded  int64
	items    [NumQueueTypes]int
	userMsgs int // messages whose metadata source is User (not Tracy's own)
	tracyMsg int
}

// decodeRecording decodes a c2s recording completely. limit > 0 stops after
// that many frames (for -race).
func decodeRecording(t testing.TB, data []byte, limit int) *streamCounts {
	t.Helper()
	r := bytes.NewReader(data)
	s, err := ReadSession(r)
	if err != nil {
		t.Fatal(err)
	}
	c := &streamCounts{session: s}
	fr := NewFrameReader(r, s.Size)
	var d ItemDecoder
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c.frames++
		c.decoded += int64(len(frame))
		d.Reset(frame, fr.DecodedOffset())
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			c.items[it.Type]++
			switch it.Type {
			case Message, MessageCallstack:
				c.countMsg(it.U8(9))
			case MessageColor, MessageColorCallstack:
				c.countMsg(it.U8(12))
			case MessageLiteral, MessageLiteralCallstack:
				c.countMsg(it.U8(9))
			case MessageLiteralColor, MessageLiteralColorCallstack:
				c.countMsg(it.U8(12))
			}
		}
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		if limit > 0 && c.frames >= limit {
			return c
		}
	}
	if fr.Offset() != int64(len(data)) {
		t.Fatalf("stopped at %d of %d bytes", fr.Offset(), len(data))
	}
	return c
}

func (c *streamCounts) countMsg(meta uint8) {
	if meta&0xf == 1 {
		c.tracyMsg++
	} else {
		c.userMsgs++
	}
}

func (c *streamCounts) sum(ts ...QueueType) int {
	n := 0
	for _, t := range ts {
		n += c.items[t]
	}
	return n
}

type demoJSON struct {
	ZonesTotal  int `json:"zones_total"`
	Frames      int `json:"frames"`
	FrameImages int `json:"frame_images"`
	PlotPoints  int `json:"plot_points_total"`
	Messages    int `json:"messages"`
	Allocs      int `json:"allocs"`
	Frees       int `json:"frees"`
	ZoneTexts   int `json:"zone_texts"`
	ZoneValues  int `json:"zone_values"`
	ZoneColors  int `json:"zone_colors"`
}

var decodedSizes = map[string]int64{"demo": 9059195, "demo-ondemand": 9199696, "heavy1m": 14001316, "heavy10m": 140004239}

// TestFixturesDecode decodes every real recording completely and checks the
// item counts against what the demo says it emitted.
func TestFixturesDecode(t *testing.T) {
	for _, name := range fixtures.Recordings {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
			if err != nil {
				t.Fatal(err)
			}
			var want demoJSON
			jb, err := os.ReadFile(fixtures.Path(t, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(jb, &want); err != nil {
				t.Fatal(err)
			}
			limit := 0
			if race.Enabled && name == "heavy10m" {
				limit = 60 // a prefix: the full stream takes minutes under -race
			}
			c := decodeRecording(t, data, limit)
			if limit > 0 {
				if c.frames != limit || c.items[ZoneBegin16]+c.items[ZoneBegin32]+c.items[ZoneBegin] == 0 {
					t.Fatalf("prefix: %d frames", c.frames)
				}
				return
			}
			if c.decoded != decodedSizes[name] {
				t.Errorf("decoded %d bytes, want %d", c.decoded, decodedSizes[name])
			}
			begins := c.sum(ZoneBegin, ZoneBegin32, ZoneBegin16, ZoneBeginCallstack, ZoneBeginCallstack32,
				ZoneBeginCallstack16, ZoneBeginAllocSrcLoc, ZoneBeginAllocSrcLocCallstack)
			ends := c.sum(ZoneEnd, ZoneEnd32, ZoneEnd16)
			// Tracy's main frame marks are FrameMarkMsg with name 0; the
			// demo emits no named frame sets.
			checks := []struct {
				what      string
				got, want int
			}{
				{"zone begins", begins, want.ZonesTotal},
				{"zone ends", ends, want.ZonesTotal},
				{"frame marks", c.items[FrameMarkMsg], want.Frames},
				{"frame images", c.items[FrameImage], want.FrameImages},
				{"frame image data", c.items[FrameImageData], want.FrameImages},
				{"plot points", c.sum(PlotDataInt, PlotDataFloat, PlotDataDouble), want.PlotPoints},
				{"user messages", c.userMsgs, want.Messages},
				{"allocations", c.sum(MemAlloc, MemAllocNamed, MemAllocCallstack, MemAllocCallstackNamed), want.Allocs},
				{"frees", c.sum(MemFree, MemFreeNamed, MemFreeCallstack, MemFreeCallstackNamed), want.Frees},
				{"zone texts", c.items[ZoneText], want.ZoneTexts},
				{"zone values", c.items[ZoneValue], want.ZoneValues},
				{"zone colors", c.items[ZoneColor], want.ZoneColors},
				{"terminate", c.items[Terminate], 1},
			}
			for _, ck := range checks {
				if ck.got != ck.want {
					t.Errorf("%s: got %d, want %d", ck.what, ck.got, ck.want)
				}
			}
			// Tracy adds its own system messages (3 in the normal-mode runs,
			// none in on-demand mode, which drops them before the
			// connection): every message csvexport printed is either the
			// demo's or Tracy's.
			mcsv, err := os.ReadFile(fixtures.Path(t, name+".messages.csv"))
			if err != nil {
				t.Fatal(err)
			}
			rows := bytes.Count(mcsv, []byte("\n")) - 1
			if c.userMsgs+c.tracyMsg != rows {
				t.Errorf("messages: %d user + %d Tracy, csvexport has %d", c.userMsgs, c.tracyMsg, rows)
			}
			t.Logf("%s: %d frames, %d decoded bytes, %d zones, %d Tracy messages", name, c.frames, c.decoded, begins, c.tracyMsg)
		})
	}
}

// TestFixtureTruncated cuts a real recording at many points: every cut gives
// a typed error naming an offset, never a panic.
func TestFixtureTruncated(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	data = data[:200000]
	for _, cut := range []int{0, 1, 500, 1171, 1172, 1174, 1175, 5000, 77777, 199999} {
		r := bufio.NewReader(bytes.NewReader(data[:cut]))
		s, err := ReadSession(r)
		if err == nil {
			fr := NewFrameReader(r, s.Size)
			for err == nil {
				_, err = fr.Next()
			}
		}
		var se *StreamError
		if cut > 0 && cut < len(data) && err != io.EOF && (!errors.As(err, &se) || !errors.Is(err, ErrTruncated)) {
			t.Errorf("cut %d: %v", cut, err)
		}
	}
}
