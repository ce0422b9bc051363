package tracefile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

// encoder is an append-style little-endian writer that flushes to w in
// large pieces, so a field write is a bounds check and a store.
type encoder struct {
	w        io.Writer
	buf      []byte
	written  int64
	err      error
	progress func(done int64)
	next     int64
}

const encFlushAt = 1 << 18

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.written += int64(len(e.buf))
	e.buf = e.buf[:0]
	if e.progress != nil && e.written >= e.next {
		e.progress(e.written)
		e.next = e.written + 1<<22
	}
}

func (e *encoder) maybeFlush() {
	if len(e.buf) >= encFlushAt {
		e.flush()
	}
}

func (e *encoder) u8(v uint8)   { e.buf = append(e.buf, v) }
func (e *encoder) u16(v uint16) { e.buf = binary.LittleEndian.AppendUint16(e.buf, v) }
func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }
func (e *encoder) i16(v int16)  { e.u16(uint16(v)) }
func (e *encoder) i32(v int32)  { e.u32(uint32(v)) }
func (e *encoder) i64(v int64)  { e.u64(uint64(v)) }
func (e *encoder) f32(v float32) {
	e.u32(math.Float32bits(v))
}
func (e *encoder) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *encoder) u24(v uint32)  { e.buf = append(e.buf, byte(v), byte(v>>8), byte(v>>16)) }
func (e *encoder) i48(v int64) {
	e.buf = append(e.buf, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40))
}
func (e *encoder) bool(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}
func (e *encoder) raw(b []byte) {
	if len(b) > encFlushAt {
		e.flush()
		if e.err == nil {
			_, e.err = e.w.Write(b)
		}
		e.written += int64(len(b))
		return
	}
	e.buf = append(e.buf, b...)
	e.maybeFlush()
}
func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	if len(s) > encFlushAt {
		e.raw([]byte(s))
		return
	}
	e.buf = append(e.buf, s...)
	e.maybeFlush()
}
func (e *encoder) sref(r model.StringRef) {
	e.u64(r.Str)
	e.u8(r.Flags)
}
func (e *encoder) srcloc(s *model.SourceLocation) {
	e.sref(s.Name)
	e.sref(s.Function)
	e.sref(s.File)
	e.u32(s.Line)
	e.u32(s.Color)
}

// invalid reports a model the writer cannot encode.
type invalidError struct{ err error }

func invalidf(format string, args ...any) {
	panic(invalidError{fmt.Errorf("%w: "+format, append([]any{ErrInvalidTrace}, args...)...)})
}

// WritePayload writes t as an uncompressed payload of version 0.14.0, section
// by section as Tracy's Worker::Write does. Values
// that are identities in the file (string-table ptrs, message ids) are
// generated; zone-count hints, totals, child-vector counts, free counts and
// symbol counts are computed from the model.
func WritePayload(w io.Writer, t *model.Trace, opts ...Option) (err error) {
	o := newOptions(opts)
	start := time.Now()
	e := &encoder{w: w, buf: make([]byte, 0, encFlushAt+4096), next: 1 << 22}
	if o.progress != nil {
		e.progress = func(done int64) { o.progress(Progress{Op: "save", Done: done, Total: -1}) }
	}
	defer func() {
		if r := recover(); r != nil {
			ie, ok := r.(invalidError)
			if !ok {
				panic(r)
			}
			err = ie.err
		}
	}()
	pw := &payloadWriter{e: e, t: t, v: o.version, release: o.release}
	if pw.v == 0 {
		pw.v = Version
	}
	pw.write()
	e.flush()
	if e.err != nil {
		return e.err
	}
	if o.report != nil {
		o.report.Version = Version
		o.report.PayloadBytes = e.written
		o.report.Decode = time.Since(start)
		o.report.Duration = o.report.Decode
		o.report.Zones, o.report.GpuZones = countZones(t)
	}
	if o.progress != nil {
		o.progress(Progress{Op: "save", Done: e.written, Total: e.written})
	}
	return nil
}

type payloadWriter struct {
	e  *encoder
	t  *model.Trace
	v  uint32     // payload version to write (older ones only in tests)
	zc zoneCounts // from countHints, for writeThreads
	// release: let go of each zone chunk once written (WithReleaseZones).
	release bool
}

func (p *payloadWriter) checkStr(id model.StrID, what string) {
	if int(id) >= len(p.t.Strings) {
		invalidf("%s string %d out of range (%d strings)", what, id, len(p.t.Strings)-1)
	}
}

func (p *payloadWriter) sidx(id model.StrID, what string) {
	p.checkStr(id, what)
	p.e.u24(uint32(id))
}

