package capture

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// writeLeafStream writes the shape of `gotracy demo --heavy`: frames of
// per top-level leaf zones, one every gap ns, on one thread.
func writeLeafStream(out io.Writer, frames, per int, gap int64) error {
	fw, refs, err := startFlightStream(out, 8, "heavy")
	if err != nil {
		return err
	}
	tm := func(q protocol.QueueType, at int64) int64 { return refs.Delta(q.Spec().Time, at) }
	var b []byte
	s := int64(10_000_000)
	for f := 0; f < frames; f++ {
		b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, s), 0)
		b = refs.AppendThreadContext(b, 1)
		for range per {
			b = refs.AppendZoneBegin(b, s, 0x1010)
			b = refs.AppendZoneEnd(b, s+gap/2)
			s += gap
			if len(b) > 32<<10 {
				if err := fw.WriteItems(b); err != nil {
					return err
				}
				b = b[:0]
				b = refs.AppendThreadContext(b, 1)
			}
		}
		if f == 0 {
			b = protocol.AppendSourceLocation(b, 0x2030, 0x2010, 0x2020, 43, 0, 0, 0)
			b, _ = protocol.AppendThreadName(b, 1, "heavy")
			b, _ = protocol.AppendStringData(b, 0x2010, "tree")
			b, _ = protocol.AppendStringData(b, 0x2020, "heavy.go")
			b, _ = protocol.AppendStringData(b, 0x2030, "tiny")
		}
	}
	b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, s), 0)
	b = protocol.AppendTerminate(b)
	if err := fw.WriteItems(b); err != nil {
		return err
	}
	return fw.Flush()
}

// TestFlightRecorderAllocPerZone: a --keep capture of a long heavy
// stream (40M zones at 14M zones/s, a 0.3 s window of 4.2M zones, 93 MB)
// allocates its window once and then about nothing per zone: the chunks
// the trims drop are reused for new zones, and the final trim's exact
// copy of the window writes into the chunks it lets go instead of new
// ones. Everything the capture allocates counts (runtime.MemStats), not
// only zone chunks. Without the compaction's reuse the final trim alone
// allocated another window (198 MB in all, where the bound is 133 MB).
func TestFlightRecorderAllocPerZone(t *testing.T) {
	if race.Enabled {
		t.Skip("allocations under -race are not the program's")
	}
	frames, per, gap := 400, 100_000, int64(70)
	if testing.Short() {
		frames = 240
	}
	var stream bytes.Buffer
	if err := writeLeafStream(&stream, frames, per, gap); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Replay(context.Background(), bytes.NewReader(stream.Bytes()), WithLocalSources(false),
		WithFlightRecorder(FlightRecorder{Keep: 300 * time.Millisecond}), WithProgress(100*time.Millisecond, func(Stats) {}))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := range res.Trace.Threads {
		kept += res.Trace.Threads[i].Zones.Len()
	}
	zones := frames * per
	if kept >= zones/4 {
		t.Fatalf("kept %d of %d zones: the window did not move", kept, zones)
	}
	const zoneBytes = 22
	alloc := int64(after.TotalAlloc - before.TotalAlloc)
	window := int64(kept) * zoneBytes
	// The window once, a few chunks (the frame being received, the
	// final copy's first and last, the free lists' slack) and a quarter
	// of a byte per zone streamed (a 22-byte zone: about 1 %).
	bound := window + 6*model.ZoneChunkLen*zoneBytes + int64(zones)/4
	t.Logf("%d zones streamed, %d kept (%.1f MB); %.1f MB allocated, %.2f bytes a zone beyond the window (bound %.1f MB)",
		zones, kept, float64(window)/(1<<20), float64(alloc)/(1<<20), float64(alloc-window)/float64(zones), float64(bound)/(1<<20))
	if alloc > bound {
		t.Errorf("the capture allocated %.1f MB for a %.1f MB window over %d zones, want at most %.1f MB (window + 6 chunks + 0.25 B a zone)",
			float64(alloc)/(1<<20), float64(window)/(1<<20), zones, float64(bound)/(1<<20))
	}
}
