package capture

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// A heavy synthetic stream, shaped like `gotracy demo --heavy` (many tiny
// top-level zones per frame) with one nested tree per frame: frame f
// starts at f*heavyFrame+heavyFirst and holds heavyPer zones: a tree of an
// outer zone with two children, then heavyPer-3 leaves 100 ns apart.
const (
	heavyFrame = 10_000_000
	heavyFirst = 10_000_000
	heavyPer   = 2000
)

func writeHeavyStream(out io.Writer, frames int) error {
	fw, refs, err := startFlightStream(out, 8, "heavy")
	if err != nil {
		return err
	}
	tm := func(q protocol.QueueType, at int64) int64 { return refs.Delta(q.Spec().Time, at) }
	var b []byte
	var ferr error
	must := func(bb []byte, err error) []byte {
		if err != nil && ferr == nil {
			ferr = err
		}
		return bb
	}
	for f := 0; f < frames; f++ {
		s := int64(heavyFirst + f*heavyFrame)
		b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, s), 0)
		b = refs.AppendThreadContext(b, 1)
		b = refs.AppendZoneBegin(b, s+10, 0x1000)
		b = refs.AppendZoneBegin(b, s+20, 0x1010)
		b = refs.AppendZoneEnd(b, s+30)
		b = refs.AppendZoneBegin(b, s+40, 0x1010)
		b = refs.AppendZoneEnd(b, s+50)
		b = refs.AppendZoneEnd(b, s+60)
		for i := range int64(heavyPer - 3) {
			b = refs.AppendZoneBegin(b, s+100+i*100, 0x1010)
			b = refs.AppendZoneEnd(b, s+150+i*100)
		}
		if f == 0 {
			b = protocol.AppendSourceLocation(b, 0, 0x2010, 0x2020, 42, 0, 0, 0)
			b = protocol.AppendSourceLocation(b, 0x2030, 0x2010, 0x2020, 43, 0, 0, 0)
			b = must(protocol.AppendThreadName(b, 1, "heavy"))
			b = must(protocol.AppendStringData(b, 0x2010, "tree"))
			b = must(protocol.AppendStringData(b, 0x2020, "heavy.go"))
			b = must(protocol.AppendStringData(b, 0x2030, "tiny"))
		}
		if len(b) > 32<<10 {
			if err := fw.WriteItems(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, int64(heavyFirst+frames*heavyFrame)), 0)
	b = protocol.AppendTerminate(b)
	if err := fw.WriteItems(b); err != nil {
		return err
	}
	if err := fw.Flush(); err != nil {
		return err
	}
	return ferr
}

// checkHeavyWindow checks a trace of the heavy stream holds exactly the
// frames from first (a frame index) to the last mark, and exactly their
// zones, each whole.
func checkHeavyWindow(t *testing.T, tr *model.Trace, first, frames int) {
	t.Helper()
	fs := tr.FrameSets[0].Frames
	if len(fs) != frames+1-first {
		t.Fatalf("%d frames kept, want %d", len(fs), frames+1-first)
	}
	for i := range fs {
		if want := int64(heavyFirst + (first+i)*heavyFrame); fs[i].Start != want {
			t.Fatalf("frame %d starts at %d, want %d", i, fs[i].Start, want)
		}
	}
	var zs *model.ZoneList
	for i := range tr.Threads {
		if tr.Threads[i].Zones.Len() > 0 {
			zs = &tr.Threads[i].Zones
		}
	}
	if zs == nil {
		t.Fatal("no zones kept")
	}
	if want := (frames - first) * heavyPer; zs.Len() != want {
		t.Fatalf("%d zones kept, want %d (the kept frames' zones, no more)", zs.Len(), want)
	}
	// Zone k of frame f sits at index (f-first)*heavyPer + k.
	for f := first; f < frames; f++ {
		i := (f - first) * heavyPer
		s := int64(heavyFirst + f*heavyFrame)
		z := zs.At(i)
		if z.Start() != s+10 || zs.NextOf(z) != i+3 {
			t.Fatalf("frame %d: outer zone at %d starts %d, subtree end %d; want %d, %d (zones whole)", f, i, z.Start(), zs.NextOf(z), s+10, i+3)
		}
		if c := zs.At(i + 2); c.Start() != s+40 || zs.NextOf(c) != i+3 {
			t.Fatalf("frame %d: second child wrong (start %d, next %d)", f, c.Start(), zs.NextOf(c))
		}
		last := zs.At(i + heavyPer - 1)
		if want := s + 100 + int64(heavyPer-4)*100; last.Start() != want || zs.NextOf(last) != i+heavyPer {
			t.Fatalf("frame %d: last leaf starts %d next %d, want %d, %d", f, last.Start(), zs.NextOf(last), want, i+heavyPer)
		}
	}
	roots := 0
	for range model.Roots(zs) {
		roots++
	}
	if want := (frames - first) * (heavyPer - 2); roots != want {
		t.Fatalf("%d top-level zones, want %d", roots, want)
	}
}