func (p *payloadWriter) cs(v uint32, what string) {
	if int(v) > p.t.NumCallStacks() {
		invalidf("%s call stack %d out of range (%d)", what, v, p.t.NumCallStacks())
	}
	p.e.u24(v)
}

func (p *payloadWriter) checkSrcLoc(v int16, what string) {
	t := p.t
	if v < 0 {
		if -int(v)-1 >= len(t.DynSrcLocs) {
			invalidf("%s dynamic source location %d out of range", what, v)
		}
	} else if int(v) >= len(t.SrcLocIndex) && v != model.EmptySrcLoc {
		invalidf("%s source location %d out of range", what, v)
	}
}

func (p *payloadWriter) metaString(s, what string) {
	if len(s) >= 1024 {
		invalidf("%s is %d bytes; Tracy reads at most 1023", what, len(s))
	}
	p.e.str(s)
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *payloadWriter) write() {
	e, t := p.e, p.t
	v := p.v
	e.raw([]byte{'t', 'r', 'a', 'c', 'y', byte(v >> 16 & 0xFF), byte(v >> 8 & 0xFF), byte(v & 0xFF)})
	if v < ver(0, 12, 3) {
		e.i64(0) // m_delay
	}

	m := &t.Metadata
	e.i64(m.Resolution)
	e.f64(m.TimerMul)
	e.i64(m.LastTime)
	e.u64(m.FrameOffset)
	e.u64(m.PID)
	e.i64(m.SamplingPeriod)
	e.u8(m.CPUArch)
	e.u32(m.CPUID)
	e.raw(m.CPUManufacturer[:])
	if v >= ver(0, 9, 2) {
		e.bool(m.OnDemand)
	}
	p.metaString(m.CaptureName, "capture name")
	p.metaString(m.CaptureProgram, "capture program")
	e.u64(m.CaptureTime)
	e.u64(m.ExecutableTime)
	p.metaString(m.HostInfo, "host info")

	e.u64(uint64(len(t.Topology)))
	for _, pkg := range t.Topology {
		e.u32(pkg.ID)
		dies := pkg.Dies
		if v < ver(0, 11, 2) {
			// No die level: all cores of the package in one list.
			var all model.CPUDie
			for _, d := range dies {
				all.Cores = append(all.Cores, d.Cores...)
			}
			dies = []model.CPUDie{all}
		} else {
			e.u64(uint64(len(dies)))
		}
		for _, die := range dies {
			if v >= ver(0, 11, 2) {
				e.u32(die.ID)
			}
			e.u64(uint64(len(die.Cores)))
			for _, c := range die.Cores {
				e.u32(c.ID)
				e.u64(uint64(len(c.Threads)))
				for _, x := range c.Threads {
					e.u32(x)
				}
			}
		}
	}
	e.maybeFlush()

	e.u64(t.Crash.Thread)
	e.i64(t.Crash.Time)
	e.u64(t.Crash.Message)
	if int(t.Crash.CallStack) > t.NumCallStacks() {
		invalidf("crash call stack %d out of range", t.Crash.CallStack)
	}
	e.u32(t.Crash.CallStack)

	if len(t.FrameSets) == 0 {
		invalidf("no frame set (Tracy needs the base frame set)")
	}
	e.u64(uint64(len(t.FrameSets)))
	for _, fs := range t.FrameSets {
		e.u64(fs.Name)
		e.bool(fs.Continuous)
		e.u64(uint64(len(fs.Frames)))
		var ref int64
		for _, f := range fs.Frames {
			e.i64(f.Start - ref)
			ref = f.Start
			if !fs.Continuous {
				e.i64(f.End - ref)
				ref = f.End
			}
			if f.Image < -1 || int(f.Image) >= len(t.FrameImages) {
				invalidf("frame image %d out of range", f.Image)
			}
			e.i32(f.Image)
			e.maybeFlush()
		}
	}

	items := func(its []model.SectionItem) {
		for _, it := range its {
			e.i48(it.Start)
			e.i48(it.End)
			p.sidx(it.Text, "section")
			e.maybeFlush()
		}
	}
	switch {
	case v >= ver(0, 13, 5):
		e.u64(uint64(len(t.Sections)))
		for _, c := range t.Sections {
			e.u16(c.Category)
			e.u64(uint64(len(c.Items)))
			items(c.Items)
		}
		e.u64(uint64(len(t.SectionDescs)))
		for _, sd := range t.SectionDescs {
			e.u16(sd.Category)
			p.sidx(sd.Text, "section description")
		}
	case v == ver(0, 13, 4):
		// One uncategorised list.
		var n int
		for _, c := range t.Sections {
			n += len(c.Items)
		}
		e.u64(uint64(n))
		for _, c := range t.Sections {
			items(c.Items)
		}
	}

	// String table: entry i (StrID i+1) gets ptr i+1, a unique non-zero
	// identity.
	if len(t.Strings) == 0 {
		invalidf("string table lacks the reserved entry 0")
	}
	if len(t.Strings)-1 > 1<<24-2 {
		invalidf("%d strings exceed the 24-bit string index", len(t.Strings)-1)
	}
	e.u64(uint64(len(t.Strings) - 1))
	for i := 1; i < len(t.Strings); i++ {
		e.u64(uint64(i))
		e.str(t.Strings[i])
	}
	ptrMap := func(id model.StrID, what string) uint64 {
		p.checkStr(id, what)
		return uint64(id)
	}
	// A key→string map is written in key order, leaving out keys that name no string.
	writeStrMap := func(m map[uint64]model.StrID, what string) {
		keys := sortedKeys(m)
		n := 0
		for _, k := range keys {
			if m[k] != model.NoString {
				n++
			}
		}
		e.u64(uint64(n))
		for _, k := range keys {
			if id := m[k]; id != model.NoString {
				e.u64(k)
				e.u64(ptrMap(id, what))
				e.maybeFlush()
			}
		}
	}
	writeStrMap(t.PtrStrings, "pointer")
	writeStrMap(t.ThreadNames, "thread name")
	keys := sortedKeys(t.ExtThreadNames)
	n := 0
	for _, k := range keys {
		if v := t.ExtThreadNames[k]; v[0] != model.NoString && v[1] != model.NoString {
			n++
		}
	}
	e.u64(uint64(n))
	for _, k := range keys {
		if v := t.ExtThreadNames[k]; v[0] != model.NoString && v[1] != model.NoString {
			e.u64(k)
			e.u64(ptrMap(v[0], "external thread"))
			e.u64(ptrMap(v[1], "external thread"))
		}
	}

	if len(t.ThreadIndex) > math.MaxUint16+1 || len(t.ExtThreadIndex) > math.MaxUint16+1 {
		invalidf("more than 65536 threads")
	}
	e.u64(uint64(len(t.ThreadIndex)))
	for _, tid := range t.ThreadIndex {
		e.u64(tid)
	}
	e.u64(uint64(len(t.ExtThreadIndex)))
	for _, tid := range t.ExtThreadIndex {
		e.u64(tid)
	}
	e.maybeFlush()

	if len(t.StaticSrcLocs) > 32767 || len(t.DynSrcLocs) > 32767 || len(t.SrcLocIndex) > 32767 {
		invalidf("more than 32767 source locations")
	}
	keys = sortedKeys(t.StaticSrcLocs)
	e.u64(uint64(len(keys)))
	for _, k := range keys {
		sl := t.StaticSrcLocs[k]
		e.u64(k)
		e.srcloc(&sl)
		e.maybeFlush()
	}
	e.u64(uint64(len(t.SrcLocIndex)))
	for _, k := range t.SrcLocIndex {
		e.u64(k)
	}
	e.u64(uint64(len(t.DynSrcLocs)))
	for i := range t.DynSrcLocs {
		e.srcloc(&t.DynSrcLocs[i])
		e.maybeFlush()
	}
	p.countHints()

	e.u64(uint64(len(t.Locks)))
	for i := range t.Locks {
		l := &t.Locks[i]
		e.u32(l.ID)
		p.sidx(l.CustomName, "lock name")
		p.checkSrcLoc(l.SrcLoc, "lock")
		e.i16(l.SrcLoc)
		e.u8(l.Type)
		e.bool(l.Valid)
		e.i64(l.TimeAnnounce)
		e.i64(l.TimeTerminate)
		if len(l.Threads) > 64 {
			invalidf("lock %d has %d threads (at most 64)", l.ID, len(l.Threads))
		}
		e.u64(uint64(len(l.Threads)))
		for _, tid := range l.Threads {
			e.u64(tid)
		}
		e.u64(uint64(len(l.Events)))
		ref := l.TimeAnnounce
		for _, ev := range l.Events {
			e.i64(ev.Time - ref)
			ref = ev.Time
			p.checkSrcLoc(ev.SrcLoc, "lock event")
			e.i16(ev.SrcLoc)
			if int(ev.Thread) >= len(l.Threads) {
				invalidf("lock %d event thread %d out of range", l.ID, ev.Thread)
			}
			e.u8(ev.Thread)
			e.u8(ev.Type)
			e.maybeFlush()
		}
	}

	// Messages: id = index + 1.
	e.u64(uint64(len(t.Messages)))
	var ref int64
	for i := range t.Messages {
		msg := &t.Messages[i]
		e.u64(uint64(i) + 1)
		e.i64(msg.Time - ref)
		ref = msg.Time
		e.sref(msg.Text)
		e.u32(msg.Color)
		p.cs(msg.CallStack, "message")
		if v >= ver(0, 13, 2) {
			e.u8(msg.Source)
			e.u8(msg.Severity)
		}
		e.maybeFlush()
	}

	if len(t.ZoneExtras) == 0 {
		invalidf("zone-extra table lacks the blank entry 0")
	}
	e.u64(uint64(len(t.ZoneExtras)))
	for i := range t.ZoneExtras {
		x := &t.ZoneExtras[i]
		p.cs(x.CallStack, "zone")
		p.sidx(x.Text, "zone text")
		p.sidx(x.Name, "zone name")
		e.u24(x.Color)
		e.maybeFlush()
	}

	p.writeThreads()
	p.writeGpu()

	np := 0
	for i := range t.Plots {
		if t.Plots[i].Type != model.PlotMemory {
			np++
		}
	}
	e.u64(uint64(np))
	for i := range t.Plots {
		pl := &t.Plots[i]
		if pl.Type == model.PlotMemory {
			continue
		}
		e.u8(pl.Type)
		e.u8(pl.Format)
		e.bool(pl.ShowSteps)
		e.bool(pl.Fill)
		e.u32(pl.Color)
		e.u64(pl.Name)
		e.f64(pl.Min)
		e.f64(pl.Max)
		e.f64(pl.Sum)
		e.u64(uint64(len(pl.Points)))
		var ref int64
		for _, pt := range pl.Points {
			e.i64(pt.Time - ref)
			ref = pt.Time
			e.f64(pt.Value)
			e.maybeFlush()
		}
	}

	p.writeMemory()

	cs := t.NumCallStacks()
	if cs > model.MaxCallStacks {
		invalidf("%d call stacks exceed the 24-bit index", cs)
	}
	e.u64(uint64(cs))
	for i := 1; i <= cs; i++ {
		fr := t.CallStack(uint32(i))
		if len(fr) > math.MaxUint16 {
			invalidf("call stack %d has %d frames (at most 65535)", i, len(fr))
		}
		e.u16(uint16(len(fr)))
		for _, f := range fr {
			e.u64(f)
		}
		e.maybeFlush()
	}

	keys = sortedKeys(t.Frames)
	e.u64(uint64(len(keys)))
	for _, k := range keys {
		fd := t.Frames[k]
		e.u64(k)
		if len(fd.Frames) > 255 {
			invalidf("frame %#x has %d inline frames (at most 255)", k, len(fd.Frames))
		}
		e.u8(uint8(len(fd.Frames)))
		p.sidx(fd.ImageName, "frame image name")
		for _, f := range fd.Frames {
			p.sidx(f.Name, "frame name")
			p.sidx(f.File, "frame file")
			e.u32(f.Line)
			e.u64(f.SymAddr)
		}
		e.maybeFlush()
	}

	e.u64(uint64(len(t.AppInfo)))
	for _, r := range t.AppInfo {
		e.sref(r)
	}

	if len(t.FrameImageDict) > math.MaxUint32 {
		invalidf("frame-image dictionary too large")
	}
	e.u32(uint32(len(t.FrameImageDict)))
	e.raw(t.FrameImageDict)
	e.u64(uint64(len(t.FrameImages)))
	var unpacked []byte // reused: a capture's images are packed, the file holds them unpacked
	for i := range t.FrameImages {
		img := &t.FrameImages[i]
		data := img.Data
		if img.Packed {
			var err error
			if unpacked, err = texture.ImageData(unpacked, img.Data, int(img.W), int(img.H), true); err != nil {
				invalidf("frame image %d: %v", i, err)
			}
			data = unpacked
		}
		if img.W%4 != 0 || img.H%4 != 0 || len(data) != int(img.W)*int(img.H)/2 {
			invalidf("frame image %d: %dx%d with %d bytes of DXT1", i, img.W, img.H, len(data))
		}
		e.u16(img.W)
		e.u16(img.H)
		e.bool(img.Flip)
		e.raw(data)
	}

	e.u64(uint64(len(t.CtxSwitches)))
	for i := range t.CtxSwitches {
		tc := &t.CtxSwitches[i]
		e.u64(tc.Thread)
		e.u64(uint64(len(tc.Events)))
		var ref int64
		for _, ev := range tc.Events {
			e.i64(ev.Wakeup - ref)
			e.i64(ev.Start - ev.Wakeup)
			e.i64(ev.End - ev.Start)
			ref = ev.End
			e.u8(ev.CPU)
			e.u8(uint8(ev.Reason))
			e.u8(uint8(ev.State))
			e.u64(ev.Thread)
			if v >= ver(0, 11, 3) {
				e.u8(ev.WakeupCPU)
			}
			e.maybeFlush()
		}
	}

	var total uint64
	for _, es := range t.CPUData {
		total += uint64(len(es))
	}
	e.u64(total)
	for _, es := range t.CPUData {
		e.u64(uint64(len(es)))
		var ref int64
		for _, c := range es {
			e.i64(c.Start - ref)
			e.i64(c.End - c.Start)
			ref = c.End
			if int(c.Thread) >= len(t.ExtThreadIndex) {
				invalidf("per-CPU thread %d out of range", c.Thread)
			}
			e.u16(c.Thread)
			e.maybeFlush()
		}
	}

	keys = sortedKeys(t.TidToPid)
	e.u64(uint64(len(keys)))
	for _, k := range keys {
		e.u64(k)
		e.u64(t.TidToPid[k])
	}
	e.u64(uint64(len(t.CPUThreadData)))
	for _, c := range t.CPUThreadData {
		e.u64(c.Thread)
		e.i64(c.RunningTime)
		e.u32(c.RunningRegions)
		e.u32(c.Migrations)
	}
	e.maybeFlush()

	var inline uint64
	for i := range t.Symbols {
		if t.Symbols[i].IsInline {
			inline++
		}
	}
	e.u64(uint64(len(t.Symbols)) - inline)
	e.u64(inline + 1)
	e.u64(uint64(len(t.Symbols)))
	for i := range t.Symbols {
		s := &t.Symbols[i]
		e.u64(s.Addr)
		p.sidx(s.Name, "symbol name")
		p.sidx(s.File, "symbol file")
		e.u32(s.Line)
		p.sidx(s.ImageName, "symbol image")
		p.sidx(s.CallFile, "symbol call file")
		e.u32(s.CallLine)
		e.bool(s.IsInline)
		e.u24(s.Size)
		e.maybeFlush()
	}

	e.u64(uint64(len(t.SymbolCode)))
	for _, sc := range t.SymbolCode {
		if len(sc.Code) > math.MaxUint32 {
			invalidf("symbol code too large")
		}
		e.u64(sc.Addr)
		e.u32(uint32(len(sc.Code)))
		e.raw(sc.Code)
	}
	e.u64(uint64(len(t.CodeSymbols)))
	for _, c := range t.CodeSymbols {
		e.u64(c.CodeAddr)
		e.u64(c.SymAddr)
	}
	e.u64(uint64(len(t.HwSamples)))
	for i := range t.HwSamples {
		hs := &t.HwSamples[i]
		e.u64(hs.Addr)
		for _, ts := range hs.Times {
			e.u64(uint64(len(ts)))
			var ref int64
			for _, x := range ts {
				e.i64(x - ref)
				ref = x
			}
			e.maybeFlush()
		}
	}
	e.u64(uint64(len(t.SourceCache)))
	for _, sf := range t.SourceCache {
		if len(sf.Name) > math.MaxUint32 || len(sf.Data) > math.MaxUint32 {
			invalidf("source file too large")
		}
		e.u32(uint32(len(sf.Name)))
		e.raw([]byte(sf.Name))
		e.u32(uint32(len(sf.Data)))
		e.raw(sf.Data)
	}
}

