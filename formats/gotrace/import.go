// Package gotrace imports Go execution traces (what `go test -trace`,
// runtime/trace.Start and a flight-recorder snapshot write, Go 1.22 and
// later) into a Tracy trace:
//
//	t, err := gotrace.Import(f, gotrace.ImportOptions{})
//
// Goroutines become threads named by their start function, scheduling
// becomes context switches (P n is CPU n) and wake-ups, GC cycles and
// stop-the-world pauses become zones on a "GC" lane, runtime/trace regions,
// tasks and logs become zones and messages, CPU profile samples become
// call-stack samples, and the trace's metrics become plots. The mapping,
// and what it drops, is documented in package internal/gotrace, which the
// live path (tracy/goruntime) shares.
//
// A malformed or truncated file gives an *Error saying where parsing
// stopped, together with the trace of everything decoded before it.
package gotrace

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"golang.org/x/exp/trace"

	"github.com/gotracy/gotracy/internal/gotrace"
	"github.com/gotracy/gotracy/model"
)

// ErrFormat is wrapped by every *Error.
var ErrFormat = errors.New("malformed Go execution trace")

// Error says why the input could not be read to its end.
type Error struct {
	Events int   // events decoded before the failure
	Err    error // the parser's error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v after %d events (what came before is kept): %v", ErrFormat, e.Events, e.Err)
}

func (e *Error) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Header reports whether b starts like a Go execution trace ("go 1.NN trace").
func Header(b []byte) bool {
	return bytes.HasPrefix(b, []byte("go 1.")) && len(b) >= 16 && bytes.Contains(b[:16], []byte(" trace\x00"))
}

// ImportOptions fill the trace's metadata.
type ImportOptions struct {
	CaptureName, CaptureProgram string
}

// Import reads a Go execution trace. On a malformed or truncated input it
// returns the trace built from the events decoded before the failure and an
// *Error; a nil trace means nothing could be decoded.
func Import(r io.Reader, o ImportOptions) (t *model.Trace, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if h, _ := br.Peek(16); !Header(h) {
		return nil, &Error{Err: fmt.Errorf("expected a header \"go 1.NN trace\", found %q", h)}
	}
	s := newSink()
	x := gotrace.New(s, gotrace.Options{PoolLanes: true})
	rd, err := newReader(br)
	if err != nil {
		return nil, &Error{Err: err}
	}
	var rerr error
	for {
		ev, err := readEvent(rd)
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = &Error{Events: x.Events, Err: err}
			break
		}
		x.Event(&ev)
	}
	if x.Events == 0 && rerr != nil {
		return nil, rerr
	}
	x.Finish(x.Last())
	t = s.finish(o)
	return t, rerr
}

// newReader and readEvent turn the parser's panics on hostile input into
// errors.
func newReader(r io.Reader) (rd *trace.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	return trace.NewReader(r)
}

func readEvent(rd *trace.Reader) (ev trace.Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	return rd.ReadEvent()
}

type zoneEv struct {
	t      int64
	loc    model.SrcLocID
	begins bool
}

type msgEv struct {
	t    int64
	tid  uint32
	text string
	seq  int
}

type switchEv struct {
	t          int64
	old, new   uint32
	cpu        uint8
	reason, st uint8
	wakeup     bool
	seq        int
}

// sink collects what the translator emits; finish builds the model, sorted
// where the translator's order is not the model's (messages across lanes).
type sink struct {
	b       *model.Builder
	names   map[uint32]string
	locs    map[string]model.SrcLocID
	zones   map[uint32][]zoneEv
	order   []uint32 // lanes in first-seen order
	msgs    []msgEv
	sw      []switchEv
	plots   map[string][]model.PlotPoint
	pnames  []string
	samples map[uint32][]model.Sample
	frames  []uint64
	first   int64
	hasT    bool
	maxCPU  int
}