// TestFlightRecorderTrimCost: over a long heavy stream (many chunks' worth
// of zones per window), the trims visit only the zones they drop (plus one
// per trim and thread: the first one kept), never the window; the chunks
// held stay within the window plus two frames plus two chunks; and the
// window saved at the end is exact, every zone whole.
func TestFlightRecorderTrimCost(t *testing.T) {
	frames := 4000 // 8M zones
	if race.Enabled || testing.Short() {
		frames = 1200
	}
	const window = 300 // 600K zones: more than two chunks
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeHeavyStream(pw, frames)) }()
	defer pr.Close()
	maxFoot, trims := int64(0), 0
	flightVisit, flightDropped, flightTrims = 0, 0, 0
	flightFootprint = func(b int64) { maxFoot = max(maxFoot, b) }
	defer func() { flightFootprint = nil }()
	allocated := model.ZoneChunkBytesAllocated()
	res, err := Replay(context.Background(), pr, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: window}))
	allocated = model.ZoneChunkBytesAllocated() - allocated
	flightFootprint = nil
	if err != nil {
		t.Fatal(err)
	}
	trims = flightTrims
	// The final trim compacts (once, O(window)); count the running ones.
	if flightVisit > flightDropped+int64(trims) {
		t.Errorf("trims visited %d zones to drop %d in %d trims: more than what they dropped", flightVisit, flightDropped, trims)
	}
	if flightDropped < int64((frames-window-1)*heavyPer) {
		t.Errorf("trims dropped %d zones, want at least %d", flightDropped, (frames-window-1)*heavyPer)
	}
	const zoneBytes = 22
	// The zones go at every frame: the window, the frame being received
	// and the one the window's first frame just left, plus the unused
	// room of the last chunk and the dropped part of the first.
	bound := int64(window+2)*heavyPer*zoneBytes + 2*model.ZoneChunkLen*zoneBytes
	if maxFoot > bound || maxFoot == 0 {
		t.Errorf("the zone chunks held up to %d bytes, want 1..%d (window + slack + two chunks)", maxFoot, bound)
	}
	// Chunks the trims let go are reused for new zones (no snapshot holds
	// them), so the whole stream allocates the window's chunks, the
	// final trim's exact copy of the window and a few chunks, not the
	// stream (8M zones, 176 MB).
	if abound := 2*int64(window+2)*heavyPer*zoneBytes + 6*model.ZoneChunkLen*zoneBytes; allocated > abound {
		t.Errorf("the stream allocated %d MB of zone chunks, want at most %d MB (two windows + six chunks)", allocated>>20, abound>>20)
	}
	t.Logf("%d trims dropped %d zones visiting %d; zone chunks held at most %.1f MB (window %.1f MB), %.1f MB allocated",
		trims, flightDropped, flightVisit, float64(maxFoot)/(1<<20), float64(window*heavyPer*zoneBytes)/(1<<20), float64(allocated)/(1<<20))
	// KeepFrames counts marks: the window is the last 300 marks, of which
	// the last one opens an empty frame.
	checkHeavyWindow(t, res.Trace, frames+1-window, frames)
	for i := range res.Trace.Threads {
		if res.Trace.Threads[i].Zones.Shifted() {
			t.Fatal("the finished trace's zone list still has an origin")
		}
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, res.Trace); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	checkHeavyWindow(t, back, frames+1-window, frames)
}