// countHints writes the CPU and GPU per-source-location zone counts: every
// static index 1..N-1 and every dynamic id (Tracy lists them all, and the
// statistics code needs an entry for every srcloc a zone uses), plus any
// other value zones use.
func (p *payloadWriter) countHints() {
	e, t := p.e, p.t
	cpu := p.countZones()
	var hints []model.SrcLocID
	listed := func(v int16) bool {
		return (v > 0 && int(v) < len(t.SrcLocIndex)) || (v < 0 && -int(v)-1 < len(t.DynSrcLocs))
	}
	for i := 1; i < len(t.SrcLocIndex); i++ {
		hints = append(hints, model.SrcLocID(i))
	}
	for i := range t.DynSrcLocs {
		hints = append(hints, model.SrcLocID(-i-1))
	}
	for v := range cpu {
		if cpu[v] != 0 && !listed(int16(uint16(v))) {
			hints = append(hints, int16(uint16(v)))
		}
	}
	e.u64(uint64(len(hints)))
	for _, h := range hints {
		e.i16(h)
		e.u64(cpu[uint16(h)])
		e.maybeFlush()
	}
	var gpu [1 << 16]uint64
	for i := range t.GpuContexts {
		for _, tl := range t.GpuContexts[i].Timelines {
			for j := range tl.Zones {
				gpu[uint16(tl.Zones[j].SrcLoc)]++
			}
		}
	}
	n := 0
	for v := range gpu {
		if gpu[v] != 0 {
			n++
		}
	}
	e.u64(uint64(n))
	for v := range gpu {
		if gpu[v] != 0 {
			e.i16(int16(uint16(v)))
			e.u64(gpu[v])
		}
	}
}