func newSink() *sink {
	return &sink{b: model.NewBuilder(), names: map[uint32]string{}, locs: map[string]model.SrcLocID{},
		zones: map[uint32][]zoneEv{}, plots: map[string][]model.PlotPoint{}, samples: map[uint32][]model.Sample{}, maxCPU: -1}
}

func (s *sink) see(t int64) {
	if !s.hasT || t < s.first {
		s.first, s.hasT = t, true
	}
}

func (s *sink) ThreadName(tid uint32, name string) { s.names[tid] = name }

func (s *sink) ContextSwitch(t int64, old, nw uint32, cpu uint8, reason, state uint8) {
	s.see(t)
	if int(cpu) > s.maxCPU {
		s.maxCPU = int(cpu)
	}
	s.sw = append(s.sw, switchEv{t: t, old: old, new: nw, cpu: cpu, reason: reason, st: state, seq: len(s.sw)})
}

func (s *sink) Wakeup(t int64, tid uint32, cpu uint8) {
	s.see(t)
	s.sw = append(s.sw, switchEv{t: t, new: tid, cpu: cpu, wakeup: true, seq: len(s.sw)})
}

func (s *sink) lane(tid uint32) []zoneEv {
	z, ok := s.zones[tid]
	if !ok {
		s.order = append(s.order, tid)
	}
	return z
}

func (s *sink) ZoneBegin(tid uint32, t int64, name string) {
	s.see(t)
	id, ok := s.locs[name]
	if !ok {
		id = s.b.AddDynSrcLoc(model.SourceLocation{
			Name:     model.IdxRef(s.b.Intern(name)),
			Function: model.IdxRef(s.b.Intern(name)),
			File:     model.IdxRef(s.b.Intern("[Go execution trace]")),
		})
		s.locs[name] = id
	}
	z := s.lane(tid)
	s.zones[tid] = append(z, zoneEv{t: t, loc: id, begins: true})
}

func (s *sink) ZoneEnd(tid uint32, t int64) {
	z := s.lane(tid)
	s.zones[tid] = append(z, zoneEv{t: t})
}

func (s *sink) Message(tid uint32, t int64, text string) {
	s.see(t)
	s.msgs = append(s.msgs, msgEv{t: t, tid: tid, text: text, seq: len(s.msgs)})
}

func (s *sink) Sample(tid uint32, t int64, frames []gotrace.Frame) {
	s.see(t)
	s.frames = s.frames[:0]
	tr := s.b.Trace()
	for i := 0; i < len(frames); {
		// Inlined frames share their PC: one Tracy frame with several
		// inline levels, innermost first.
		j := i + 1
		for j < len(frames) && frames[j].PC == frames[i].PC {
			j++
		}
		id := frames[i].PC & (1<<62 - 1)
		if _, ok := tr.Frames[id]; !ok {
			fd := model.FrameData{ImageName: s.b.Intern("[Go execution trace]")}
			for _, f := range frames[i:j] {
				fd.Frames = append(fd.Frames, model.InlineFrame{
					Name: s.b.Intern(f.Func), File: s.b.Intern(f.File), Line: uint32(f.Line), SymAddr: 0,
				})
			}
			tr.Frames[id] = fd
		}
		s.frames = append(s.frames, id)
		i = j
	}
	cs := s.b.InternCallStack(s.frames)
	s.samples[tid] = append(s.samples[tid], model.Sample{Time: t, CallStack: cs})
}

func (s *sink) Plot(name string, t int64, v float64) {
	s.see(t)
	p, ok := s.plots[name]
	if !ok {
		s.pnames = append(s.pnames, name)
	}
	if n := len(p); n > 0 && p[n-1].Time == t {
		p[n-1].Value = v
		return
	}
	s.plots[name] = append(p, model.PlotPoint{Time: t, Value: v})
}