// TestFlightSnapshotsWhileTrimming: snapshots asked for again and again
// while the recorder trims hold the window of their moment, saved whole
// (the writer reads a list with an origin), and are never written by the
// capture afterwards: each one saves to the same bytes when the capture
// has ended as when it was taken (under -race, the saves run while the
// capture goes on).
func TestFlightSnapshotsWhileTrimming(t *testing.T) {
	frames := 2400
	if race.Enabled || testing.Short() {
		frames = 900
	}
	const window = 250
	var raw bytes.Buffer
	if err := writeHeavyStream(&raw, frames); err != nil {
		t.Fatal(err)
	}
	req := make(chan chan<- *model.Trace)
	type taken struct {
		tr  *model.Trace
		img []byte
		err error
	}
	done := make(chan taken, 16)
	nsnap := 0
	r := &multiSnapReader{r: bytes.NewReader(raw.Bytes()), every: raw.Len() / 7, fire: func() {
		reply := make(chan *model.Trace, 1)
		req <- reply
		nsnap++
		go func() {
			tr := <-reply
			var b bytes.Buffer
			err := tracefile.Write(&b, tr) // while the capture goes on
			done <- taken{tr, b.Bytes(), err}
		}()
	}}
	res, err := Replay(context.Background(), r, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: window}), WithSnapshots(req))
	if err != nil {
		t.Fatal(err)
	}
	if nsnap < 5 {
		t.Fatalf("only %d snapshots taken", nsnap)
	}
	for range nsnap {
		s := <-done
		if s.err != nil {
			t.Fatal(s.err)
		}
		var again bytes.Buffer
		if err := tracefile.Write(&again, s.tr); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), s.img) {
			t.Fatal("a snapshot saves differently after the capture went on: the capture wrote what it shares")
		}
		back, err := tracefile.Read(bytes.NewReader(s.img), int64(len(s.img)))
		if err != nil {
			t.Fatal(err)
		}
		fs := back.FrameSets[0].Frames
		k := 0 // the first frame of a mark (before any trim, the one before the first mark is there too)
		if back.Metadata.FrameOffset == 0 {
			for k < len(fs) && fs[k].Start < heavyFirst {
				k++
			}
		}
		if len(fs) > window || (len(fs) < window && back.Metadata.FrameOffset != 0) || k == len(fs) {
			t.Fatalf("snapshot has %d frames (%d dropped), want %d (or all so far)", len(fs), back.Metadata.FrameOffset, window)
		}
		// The snapshot was taken between transport frames: its last frame
		// may be partly received, the others are whole.
		first := int((fs[k].Start - heavyFirst) / heavyFrame)
		checkPrefixWindow(t, back, first, first+len(fs)-k-1)
	}
	checkHeavyWindow(t, res.Trace, frames+1-window, frames)
}

// checkPrefixWindow checks the zones of frames first..last-1 of a heavy
// snapshot are there whole, from index 0.
func checkPrefixWindow(t *testing.T, tr *model.Trace, first, last int) {
	t.Helper()
	var zs *model.ZoneList
	for i := range tr.Threads {
		if tr.Threads[i].Zones.Len() > 0 {
			zs = &tr.Threads[i].Zones
		}
	}
	if zs == nil || zs.Len() < (last-first)*heavyPer {
		t.Fatalf("snapshot holds too few zones for frames %d..%d", first, last)
	}
	for f := first; f < last; f++ {
		i := (f - first) * heavyPer
		z := zs.At(i)
		if z.Start() != int64(heavyFirst+f*heavyFrame)+10 || zs.NextOf(z) != i+3 {
			t.Fatalf("snapshot frame %d: outer zone starts %d, subtree end %d", f, z.Start(), zs.NextOf(z))
		}
	}
}

// multiSnapReader asks for a snapshot every `every` bytes, holding the
// reader first so that the consumer has applied what was read.
type multiSnapReader struct {
	r       *bytes.Reader
	n, next int
	every   int
	fire    func()
}

func (s *multiSnapReader) Read(p []byte) (int, error) {
	if s.next == 0 {
		s.next = s.every
	}
	if s.n >= s.next && s.r.Len() > 0 {
		s.next += s.every
		s.fire()
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	n, err := s.r.Read(p)
	s.n += n
	return n, err
}