type wframe struct {
	idx      int // zone index, -1 = top level
	cur, end int
	zend     int64 // the zone's end time (read at the push: its chunk may be released by the pop)
}

// childCount counts the direct children of the zone range [from, to).
func childCount(zones *model.ZoneList, from, to int) uint64 {
	var n uint64
	for j := from; j < to; {
		if j >= zones.Len() {
			zones.At(j) // out of range: the same panic as before
		}
		nx := zones.NextOf(zones.At(j))
		if nx <= j || nx > to {
			invalidf("zone %d has subtree end %d outside its parent (..%d)", j, nx, to)
		}
		n++
		j = nx
	}
	return n
}

// writeLeafRun writes the consecutive childless zones of frame fr (the
// first of which is one) straight from the thread's chunks, 26 bytes each,
// exactly as the general loop writes a leaf, and returns the running time
// reference. It stops at the frame's end or before a zone with children.
func (p *payloadWriter) writeLeafRun(fr *wframe, zs *model.ZoneList, ref int64) int64 {
	e := p.e
	nextra := uint32(len(p.t.ZoneExtras))
	okLoc := model.EmptySrcLoc // valid in every trace
	for fr.cur < fr.end {
		j := fr.cur
		c := zs.Run(j)
		k := 0
		org := uint32(j) + zs.Origin() // the stored Next of a leaf at j is j+1+org
		// Within this chunk and this frame, room for a flush's worth.
		n := min(len(c)-k, fr.end-j, (encFlushAt+leafZoneBytes)/leafZoneBytes)
		b := slices.Grow(e.buf, n*leafZoneBytes)
		o := len(b)
		b = b[:o+n*leafZoneBytes]
		done := 0
		// Fixed-offset stores into the grown slice: one bounds check per
		// zone instead of five appends' length checks and updates.
		for ; done < n; done++ {
			z := &c[k+done]
			if z.Next() != org+uint32(done)+1 {
				break
			}
			// A run mostly repeats one source location: check each new one.
			if v := z.SrcLoc; v != okLoc {
				p.checkSrcLoc(v, "zone")
				okLoc = v
			}
			x := z.Extra()
			if x >= nextra {
				invalidf("zone extra %d out of range", x)
			}
			start, end := z.Start(), z.End()
			d := b[o : o+leafZoneBytes : o+leafZoneBytes]
			binary.LittleEndian.PutUint16(d[0:], uint16(z.SrcLoc))
			binary.LittleEndian.PutUint64(d[2:], uint64(start-ref))
			binary.LittleEndian.PutUint32(d[10:], x)
			binary.LittleEndian.PutUint32(d[14:], 0)
			binary.LittleEndian.PutUint64(d[18:], uint64(end-start))
			o += leafZoneBytes
			ref = end
		}
		b = b[:o]
		e.buf = b
		fr.cur += done
		e.maybeFlush()
		if done < n {
			break
		}
	}
	return ref
}