func (s *sink) finish(o ImportOptions) *model.Trace {
	b := s.b
	t := b.Trace()
	t.Metadata.CaptureName = o.CaptureName
	t.Metadata.CaptureProgram = o.CaptureProgram
	t.Metadata.TimerMul = 1
	t.Metadata.HostInfo = "Go execution trace\n"
	base := s.first
	rel := func(x int64) int64 {
		if x < base {
			return 0
		}
		return x - base
	}
	tids := make([]uint32, 0, len(s.names))
	for tid := range s.names {
		tids = append(tids, tid)
	}
	// The GC lane first, then goroutines by id, then the other lanes.
	slices.SortFunc(tids, func(a, c uint32) int {
		return cmp.Compare(a+0x10, c+0x10) // GCLane (0xFFFFFFF0) wraps to 0
	})
	has := map[uint32]bool{}
	for tid := range s.zones {
		has[tid] = true
	}
	for _, m := range s.msgs {
		has[m.tid] = true
	}
	for tid := range s.samples {
		has[tid] = true
	}
	for _, e := range s.sw {
		has[e.old], has[e.new] = true, true
	}
	for _, tid := range tids {
		b.SetThreadName(uint64(tid), s.names[tid])
		if has[tid] {
			b.Thread(uint64(tid)) // a lane only for what has something to show
		}
	}
	// Zones, lane by lane (each lane's events are in order and nested).
	for _, tid := range s.order {
		th := b.Thread(uint64(tid))
		last := int64(0)
		for _, z := range s.zones[tid] {
			ts := max(rel(z.t), last)
			last = ts
			if z.begins {
				b.BeginZone(th, ts, z.loc)
			} else {
				b.EndZone(th, ts)
			}
		}
	}
	slices.SortStableFunc(s.msgs, func(a, c msgEv) int { return cmp.Compare(a.t, c.t) })
	for _, m := range s.msgs {
		b.AddMessage(uint64(m.tid), model.Message{Time: rel(m.t), Text: model.IdxRef(b.Intern(m.text)), Color: 0xFFFFFFFF})
	}
	for i, name := range s.pnames {
		key := uint64(i + 1)
		b.SetPtrString(key, name)
		b.Plot(key)
		for _, p := range s.plots[name] {
			b.PlotPoint(key, rel(p.Time), p.Value)
		}
	}
	for tid, smp := range s.samples {
		th := b.Thread(uint64(tid))
		for i := range smp {
			smp[i].Time = max(rel(smp[i].Time), 1) // 0 means "unknown" to Tracy
			b.Observe(smp[i].Time)
		}
		slices.SortStableFunc(smp, func(a, c model.Sample) int { return cmp.Compare(a.Time, c.Time) })
		t.Threads[th].Samples = smp
	}
	if len(s.samples) > 0 {
		t.Metadata.SamplingPeriod = 10_000_000 // runtime/pprof's 100 Hz
	}
	slices.SortStableFunc(s.sw, func(a, c switchEv) int { return cmp.Compare(a.t, c.t) })
	// Lenient: an execution trace is not a Tracy client's stream.
	cs := model.NewCtxSwitchBuilder(t, true)
	for _, e := range s.sw {
		ts := rel(e.t)
		b.Observe(ts)
		if e.wakeup {
			cs.Wakeup(ts, uint64(e.new), e.cpu)
		} else {
			cs.Switch(ts, uint64(e.old), uint64(e.new), e.cpu, int8(e.reason), int8(e.st))
		}
	}
	for i := range t.CtxSwitches {
		tid := t.CtxSwitches[i].Thread
		name := s.names[uint32(tid)]
		if name == "" {
			name = fmt.Sprintf("goroutine %d", tid)
		}
		t.ExtThreadNames[tid] = [2]model.StrID{b.Intern("Go program"), b.Intern(name)}
	}
	if s.maxCPU >= 0 {
		core := []model.CPUCore{}
		for i := 0; i <= s.maxCPU; i++ {
			core = append(core, model.CPUCore{ID: uint32(i), Threads: []uint32{uint32(i)}})
		}
		t.Topology = []model.CPUPackage{{ID: 0, Dies: []model.CPUDie{{ID: 0, Cores: core}}}}
	}
	return b.Finish()
}
