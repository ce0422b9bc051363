package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// Synthetic stream for the flight recorder: frame f starts at
// frameStart(f), holds one outer zone with three inner zones, a message, a
// plot point and an allocation freed within the frame; every slowEvery-th
// frame lasts 20 ms instead of 1 ms. One allocation, at the start, is never
// freed. Times are ticks = ns (TimerMul 1, InitBegin 0).
const (
	flFrame     = 1_000_000
	flSlow      = 20_000_000
	flSlowEvery = 997
	flFirst     = 10_000_000
)

func flightStarts(frames int) []int64 {
	s := make([]int64, frames+1)
	t := int64(flFirst)
	for f := 0; f <= frames; f++ {
		s[f] = t
		if f%flSlowEvery == flSlowEvery-1 {
			t += flSlow
		} else {
			t += flFrame
		}
	}
	return s
}

func flightStream(t testing.TB, frames int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeFlightStream(&buf, frames); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFlightStream writes the recording of the synthetic stream to out.
func writeFlightStream(out io.Writer, frames int) error {
	return writeFlightStreamOf(out, frames, false)
}

// startFlightStream writes the handshake of the synthetic streams the
// flight-recorder tests replay (a Welcome with timer multiplier 1) and
// returns the frame writer and time references their items go through.
func startFlightStream(out io.Writer, pid uint64, program string) (*protocol.FrameWriter, *protocol.TimeRefs, error) {
	w := protocol.Welcome{TimerMul: 1, InitBegin: 0, InitEnd: 1_000_000, Resolution: 10, Epoch: 1_750_000_000,
		PID: pid, CPUArch: protocol.CPUArchX64, ProgramName: program, HostInfo: "OS: test"}
	hello, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := out.Write(hello); err != nil {
		return nil, nil, err
	}
	return protocol.NewFrameWriter(out), new(protocol.TimeRefs), nil
}

// writeFlightStreamOf writes the synthetic stream; with sys, every frame
// also holds what system tracing and GPU contexts send: thread 1 running
// on CPU f%2 from s+50 to s+950 (a context switch in and out), a sampled
// call stack with a kernel frame at s+300, a context-switch sample at
// s+400, and a GPU zone from s+20 to s+800 on the CPU whose GPU
// timestamps (the same clock) arrive in the next frame.
func writeFlightStreamOf(out io.Writer, frames int, sys bool) error {
	fw, refs, err := startFlightStream(out, 7, "flight")
	if err != nil {
		return err
	}
	tm := func(q protocol.QueueType, at int64) int64 { return refs.Delta(q.Spec().Time, at) }
	starts := flightStarts(frames)
	var b []byte
	var ferr error
	must := func(bb []byte, err error) []byte {
		if err != nil && ferr == nil {
			ferr = err
		}
		return bb
	}
	b = refs.AppendThreadContext(b, 1)
	b = protocol.AppendMemAlloc(b, tm(protocol.MemAlloc, flFirst-100), 1, 0xdead0000, 4096) // never freed
	if sys {
		b = protocol.AppendGpuNewContext(b, flFirst-1000, flFirst-1000, 0, 1, 0, 0, model.GpuVulkan)
	}
	for f := 0; f < frames; f++ {
		s := starts[f]
		end := starts[f+1]
		b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, s), 0)
		if sys {
			if f > 0 { // the previous frame's GPU timestamps
				p := starts[f-1]
				b = protocol.AppendGpuTime(b, refs.Delta(protocol.TimeGPU, p+20), uint16(2*(f-1)), 0)
				b = protocol.AppendGpuTime(b, refs.Delta(protocol.TimeGPU, p+800), uint16(2*(f-1)+1), 0)
			}
			b = protocol.AppendGpuZoneBeginSerial(b, refs.Delta(protocol.TimeSerial, s+20), 1, uint16(2*f), 0, 0x1010)
			b = protocol.AppendGpuZoneEndSerial(b, refs.Delta(protocol.TimeSerial, s+800), 1, uint16(2*f+1), 0)
			b = protocol.AppendContextSwitch(b, refs.Delta(protocol.TimeContext, s+50), 0, 1, uint8(f%2), 0, 0, 0, 0, 0)
			b = must(protocol.AppendCallstackPayloadFrames(b, 1, []uint64{0xFFFFFFFF81000000, 0x400}))
			b = refs.AppendCallstackSample(b, 1, s+300)
			b = must(protocol.AppendCallstackPayloadFrames(b, 2, []uint64{0x500}))
			b = refs.AppendCallstackSampleContextSwitch(b, 1, s+400)
			b = protocol.AppendContextSwitch(b, refs.Delta(protocol.TimeContext, s+950), 1, 0, uint8(f%2), 0, 0, 0, 0, 0)
		}
		b = refs.AppendThreadContext(b, 1)
		b = refs.AppendZoneBegin(b, s+10, 0x1000)
		for i := range int64(3) {
			b = refs.AppendZoneBegin(b, s+100+i*1000, 0x1010)
			b = refs.AppendZoneEnd(b, s+600+i*1000)
		}
		b = refs.AppendZoneEnd(b, end-100)
		b = protocol.AppendMessageLiteral(b, tm(protocol.MessageLiteral, s+500), 0x3000<<8)
		b = protocol.AppendPlotDataInt(b, 0x4000, tm(protocol.PlotDataInt, s+700), int64(f))
		b = protocol.AppendMemAlloc(b, tm(protocol.MemAlloc, s+200), 1, 0x10000+uint64(f%64)*64, 64)
		b = protocol.AppendMemFree(b, tm(protocol.MemFree, s+800), 1, 0x10000+uint64(f%64)*64)
		if f == 0 {
			// The answers to what the first frame made the server ask.
			b = protocol.AppendSourceLocation(b, 0, 0x2010, 0x2020, 42, 0, 0, 0)
			b = protocol.AppendSourceLocation(b, 0x2030, 0x2010, 0x2020, 43, 0, 0, 0)
			b = must(protocol.AppendThreadName(b, 1, "main"))
			b = must(protocol.AppendStringData(b, 0x2010, "frame"))
			b = must(protocol.AppendStringData(b, 0x2020, "flight.go"))
			b = must(protocol.AppendStringData(b, 0x2030, "inner"))
			b = must(protocol.AppendStringData(b, 0x3000, "tick"))
			b = must(protocol.AppendPlotName(b, 0x4000, "counter"))
		}
		if len(b) > 32<<10 {
			if err := fw.WriteItems(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = protocol.AppendFrameMarkMsg(b, tm(protocol.FrameMarkMsg, starts[frames]), 0)
	b = protocol.AppendTerminate(b)
	if err := fw.WriteItems(b); err != nil {
		return err
	}
	if err := fw.Flush(); err != nil {
		return err
	}
	return ferr
}

// keptFrames is the frame marks a flight recorder of frames must keep.
func wantFrames(frames, keep int, keepSlow bool) []int64 {
	starts := flightStarts(frames) // marks at starts[0..frames]
	first := frames + 1 - keep
	var want []int64
	for f := 0; f <= frames; f++ {
		slow := f < frames && f%flSlowEvery == flSlowEvery-1
		if f >= first || (keepSlow && slow) {
			want = append(want, starts[f])
		}
	}
	return want
}

func checkWindow(t *testing.T, tr *model.Trace, want []int64) {
	t.Helper()
	got := tr.FrameSets[0].Frames
	if len(got) != len(want) {
		t.Fatalf("%d base frames kept, want %d", len(got), len(want))
	}
	kept := map[int64]bool{}
	for i := range got {
		if got[i].Start != want[i] {
			t.Fatalf("frame %d starts at %d, want %d", i, got[i].Start, want[i])
		}
		kept[want[i]] = true
	}
	// Every frame's outer zone, whole (three children), and nothing else.
	var th *model.Thread
	for i := range tr.Threads {
		if tr.Threads[i].Zones.Len() > 0 {
			th = &tr.Threads[i]
		}
	}
	if th == nil {
		t.Fatal("no zones kept")
	}
	outer := 0
	model.Walk(&th.Zones, func(i, depth int) bool {
		z := th.Zones.At(i)
		if depth == 0 {
			outer++
			if !kept[z.Start()-10] {
				t.Fatalf("outer zone at %d belongs to no kept frame", z.Start())
			}
			if n := int(z.Next()) - i - 1; n != 3 {
				t.Fatalf("outer zone at %d has %d descendants, want 3 (zones must be kept whole)", z.Start(), n)
			}
			if z.End() < 0 {
				t.Fatalf("outer zone at %d never ends", z.Start())
			}
		}
		return true
	})
	// The last mark opens a frame with no zones in it.
	if outer != len(want)-1 {
		t.Errorf("%d outer zones, want %d", outer, len(want)-1)
	}
	msgs := 0
	for _, m := range tr.Messages {
		if !kept[m.Time-500] {
			t.Fatalf("message at %d belongs to no kept frame", m.Time)
		}
		msgs++
	}
	if msgs != len(want)-1 {
		t.Errorf("%d messages, want %d", msgs, len(want)-1)
	}
	if len(tr.Plots) != 1 || len(tr.Plots[0].Points) != len(want)-1 {
		t.Errorf("plot points: %d plots, want 1 with %d points", len(tr.Plots), len(want)-1)
	}
	evs := tr.MemPools[0].Events
	if len(evs) != len(want) { // one per kept frame and the leak
		t.Errorf("%d allocations, want %d", len(evs), len(want))
	}
	if evs[0].TimeFree != -1 || evs[0].Ptr != 0xdead0000 {
		t.Errorf("the allocation never freed was dropped: first event %+v", evs[0])
	}
	for _, ev := range evs[1:] {
		if !kept[ev.TimeAlloc-200] || ev.TimeFree != ev.TimeAlloc+600 {
			t.Fatalf("allocation %+v belongs to no kept frame", ev)
		}
	}
}

func TestFlightRecorderKeepFrames(t *testing.T) {
	frames := 30_000
	if race.Enabled || testing.Short() {
		frames = 5_000
	}
	raw := flightStream(t, frames)
	for _, tc := range []struct {
		name string
		fr   FlightRecorder
		keep int
		slow bool
	}{
		{"keep-frames", FlightRecorder{KeepFrames: 500}, 500, false},
		{"keep-frames+slow", FlightRecorder{KeepFrames: 300, KeepSlow: 10 * time.Millisecond}, 300, true},
		// 200 ms of trace time from the last mark: the frames that end
		// inside it, and the one before, whole.
		{"keep-duration", FlightRecorder{Keep: 200 * time.Millisecond}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Replay(context.Background(), bytes.NewReader(raw), WithLocalSources(false), WithFlightRecorder(tc.fr))
			if err != nil {
				t.Fatal(err)
			}
			keep := tc.keep
			if keep == 0 {
				starts := flightStarts(frames)
				last := starts[frames]
				// First frame starting at or after last-200ms, plus the one
				// that contains that instant.
				i := 0
				for starts[i] < last-200_000_000 {
					i++
				}
				keep = frames + 1 - (i - 1)
			}
			want := wantFrames(frames, keep, tc.slow)
			checkWindow(t, res.Trace, want)
			if got, wantOff := res.Trace.Metadata.FrameOffset, uint64(frames+3-len(want)); got != wantOff {
				t.Errorf("FrameOffset %d, want %d (the frames dropped, so frame numbers stay the client's)", got, wantOff)
			}
			// The window saves and loads back as it is.
			var file bytes.Buffer
			if err := tracefile.Write(&file, res.Trace); err != nil {
				t.Fatal(err)
			}
			back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
			if err != nil {
				t.Fatal(err)
			}
			checkWindow(t, back, want)
		})
	}
}

// peakHeapReplay replays the synthetic stream of frames, generated as it
// is read (a recording in memory would itself grow with the stream), and
// returns the peak live heap above the start: every 10 ms a collection
// runs and the heap left is sampled (the heap between collections holds
// garbage the pacer lets grow with the GC's timing, not with the data).
func peakHeapReplay(t *testing.T, frames int, opts ...Option) uint64 {
	t.Helper()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeFlightStream(pw, frames)) }()
	defer pr.Close()
	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	opts = append(opts, WithLocalSources(false), WithProgress(10*time.Millisecond, func(Stats) {
		runtime.GC()
		if m := heapBytes(); m > peak.Load() {
			peak.Store(m)
		}
	}))
	res, err := Replay(context.Background(), pr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(res)
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// TestFlightRecorderBoundedMemory: with a window of 1,000 frames, what the
// recorder holds (frames, zones, messages, points, allocations) never
// exceeds 1.25 windows (plus one transport frame), however long the stream; the peak heap
// is logged beside the one of keeping everything (heap figures move with
// the collector's timing, so the bound is asserted on what is held).
func TestFlightRecorderBoundedMemory(t *testing.T) {
	short := 60_000
	if race.Enabled || testing.Short() {
		short = 15_000
	}
	const window = 1000
	// Per frame: the frame, 4 zones, a message, a point, an allocation.
	const perFrame = 8
	for _, frames := range []int{short, 3 * short} {
		maxHeld := 0
		flightHeld = func(n int) { maxHeld = max(maxHeld, n) }
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeFlightStream(pw, frames)) }()
		res, err := Replay(context.Background(), pr, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: window}))
		flightHeld = nil
		pr.Close()
		if err != nil {
			t.Fatal(err)
		}
		// Trimmed once the droppable part is as large as the window, and
		// checked once per transport frame (32 KiB of items, ~200 frames).
		if bound := (window + window/4 + 400) * perFrame; maxHeld > bound || maxHeld < window*perFrame {
			t.Errorf("%d frames: the recorder held up to %d items, want %d..%d", frames, maxHeld, window*perFrame, bound)
		}
		if n := len(res.Trace.FrameSets[0].Frames); n != window {
			t.Errorf("%d frames: %d kept, want %d", frames, n, window)
		}
	}
	fr := WithFlightRecorder(FlightRecorder{KeepFrames: window})
	pa := peakHeapReplay(t, short, fr)
	pb := peakHeapReplay(t, 3*short, fr)
	full := peakHeapReplay(t, 3*short)
	t.Logf("peak heap: window of 1000 frames %.1f MB (%d frames), %.1f MB (%d frames); everything %.1f MB",
		float64(pa)/(1<<20), short, float64(pb)/(1<<20), 3*short, float64(full)/(1<<20))
}