// zoneCounts is what the writer needs to know of all CPU zones before it
// writes the first: per source location for the count hints, and for the
// zone section the totals and each thread's top-level zones.
type zoneCounts struct {
	total, vecs uint64
	tops        []uint64
}

// countZones makes the one pass over every CPU zone that the count hints
// and the zone section's header need, and returns the per-source-location
// counts (the rest it keeps for writeThreads). It counts the zones with
// children and each thread's top-level zones (the chain of Next from zone
// 0, checked as childCount checks it): the count hints' own walk, and a
// second one for the top level, had each cost as much as this whole pass
// on a trace of childless zones.
func (p *payloadWriter) countZones() *[1 << 16]uint64 {
	t := p.t
	cpu := new([1 << 16]uint64)
	zc := &p.zc
	zc.tops = make([]uint64, len(t.Threads))
	for i := range t.Threads {
		zs := &t.Threads[i].Zones
		n := zs.Len()
		zc.total += uint64(n)
		org := zs.Origin() // stored Next values are index+org
		top, nextTop, zi := uint64(0), 0, 0
		for _, chunk := range zs.Chunks() {
			for j := range chunk {
				z := &chunk[j]
				cpu[uint16(z.SrcLoc)]++
				nx := int(z.Next() - org)
				if nx > zi+1 {
					zc.vecs++
				}
				if zi == nextTop {
					if nx <= nextTop || nx > n {
						invalidf("zone %d has subtree end %d outside its parent (..%d)", nextTop, nx, n)
					}
					top++
					nextTop = nx
				}
				zi++
			}
		}
		zc.tops[i] = top
	}
	return cpu
}