// TestFlightSnapshot: a snapshot taken while the capture runs holds the
// window at that moment, complete, and the capture goes on.
func TestFlightSnapshot(t *testing.T) {
	raw := flightStream(t, 4000)
	req := make(chan chan<- *model.Trace)
	// A reader that asks for a snapshot when half the stream is read, and
	// waits for the answer before going on, so the window is known.
	got := make(chan *model.Trace, 1)
	r := &snapReader{r: bytes.NewReader(raw), at: len(raw) / 2, fire: func() {
		reply := make(chan *model.Trace, 1)
		req <- reply // taken by the consumer while the rest of the stream waits
		go func() { got <- <-reply }()
	}}
	res, err := Replay(context.Background(), r, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: 200}), WithSnapshots(req))
	if err != nil {
		t.Fatal(err)
	}
	snap := <-got
	fs := snap.FrameSets[0].Frames
	if len(fs) != 200 {
		t.Fatalf("snapshot has %d frames, want 200", len(fs))
	}
	if last := res.Trace.FrameSets[0].Frames; last[len(last)-1].Start <= fs[len(fs)-1].Start {
		t.Fatal("the capture did not go on after the snapshot")
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, snap); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	// Every zone whole; open ones closed as at a cut.
	for i := range back.Threads {
		zs := &back.Threads[i].Zones
		model.Walk(zs, func(z, depth int) bool {
			if depth == 0 && zs.At(z).End() >= 0 && int(zs.At(z).Next())-z-1 != 3 {
				t.Fatalf("snapshot zone %d has %d descendants", z, int(zs.At(z).Next())-z-1)
			}
			return true
		})
	}
}

type snapReader struct {
	r     *bytes.Reader
	n, at int
	fire  func()
	fired bool
}

func (s *snapReader) Read(p []byte) (int, error) {
	if !s.fired && s.n >= s.at {
		// Hold the reader first so the consumer applies everything read so
		// far, then ask: a request that wins the consumer's select against
		// frames already read would see fewer frames than were read.
		s.fired = true
		time.Sleep(50 * time.Millisecond)
		s.fire()
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	n, err := s.r.Read(p)
	s.n += n
	return n, err
}

// TestFlightRecorderTrimsSystemAndGpu: context switches, the CPU timeline,
// sampled call stacks (and the kernel-sample count), context-switch
// samples and GPU zones are trimmed with the window in whole frames:
// exactly the kept frames' items stay (also with slow frames kept between
// dropped ones), the saved window loads back the same, and what is held
// stays within 1.25 windows however long the stream.
func TestFlightRecorderTrimsSystemAndGpu(t *testing.T) {
	frames := 12_000
	if race.Enabled || testing.Short() {
		frames = 4_000
	}
	raw := bytes.Buffer{}
	if err := writeFlightStreamOf(&raw, frames, true); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, tr *model.Trace, want []int64) {
		t.Helper()
		kept := map[int64]bool{}
		for _, s := range want[:len(want)-1] { // the last mark opens an empty frame
			kept[s] = true
		}
		n := len(kept)
		var th *model.Thread
		for i := range tr.Threads {
			if tr.Threads[i].ID == 1 {
				th = &tr.Threads[i]
			}
		}
		if th == nil {
			t.Fatal("thread 1 missing")
		}
		at := func(what string, tm, off int64) {
			t.Helper()
			if !kept[tm-off] {
				t.Fatalf("%s at %d belongs to no kept frame", what, tm)
			}
		}
		if len(th.Samples) != 2*n || len(th.CtxSwitchSamples) != n || th.KernelSampleCnt != uint64(n) {
			t.Fatalf("samples %d, context-switch samples %d, kernel samples %d; want %d, %d, %d",
				len(th.Samples), len(th.CtxSwitchSamples), th.KernelSampleCnt, 2*n, n, n)
		}
		for k, s := range th.Samples {
			at("sample", s.Time, 300+int64(k%2)*100)
		}
		for _, s := range th.CtxSwitchSamples {
			at("context-switch sample", s.Time, 400)
		}
		if len(tr.CtxSwitches) != 1 || len(tr.CtxSwitches[0].Events) != n {
			t.Fatalf("context switches: %d threads, want 1 with %d spans", len(tr.CtxSwitches), n)
		}
		for _, ev := range tr.CtxSwitches[0].Events {
			at("context switch", ev.Start, 50)
			if ev.End != ev.Start+900 {
				t.Fatalf("context switch %+v not whole", ev)
			}
		}
		spans := 0
		for c := range tr.CPUData {
			for _, e := range tr.CPUData[c] {
				at("CPU span", e.Start, 50)
				if e.End != e.Start+900 {
					t.Fatalf("CPU %d span %+v not whole", c, e)
				}
				spans++
			}
		}
		if spans != n {
			t.Fatalf("%d CPU spans, want %d", spans, n)
		}
		if len(tr.GpuContexts) != 1 || len(tr.GpuContexts[0].Timelines) != 1 {
			t.Fatalf("GPU: %d contexts", len(tr.GpuContexts))
		}
		g := tr.GpuContexts[0]
		zs := g.Timelines[0].Zones
		// The count is of zones whose GPU start arrived: all but the last.
		if len(zs) != n || g.Count != uint64(n-1) {
			t.Fatalf("%d GPU zones, count %d; want %d, %d", len(zs), g.Count, n, n-1)
		}
		for i, z := range zs {
			at("GPU zone", z.CPUStart, 20)
			if z.CPUEnd != z.CPUStart+780 || int(z.Next) != i+1 {
				t.Fatalf("GPU zone %d = %+v", i, z)
			}
			// Every GPU time arrived but the last frame's (the stream ended).
			if i < n-1 && (z.GPUStart != z.CPUStart || z.GPUEnd != z.CPUEnd) {
				t.Fatalf("GPU zone %d = %+v: timestamps lost", i, z)
			}
		}
	}
	for _, tc := range []struct {
		name string
		fr   FlightRecorder
		keep int
		slow bool
	}{
		{"keep-frames", FlightRecorder{KeepFrames: 500}, 500, false},
		{"keep-frames+slow", FlightRecorder{KeepFrames: 300, KeepSlow: 10 * time.Millisecond}, 300, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Replay(context.Background(), bytes.NewReader(raw.Bytes()), WithLocalSources(false), WithFlightRecorder(tc.fr))
			if err != nil && !errors.Is(err, ErrUnanswered) { // the stream answers no symbol query
				t.Fatal(err)
			}
			want := wantFrames(frames, tc.keep, tc.slow)
			checkWindow(t, res.Trace, want)
			check(t, res.Trace, want)
			var file bytes.Buffer
			if err := tracefile.Write(&file, res.Trace); err != nil {
				t.Fatal(err)
			}
			back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
			if err != nil {
				t.Fatal(err)
			}
			check(t, back, want)
		})
	}
	// Bounded: per frame the frame, 4 zones, a message, a point, an
	// allocation, 3 samples (the context-switch one is in both lists), a
	// context switch, a CPU span, a GPU zone.
	const window, perFrame = 1000, 14
	for _, n := range []int{frames, 3 * frames} {
		maxHeld := 0
		flightHeld = func(k int) { maxHeld = max(maxHeld, k) }
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeFlightStreamOf(pw, n, true)) }()
		_, err := Replay(context.Background(), pr, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: window}))
		flightHeld = nil
		pr.Close()
		if err != nil && !errors.Is(err, ErrUnanswered) {
			t.Fatal(err)
		}
		if bound := (window + window/4 + 400) * perFrame; maxHeld > bound || maxHeld < window*perFrame {
			t.Errorf("%d frames: the recorder held up to %d items, want %d..%d", n, maxHeld, window*perFrame, bound)
		}
	}
}