func (p *payloadWriter) writeThreads() {
	e, t := p.e, p.t
	total, vecs, tops := p.zc.total, p.zc.vecs, p.zc.tops
	e.u64(total)
	e.u64(vecs)
	e.u64(uint64(len(t.Threads)))
	nextra := uint32(len(t.ZoneExtras))
	var stack []wframe
	for i := range t.Threads {
		th := &t.Threads[i]
		zs := &th.Zones
		e.u64(th.ID)
		e.u64(uint64(zs.Len()))
		e.u64(th.KernelSampleCnt)
		e.bool(th.IsFiber)
		if p.v >= ver(0, 11, 1) {
			e.i32(th.GroupHint)
		}
		top := tops[i]
		if top > math.MaxUint32 {
			invalidf("thread %d has too many top-level zones", th.ID)
		}
		e.u32(uint32(top))
		var ref int64
		stack = append(stack[:0], wframe{idx: -1, cur: 0, end: zs.Len()})
		released := 0 // chunks let go (release): every zone before fr.cur is written
		for len(stack) > 0 {
			fr := &stack[len(stack)-1]
			if fr.cur >= fr.end {
				if fr.idx >= 0 {
					end := fr.zend
					e.i64(end - ref)
					ref = end
				}
				stack = stack[:len(stack)-1]
				continue
			}
			if p.release {
				if k := zs.ChunkOf(fr.cur); k > released {
					zs.Release(k)
					released = k
				}
			}
			if z := zs.At(fr.cur); zs.NextOf(z) == fr.cur+1 {
				ref = p.writeLeafRun(fr, zs, ref)
				continue
			}
			j := fr.cur
			z := zs.At(j)
			nx := zs.NextOf(z)
			fr.cur = nx
			p.checkSrcLoc(z.SrcLoc, "zone")
			if z.Extra() >= nextra {
				invalidf("zone extra %d out of range", z.Extra())
			}
			start := z.Start()
			b := e.buf
			b = binary.LittleEndian.AppendUint16(b, uint16(z.SrcLoc))
			b = binary.LittleEndian.AppendUint64(b, uint64(start-ref))
			b = binary.LittleEndian.AppendUint32(b, z.Extra())
			ref = start
			var cc uint64
			if nx > j+1 {
				cc = childCount(zs, j+1, nx)
				if cc > math.MaxUint32 {
					invalidf("zone with too many children")
				}
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(cc))
			if cc == 0 {
				end := z.End()
				b = binary.LittleEndian.AppendUint64(b, uint64(end-ref))
				ref = end
			} else {
				stack = append(stack, wframe{idx: j, cur: j + 1, end: nx, zend: z.End()})
			}
			e.buf = b
			e.maybeFlush()
		}
		if p.release {
			zs.Release(math.MaxInt)
		}
		e.u64(uint64(len(th.Messages)))
		for _, mi := range th.Messages {
			if int(mi) >= len(t.Messages) {
				invalidf("thread %d message %d out of range", th.ID, mi)
			}
			e.u64(uint64(mi) + 1)
		}
		p.samples(th.CtxSwitchSamples)
		p.samples(th.Samples)
	}
}

func (p *payloadWriter) samples(s []model.Sample) {
	e := p.e
	e.u64(uint64(len(s)))
	var ref int64
	for _, x := range s {
		e.i64(x.Time - ref)
		ref = x.Time
		p.cs(x.CallStack, "sample")
		e.maybeFlush()
	}
}

func (p *payloadWriter) writeGpu() {
	e, t := p.e, p.t
	var total, vecs uint64
	for i := range t.GpuContexts {
		for _, tl := range t.GpuContexts[i].Timelines {
			total += uint64(len(tl.Zones))
			for j := range tl.Zones {
				if int(tl.Zones[j].Next) > j+1 {
					vecs++
				}
			}
		}
	}
	e.u64(total)
	e.u64(vecs)
	e.u64(uint64(len(t.GpuContexts)))
	var stack []wframe
	for i := range t.GpuContexts {
		c := &t.GpuContexts[i]
		e.u64(c.Thread)
		e.bool(c.Calibrated)
		e.u64(c.Count)
		e.f32(c.Period)
		e.u8(c.Type)
		p.sidx(c.Name, "GPU context name")
		e.u64(c.Overflow)
		notes := p.v >= ver(0, 12, 4)
		if notes {
			e.u64(uint64(len(c.NoteNames)))
			for _, nn := range c.NoteNames {
				e.i64(nn.ID)
				p.sidx(nn.Name, "GPU note name")
			}
		}
		e.u64(uint64(len(c.Timelines)))
		for _, tl := range c.Timelines {
			zs := tl.Zones
			e.u64(tl.Thread)
			e.u64(gpuChildCount(zs, 0, len(zs)))
			var cref, gref int64
			stack = append(stack[:0], wframe{idx: -1, cur: 0, end: len(zs)})
			for len(stack) > 0 {
				fr := &stack[len(stack)-1]
				if fr.cur >= fr.end {
					if fr.idx >= 0 {
						p.gpuEnd(&zs[fr.idx], &cref, &gref)
					}
					stack = stack[:len(stack)-1]
					continue
				}
				j := fr.cur
				z := &zs[j]
				nx := int(z.Next)
				fr.cur = nx
				e.i64(z.CPUStart - cref)
				cref = z.CPUStart
				e.i64(z.GPUStart - gref)
				gref = z.GPUStart
				p.checkSrcLoc(z.SrcLoc, "GPU zone")
				e.i16(z.SrcLoc)
				p.cs(z.CallStack, "GPU zone")
				if int(z.Thread) >= len(t.ThreadIndex) {
					invalidf("GPU zone thread %d out of range", z.Thread)
				}
				e.u16(z.Thread)
				var cc uint64
				if nx > j+1 {
					cc = gpuChildCount(zs, j+1, nx)
				}
				e.u64(cc)
				if cc == 0 {
					p.gpuEnd(z, &cref, &gref)
				} else {
					stack = append(stack, wframe{idx: j, cur: j + 1, end: nx})
				}
				e.maybeFlush()
			}
		}
		if !notes {
			continue
		}
		e.u64(uint64(len(c.Notes)))
		for _, g := range c.Notes {
			e.u16(g.QueryID)
			e.u64(uint64(len(g.Notes)))
			for _, nt := range g.Notes {
				e.i64(nt.ID)
				e.f64(nt.Value)
			}
		}
	}
}

func gpuChildCount(zones []model.GpuZone, from, to int) uint64 {
	var n uint64
	for j := from; j < to; {
		nx := int(zones[j].Next)
		if nx <= j || nx > to {
			invalidf("GPU zone %d has subtree end %d outside its parent (..%d)", j, nx, to)
		}
		n++
		j = nx
	}
	return n
}

func (p *payloadWriter) gpuEnd(z *model.GpuZone, cref, gref *int64) {
	p.e.i64(z.CPUEnd - *cref)
	*cref = z.CPUEnd
	p.e.i64(z.GPUEnd - *gref)
	*gref = z.GPUEnd
	if p.v >= ver(0, 12, 4) {
		p.e.u16(z.QueryID)
	}
}

func (p *payloadWriter) writeMemory() {
	e, t := p.e, p.t
	var total uint64
	for i := range t.MemPools {
		total += uint64(len(t.MemPools[i].Events))
	}
	e.u64(uint64(len(t.MemPools)))
	e.u64(total)
	for i := range t.MemPools {
		mp := &t.MemPools[i]
		var frees uint64
		for j := range mp.Events {
			if ev := &mp.Events[j]; ev.TimeFree >= 0 && ev.TimeFree-ev.TimeAlloc >= 0 {
				frees++
			}
		}
		e.u64(mp.Name)
		e.u64(uint64(len(mp.Events)))
		e.u64(mp.ActiveCount)
		e.u64(frees)
		var ref int64
		nthreads := len(t.ThreadIndex)
		for j := range mp.Events {
			ev := &mp.Events[j]
			e.u64(ev.Ptr)
			e.u64(ev.Size)
			p.cs(ev.CSAlloc, "memory")
			p.cs(ev.CSFree, "memory")
			e.i64(ev.TimeAlloc - ref)
			ref = ev.TimeAlloc
			if ev.TimeFree >= 0 && ev.TimeFree-ev.TimeAlloc >= 0 {
				e.i64(ev.TimeFree - ev.TimeAlloc)
			} else {
				e.i64(-1)
			}
			if int(ev.ThreadAlloc) >= nthreads || int(ev.ThreadFree) >= nthreads {
				invalidf("memory event thread out of range")
			}
			e.u16(ev.ThreadAlloc)
			e.u16(ev.ThreadFree)
			e.maybeFlush()
		}
		e.u64(mp.High)
		e.u64(mp.Low)
		e.u64(mp.Usage)
		e.u64(mp.Name)
	}
}
