package tracefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/gotracy/gotracy/model"
)

// ReadPayload decodes a decompressed payload (starting with "tracy" and the
// version) into a trace. size is an upper bound of the payload length (for
// a container: chunks × 64 KiB), or -1 if unknown; with a bound, every
// count is checked against it before anything is allocated.
func ReadPayload(r io.Reader, size int64, opts ...Option) (*model.Trace, error) {
	o := newOptions(opts)
	start := time.Now()
	d := newDecoder(r, size)
	if o.progress != nil {
		total := size
		d.progress = func(done int64) { o.progress(Progress{Op: "load", Done: done, Total: total}) }
	}
	t, version, err := readPayload(d, o)
	if err != nil {
		return nil, err
	}
	if o.report != nil {
		o.report.Version = version
		o.report.PayloadBytes = d.offset()
		o.report.Decode = time.Since(start)
		o.report.Duration = o.report.Decode
		o.report.Zones, o.report.GpuZones = countZones(t)
	}
	if o.progress != nil {
		o.progress(Progress{Op: "load", Done: d.offset(), Total: d.offset()})
	}
	return t, nil
}

func readPayload(d *decoder, o *options) (t *model.Trace, version uint32, err error) {
	defer func() {
		if r := recover(); r != nil {
			t = nil
			switch e := r.(type) {
			case *CorruptError:
				err = e
			case *VersionError:
				err = e
			case readError:
				if errors.Is(e.err, ErrCorrupt) || errors.Is(e.err, ErrNotTrace) {
					err = e.err // a container error already says where
				} else {
					err = fmt.Errorf("reading trace payload at offset %d: %w", d.offset(), e.err)
				}
			default:
				// A bug, not bad input: still never crash the caller.
				buf := make([]byte, 4096)
				buf = buf[:runtime.Stack(buf, false)]
				err = fmt.Errorf("tracefile: internal error at payload offset %d (%s): %v\n%s", d.offset(), d.section, r, buf)
			}
		}
	}()
	p := &payloadReader{d: d, t: &model.Trace{}, threadLoaded: o.threadLoaded, tz: o.threadZones, tzEvery: o.threadZonesEvery}
	p.read()
	return p.t, p.version, nil
}

type payloadReader struct {
	d                       *decoder
	t                       *model.Trace
	version                 uint32
	strPtr                  map[uint64]model.StrID // string-table ptr -> id
	nCS                     int                    // number of call stacks, known late
	csRefs                  []csRef                // call-stack references to check at the end
	childVecs, gpuChildVecs uint64
	threadLoaded            func(t *model.Trace, th *model.Thread, i int)

	tz      func(*ThreadZones) // WithThreadZones
	tzEvery int
}

// reportZones tells the WithThreadZones callback what thread th's zones
// are so far: every zone of the list is final but those of the open
// frames on stack.
func (p *payloadReader) reportZones(th int, zones *model.ZoneList, stack []zoneFrame, want int64, done bool) {
	tz := &ThreadZones{Thread: th, Chunks: slices.Clone(zones.Chunks()), Len: zones.Len(), Want: int(want), LastTime: p.t.Metadata.LastTime, Done: done}
	for _, fr := range stack {
		if fr.idx >= 0 {
			tz.Open = append(tz.Open, uint32(fr.idx))
		}
	}
	p.tz(tz)
}

// csRef remembers where a call-stack index was read so it can be checked
// once the call-stack section (which comes later) is known.
type csRef struct {
	off int64
	cs  uint32
	sec string
}

func (p *payloadReader) section(name string) { p.d.section = name }

func (p *payloadReader) cs24(sec string) uint32 {
	off := p.d.offset()
	v := p.d.u24()
	if v != 0 {
		p.csRefs = append(p.csRefs, csRef{off, v, sec})
	}
	return v
}

// csRefCheck for large per-record callstack fields: recorded lazily only
// when non-zero, so traces without call stacks pay nothing.

func (p *payloadReader) sidx() model.StrID {
	off := p.d.offset()
	v := p.d.u24()
	if p.strPtr != nil && int(v) >= len(p.t.Strings) {
		p.d.fail(off, fmt.Errorf("string index %d out of range (%d strings)", v, len(p.t.Strings)-1))
	}
	return model.StrID(v)
}

func (p *payloadReader) sref() model.StringRef {
	off := p.d.offset()
	r := model.StringRef{Str: p.d.u64(), Flags: p.d.u8()}
	if r.Flags&^(model.RefIsIdx|model.RefActive) != 0 {
		p.d.fail(off, fmt.Errorf("string reference flags %#x", r.Flags))
	}
	if r.Flags == model.RefActive|model.RefIsIdx && p.strPtr != nil && r.Str >= uint64(len(p.t.Strings)-1) {
		p.d.fail(off, fmt.Errorf("string index %d out of range", r.Str))
	}
	return r
}

func (p *payloadReader) srcloc() model.SourceLocation {
	return model.SourceLocation{Name: p.sref(), Function: p.sref(), File: p.sref(), Line: p.d.u32(), Color: p.d.u32()}
}

// srclocID reads and checks a zone/lock source-location value.
func (p *payloadReader) srclocID() model.SrcLocID {
	off := p.d.offset()
	v := p.d.i16()
	if !p.validSrcLoc(v) {
		p.d.fail(off, fmt.Errorf("source location %d out of range", v))
	}
	return v
}

func (p *payloadReader) validSrcLoc(v int16) bool {
	if v < 0 {
		return -int(v)-1 < len(p.t.DynSrcLocs)
	}
	return int(v) < len(p.t.SrcLocIndex) || v == model.EmptySrcLoc
}

func (p *payloadReader) localThread() uint16 {
	off := p.d.offset()
	v := p.d.u16()
	if int(v) >= len(p.t.ThreadIndex) {
		p.d.fail(off, fmt.Errorf("thread index %d out of range (%d threads)", v, len(p.t.ThreadIndex)))
	}
	return v
}

func (p *payloadReader) read() {
	d, t := p.d, p.t
	p.section("header")
	magic := d.next(8)
	if string(magic[:5]) != "tracy" {
		// What Tracy 0.14.0 does: files without the header predate 0.3.
		panic(&VersionError{Version: ver(0, 2, 0), Err: ErrLegacyVersion})
	}
	p.version = ver(uint32(magic[5]), uint32(magic[6]), uint32(magic[7]))
	if p.version > Version {
		panic(&VersionError{Version: p.version, Err: ErrUnsupportedVersion})
	}
	if p.version < MinVersion {
		panic(&VersionError{Version: p.version, Err: ErrLegacyVersion})
	}
	v := p.version
	if v < ver(0, 12, 3) {
		d.i64() // m_delay
	}

	p.section("metadata")
	m := &t.Metadata
	m.Resolution = d.i64()
	m.TimerMul = d.f64()
	m.LastTime = d.i64()
	m.FrameOffset = d.u64()
	m.PID = d.u64()
	m.SamplingPeriod = d.i64()
	m.CPUArch = d.u8()
	m.CPUID = d.u32()
	copy(m.CPUManufacturer[:], d.next(12))
	if v >= ver(0, 9, 2) {
		m.OnDemand = d.bool()
	} else {
		m.OnDemand = m.FrameOffset != 0
	}
	m.CaptureName = p.metaString()
	m.CaptureProgram = p.metaString()
	m.CaptureTime = d.u64()
	m.ExecutableTime = d.u64()
	m.HostInfo = p.metaString()

	p.section("topology")
	np := d.count(12)
	t.Topology = make([]model.CPUPackage, 0, d.capFor(np))
	for range np {
		pkg := model.CPUPackage{ID: d.u32()}
		if v >= ver(0, 11, 2) {
			nd := d.count(12)
			for range nd {
				die := model.CPUDie{ID: d.u32()}
				die.Cores = p.cores()
				pkg.Dies = append(pkg.Dies, die)
			}
		} else {
			pkg.Dies = []model.CPUDie{{ID: 0, Cores: p.cores()}}
		}
		t.Topology = append(t.Topology, pkg)
	}

	p.section("crash")
	t.Crash = model.Crash{Thread: d.u64(), Time: d.i64(), Message: d.u64()}
	coff := d.offset()
	t.Crash.CallStack = d.u32()
	if t.Crash.CallStack != 0 {
		p.csRefs = append(p.csRefs, csRef{coff, t.Crash.CallStack, "crash"})
	}

	p.section("frame sets")
	nf := d.count(17)
	if nf == 0 {
		d.failf("no frame set (Tracy needs the base frame set)")
	}
	t.FrameSets = make([]model.FrameSet, 0, d.capFor(nf))
	var imgRefs []int64 // offsets of frame-image references, checked later
	for range nf {
		fs := model.FrameSet{Name: d.u64(), Continuous: d.bool()}
		rec := int64(20)
		if fs.Continuous {
			rec = 12
		}
		k := d.count(rec)
		fs.Frames = make([]model.Frame, 0, d.capFor(k))
		var ref int64
		for range k {
			var f model.Frame
			ref += d.i64()
			f.Start = ref
			f.End = -1
			if !fs.Continuous {
				ref += d.i64()
				f.End = ref
			}
			off := d.offset()
			f.Image = d.i32()
			if f.Image < -1 {
				d.fail(off, fmt.Errorf("frame image index %d", f.Image))
			}
			if f.Image >= 0 {
				imgRefs = append(imgRefs, off, int64(f.Image))
			}
			fs.Frames = append(fs.Frames, f)
		}
		t.FrameSets = append(t.FrameSets, fs)
	}

	p.section("sections")
	var secTextOffs []int64
	if v >= ver(0, 13, 5) {
		ns := d.count(10)
		for range ns {
			c := model.SectionCategory{Category: d.u16()}
			c.Items = p.sectionItems(&secTextOffs)
			t.Sections = append(t.Sections, c)
		}
		nd := d.count(5)
		for range nd {
			sd := model.SectionDesc{Category: d.u16()}
			secTextOffs = append(secTextOffs, d.offset())
			sd.Text = model.StrID(d.u24())
			t.SectionDescs = append(t.SectionDescs, sd)
		}
	} else if v == ver(0, 13, 4) {
		items := p.sectionItems(&secTextOffs)
		if len(items) > 0 {
			t.Sections = append(t.Sections, model.SectionCategory{Category: 0, Items: items})
		}
	}

	p.section("string table")
	ns := d.count(16)
	t.Strings = make([]string, 1, d.capFor(ns)+1)
	p.strPtr = make(map[uint64]model.StrID, d.capFor(ns))
	for range ns {
		ptr := d.u64()
		s := d.str()
		id := model.StrID(len(t.Strings))
		t.Strings = append(t.Strings, s)
		if _, dup := p.strPtr[ptr]; !dup {
			p.strPtr[ptr] = id
		}
	}
	if len(t.Strings)-1 > 1<<24-2 {
		d.failf("%d strings exceed the 24-bit string index", len(t.Strings)-1)
	}
	p.checkSectionTexts(secTextOffs)

	p.section("string pointers")
	n := d.count(16)
	t.PtrStrings = make(map[uint64]model.StrID, d.capFor(n))
	for range n {
		key, ptr := d.u64(), d.u64()
		if id, ok := p.strPtr[ptr]; ok {
			t.PtrStrings[key] = id
		}
	}
	p.section("thread names")
	n = d.count(16)
	t.ThreadNames = make(map[uint64]model.StrID, d.capFor(n))
	for range n {
		tid, ptr := d.u64(), d.u64()
		if id, ok := p.strPtr[ptr]; ok {
			t.ThreadNames[tid] = id
		}
	}
	p.section("external thread names")
	n = d.count(24)
	t.ExtThreadNames = make(map[uint64][2]model.StrID, d.capFor(n))
	for range n {
		tid, a, b := d.u64(), d.u64(), d.u64()
		ia, oka := p.strPtr[a]
		ib, okb := p.strPtr[b]
		if oka && okb {
			t.ExtThreadNames[tid] = [2]model.StrID{ia, ib}
		}
	}

	p.section("thread tables")
	n = d.count(8)
	if n > math.MaxUint16+1 {
		d.failf("%d threads exceed the 16-bit thread index", n)
	}
	t.ThreadIndex = make([]uint64, 0, d.capFor(n))
	for range n {
		t.ThreadIndex = append(t.ThreadIndex, d.u64())
	}
	n = d.count(8)
	if n > math.MaxUint16+1 {
		d.failf("%d external threads exceed the 16-bit thread index", n)
	}
	t.ExtThreadIndex = make([]uint64, 0, d.capFor(n))
	for range n {
		t.ExtThreadIndex = append(t.ExtThreadIndex, d.u64())
	}

	p.section("source locations")
	off := d.offset()
	n = d.count(43)
	if n > 32767 {
		d.fail(off, fmt.Errorf("too many static source locations (%d)", n))
	}
	t.StaticSrcLocs = make(map[uint64]model.SourceLocation, n)
	for range n {
		key := d.u64()
		t.StaticSrcLocs[key] = p.srcloc()
	}
	off = d.offset()
	n = d.count(8)
	if n > 32767 {
		d.fail(off, fmt.Errorf("source-location index has %d entries", n))
	}
	t.SrcLocIndex = make([]uint64, 0, d.capFor(n))
	for range n {
		t.SrcLocIndex = append(t.SrcLocIndex, d.u64())
	}
	off = d.offset()
	n = d.count(35)
	if n > 32767 {
		d.fail(off, fmt.Errorf("too many dynamic source locations (%d)", n))
	}
	t.DynSrcLocs = make([]model.SourceLocation, 0, d.capFor(n))
	for range n {
		t.DynSrcLocs = append(t.DynSrcLocs, p.srcloc())
	}
	// Count hints: informational; the writer recomputes them.
	for range 2 {
		n = d.count(10)
		for range n {
			d.i16()
			d.u64()
		}
	}

	p.section("locks")
	n = d.count(27 + 16)
	t.Locks = make([]model.Lock, 0, d.capFor(n))
	for range n {
		l := model.Lock{ID: d.u32(), CustomName: p.sidx(), SrcLoc: p.srclocID(), Type: d.u8(), Valid: d.bool(), TimeAnnounce: d.i64(), TimeTerminate: d.i64()}
		off := d.offset()
		nt := d.count(8)
		if nt > 64 {
			d.fail(off, fmt.Errorf("lock %d has %d threads (at most 64)", l.ID, nt))
		}
		l.Threads = make([]uint64, 0, d.capFor(nt))
		for range nt {
			l.Threads = append(l.Threads, d.u64())
		}
		ne := d.count(12)
		l.Events = make([]model.LockEvent, 0, d.capFor(ne))
		ref := l.TimeAnnounce
		for range ne {
			ref += d.i64()
			e := model.LockEvent{Time: ref, SrcLoc: p.srclocID()}
			off := d.offset()
			e.Thread, e.Type = d.u8(), d.u8()
			if int(e.Thread) >= len(l.Threads) {
				d.fail(off, fmt.Errorf("lock event thread %d of %d", e.Thread, len(l.Threads)))
			}
			if e.Type > model.LockReleaseShared {
				d.fail(off+1, fmt.Errorf("lock event type %d", e.Type))
			}
			l.Events = append(l.Events, e)
		}
		t.Locks = append(t.Locks, l)
	}

	p.section("messages")
	msgSize := int64(34)
	if v < ver(0, 13, 2) {
		msgSize = 32
	}
	n = d.count(msgSize)
	t.Messages = make([]model.Message, 0, d.capFor(n))
	msgIDs := make(map[uint64]uint32, d.capFor(n))
	var ref int64
	for i := range n {
		off := d.offset()
		id := d.u64()
		if _, dup := msgIDs[id]; dup {
			d.fail(off, fmt.Errorf("duplicate message id %#x", id))
		}
		msgIDs[id] = uint32(i)
		ref += d.i64()
		msg := model.Message{Time: ref, Text: p.sref(), Color: d.u32(), CallStack: p.cs24("messages"), Thread: math.MaxUint16}
		if v >= ver(0, 13, 2) {
			msg.Source, msg.Severity = d.u8(), d.u8()
		} else {
			msg.Source, msg.Severity = model.MsgSourceUser, model.SeverityInfo
		}
		t.Messages = append(t.Messages, msg)
	}

	p.section("zone extras")
	n = d.count(12)
	t.ZoneExtras = make([]model.ZoneExtra, 0, d.capFor(n))
	for range n {
		t.ZoneExtras = append(t.ZoneExtras, model.ZoneExtra{CallStack: p.cs24("zone extras"), Text: p.sidx(), Name: p.sidx(), Color: d.u24()})
	}

	p.readThreads(msgIDs)
	p.readGpu()

	p.section("plots")
	n = d.count(48)
	t.Plots = make([]model.Plot, 0, d.capFor(n))
	for range n {
		pl := model.Plot{Type: d.u8(), Format: d.u8(), ShowSteps: d.bool(), Fill: d.bool(), Color: d.u32(), Name: d.u64(), Min: d.f64(), Max: d.f64(), Sum: d.f64()}
		k := d.count(16)
		pl.Points = make([]model.PlotPoint, 0, d.capFor(k))
		var ref int64
		for range k {
			ref += d.i64()
			pl.Points = append(pl.Points, model.PlotPoint{Time: ref, Value: d.f64()})
		}
		if v < ver(0, 13, 3) {
			slices.SortStableFunc(pl.Points, func(a, b model.PlotPoint) int { return cmpI64(a.Time, b.Time) })
		}
		t.Plots = append(t.Plots, pl)
	}

	p.readMemory()

	p.section("call stacks")
	n = d.count(2)
	if n > model.MaxCallStacks {
		d.failf("%d call stacks exceed the 24-bit index", n)
	}
	t.CallStackOffsets = make([]uint32, 0, d.capFor(n))
	for range n {
		off := d.offset()
		k := int(d.u16())
		if int64(k)*8 > d.remaining() {
			d.fail(off, io.ErrUnexpectedEOF)
		}
		if len(t.CallStackFrames)+k > math.MaxUint32 {
			d.fail(off, fmt.Errorf("too many call-stack frames"))
		}
		for range k {
			t.CallStackFrames = append(t.CallStackFrames, d.u64())
		}
		t.CallStackOffsets = append(t.CallStackOffsets, uint32(len(t.CallStackFrames)))
	}
	p.nCS = n
	p.checkCallStacks()

	p.section("call-stack frames")
	n = d.count(12)
	t.Frames = make(map[uint64]model.FrameData, d.capFor(n))
	for range n {
		id := d.u64()
		k := int(d.u8())
		fd := model.FrameData{ImageName: p.sidx()}
		if k > 0 {
			fd.Frames = make([]model.InlineFrame, k)
		}
		for i := range fd.Frames {
			fd.Frames[i] = model.InlineFrame{Name: p.sidx(), File: p.sidx(), Line: d.u32(), SymAddr: d.u64()}
		}
		t.Frames[id] = fd
	}

	p.section("app info")
	n = d.count(9)
	t.AppInfo = make([]model.StringRef, 0, d.capFor(n))
	for range n {
		t.AppInfo = append(t.AppInfo, p.sref())
	}

	p.section("frame images")
	t.FrameImageDict = d.bytes(uint64(d.u32()))
	n = d.count(5)
	t.FrameImages = make([]model.FrameImage, 0, d.capFor(n))
	for range n {
		off := d.offset()
		img := model.FrameImage{W: d.u16(), H: d.u16(), Flip: d.bool()}
		if img.W%4 != 0 || img.H%4 != 0 {
			d.fail(off, fmt.Errorf("frame image %dx%d is not made of 4x4 blocks", img.W, img.H))
		}
		img.Data = d.bytes(uint64(img.W) * uint64(img.H) / 2)
		t.FrameImages = append(t.FrameImages, img)
	}
	for i := 0; i < len(imgRefs); i += 2 {
		if imgRefs[i+1] >= int64(len(t.FrameImages)) {
			d.fail(imgRefs[i], fmt.Errorf("frame image index %d out of range (%d images)", imgRefs[i+1], len(t.FrameImages)))
		}
	}

	p.section("context switches")
	csSize := int64(36)
	if v < ver(0, 11, 3) {
		csSize = 35
	}
	n = d.count(16)
	t.CtxSwitches = make([]model.ThreadCtxSwitches, 0, d.capFor(n))
	for range n {
		tc := model.ThreadCtxSwitches{Thread: d.u64()}
		k := d.count(csSize)
		tc.Events = make([]model.CtxSwitch, 0, d.capFor(k))
		var ref int64
		for range k {
			var e model.CtxSwitch
			ref += d.i64()
			e.Wakeup = ref
			ref += d.i64()
			e.Start = ref
			ref += d.i64()
			e.End = ref
			e.CPU, e.Reason, e.State, e.Thread = d.u8(), int8(d.u8()), int8(d.u8()), d.u64()
			if v >= ver(0, 11, 3) {
				e.WakeupCPU = d.u8()
			} else {
				e.WakeupCPU = e.CPU
			}
			tc.Events = append(tc.Events, e)
		}
		t.CtxSwitches = append(t.CtxSwitches, tc)
	}

	p.section("per-CPU data")
	d.u64() // total: informational
	for c := range t.CPUData {
		k := d.count(18)
		if k == 0 {
			continue
		}
		es := make([]model.CPUEntry, 0, d.capFor(k))
		var ref int64
		for range k {
			var c model.CPUEntry
			ref += d.i64()
			c.Start = ref
			ref += d.i64()
			c.End = ref
			off := d.offset()
			c.Thread = d.u16()
			if int(c.Thread) >= len(t.ExtThreadIndex) {
				d.fail(off, fmt.Errorf("external thread index %d out of range (%d)", c.Thread, len(t.ExtThreadIndex)))
			}
			es = append(es, c)
		}
		t.CPUData[c] = es
	}

	p.section("thread processes")
	n = d.count(16)
	t.TidToPid = make(map[uint64]uint64, d.capFor(n))
	for range n {
		tid := d.u64()
		t.TidToPid[tid] = d.u64()
	}
	n = d.count(24)
	t.CPUThreadData = make([]model.CPUThreadData, 0, d.capFor(n))
	for range n {
		t.CPUThreadData = append(t.CPUThreadData, model.CPUThreadData{Thread: d.u64(), RunningTime: d.i64(), RunningRegions: d.u32(), Migrations: d.u32()})
	}

	p.section("symbols")
	aOff := d.offset()
	nonInline, inlinePlus1 := d.u64(), d.u64()
	n = d.count(32)
	t.Symbols = make([]model.Symbol, 0, d.capFor(n))
	var nInline uint64
	for range n {
		s := model.Symbol{Addr: d.u64(), Name: p.sidx(), File: p.sidx(), Line: d.u32(), ImageName: p.sidx(), CallFile: p.sidx(), CallLine: d.u32(), IsInline: d.bool(), Size: d.u24()}
		if s.IsInline {
			nInline++
		}
		t.Symbols = append(t.Symbols, s)
	}
	if nonInline != uint64(n)-nInline || inlinePlus1 < nInline || inlinePlus1 > nInline+1 {
		d.fail(aOff, fmt.Errorf("symbol counts %d/%d disagree with %d non-inline and %d inline symbols", nonInline, inlinePlus1, uint64(n)-nInline, nInline))
	}

	p.section("symbol code")
	n = d.count(12)
	t.SymbolCode = make([]model.SymbolCode, 0, d.capFor(n))
	for range n {
		sc := model.SymbolCode{Addr: d.u64()}
		sc.Code = d.bytes(uint64(d.u32()))
		t.SymbolCode = append(t.SymbolCode, sc)
	}
	p.section("code symbols")
	n = d.count(16)
	t.CodeSymbols = make([]model.CodeSymbol, 0, d.capFor(n))
	for range n {
		t.CodeSymbols = append(t.CodeSymbols, model.CodeSymbol{CodeAddr: d.u64(), SymAddr: d.u64()})
	}
	p.section("hardware samples")
	n = d.count(56)
	t.HwSamples = make([]model.HwSample, 0, d.capFor(n))
	for range n {
		hs := model.HwSample{Addr: d.u64()}
		for j := range hs.Times {
			k := d.count(8)
			if k == 0 {
				continue
			}
			ts := make([]int64, 0, d.capFor(k))
			var ref int64
			for range k {
				ref += d.i64()
				ts = append(ts, ref)
			}
			hs.Times[j] = ts
		}
		t.HwSamples = append(t.HwSamples, hs)
	}
	p.section("source cache")
	n = d.count(8)
	t.SourceCache = make([]model.SourceFile, 0, d.capFor(n))
	for range n {
		name := string(d.bytes(uint64(d.u32())))
		t.SourceCache = append(t.SourceCache, model.SourceFile{Name: name, Data: d.bytes(uint64(d.u32()))})
	}

	p.section("end")
	if !d.atEOF() {
		d.failf("unexpected data after the last section")
	}
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// metaString reads a capture name, program or host info string. Tracy reads
// them into a 1 KiB stack buffer.
func (p *payloadReader) metaString() string {
	off := p.d.offset()
	n := p.d.u64()
	if n >= 1024 {
		p.d.fail(off, fmt.Errorf("metadata string of %d bytes (Tracy's limit is 1023)", n))
	}
	return string(p.d.bytes(n))
}

func (p *payloadReader) cores() []model.CPUCore {
	d := p.d
	nc := d.count(12)
	cores := make([]model.CPUCore, 0, d.capFor(nc))
	for range nc {
		c := model.CPUCore{ID: d.u32()}
		nt := d.count(4)
		c.Threads = make([]uint32, 0, d.capFor(nt))
		for range nt {
			c.Threads = append(c.Threads, d.u32())
		}
		cores = append(cores, c)
	}
	return cores
}

func (p *payloadReader) sectionItems(textOffs *[]int64) []model.SectionItem {
	d := p.d
	m := d.count(15)
	items := make([]model.SectionItem, 0, d.capFor(m))
	for range m {
		it := model.SectionItem{Start: d.i48(), End: d.i48()}
		*textOffs = append(*textOffs, d.offset())
		it.Text = model.StrID(d.u24())
		items = append(items, it)
	}
	return items
}

// checkSectionTexts validates the section texts read before the string
// table existed.
func (p *payloadReader) checkSectionTexts(offs []int64) {
	i := 0
	check := func(id model.StrID) {
		if int(id) >= len(p.t.Strings) {
			p.d.fail(offs[i], fmt.Errorf("string index %d out of range (%d strings)", id, len(p.t.Strings)-1))
		}
		i++
	}
	for _, c := range p.t.Sections {
		for _, it := range c.Items {
			check(it.Text)
		}
	}
	for _, sd := range p.t.SectionDescs {
		check(sd.Text)
	}
}

func (p *payloadReader) checkCallStacks() {
	for _, r := range p.csRefs {
		if int(r.cs) > p.nCS {
			p.d.section = r.sec
			p.d.fail(r.off, fmt.Errorf("call stack %d out of range (%d call stacks)", r.cs, p.nCS))
		}
	}
	p.csRefs = nil
}

type zoneFrame struct {
	idx  int32 // zone index, -1 for the thread's top level
	left uint32
}

// leafZoneBytes is a zone without children in the file: srcloc i16, start
// delta i64, extra u32, child count u32 (0), end delta i64.
const leafZoneBytes = 2 + 8 + 4 + 4 + 8

// leafRun is the hot loop of a load: it decodes the consecutive childless
// zones of frame fr that are already in the decoder's buffer straight into
// the thread's last chunk (no Zone built and copied, no per-field buffer
// check, no At lookup to set the end), and returns the running time
// reference. It stops before a zone with children, before one that fails a
// check and at the end of what is buffered; the general loop then takes
// that zone, so errors are reported exactly as there, at the same offsets.
// A leaf stores the same fields in the same order as the general loop.
func (p *payloadReader) leafRun(fr *zoneFrame, zones *model.ZoneList, ref int64) int64 {
	d, t := p.d, p.t
	nExtras := uint32(len(t.ZoneExtras))
	nDyn, nLoc := len(t.DynSrcLocs), len(t.SrcLocIndex)
	for fr.left > 0 {
		avail := (d.n - d.p) / leafZoneBytes
		base := zones.Len()
		if avail == 0 || base >= math.MaxUint32-2 {
			return ref
		}
		room := zones.Spare()
		k := min(avail, len(room), int(fr.left), math.MaxUint32-2-base)
		buf := d.buf[d.p : d.p+k*leafZoneBytes]
		room = room[:k]
		done := 0
		for ; done < k; done++ {
			b := buf[done*leafZoneBytes : done*leafZoneBytes+leafZoneBytes : done*leafZoneBytes+leafZoneBytes]
			cc := binary.LittleEndian.Uint32(b[14:])
			srcloc := int16(binary.LittleEndian.Uint16(b[0:]))
			extra := binary.LittleEndian.Uint32(b[10:])
			if cc != 0 || extra >= nExtras {
				break
			}
			if srcloc < 0 {
				if -int(srcloc)-1 >= nDyn {
					break
				}
			} else if int(srcloc) >= nLoc && srcloc != model.EmptySrcLoc {
				break
			}
			ref += int64(binary.LittleEndian.Uint64(b[2:]))
			z := &room[done]
			z.SrcLoc = srcloc
			z.SetStart(ref)
			z.SetExtra(extra)
			ref += int64(binary.LittleEndian.Uint64(b[18:]))
			z.SetEnd(ref)
			z.SetNext(uint32(base + done + 1))
		}
		d.p += done * leafZoneBytes
		zones.Extend(done)
		fr.left -= uint32(done)
		if done < k {
			return ref
		}
	}
	return ref
}

func (p *payloadReader) readThreads(msgIDs map[uint64]uint32) {
	d, t := p.d, p.t
	p.section("zones")
	d.u64() // total zones: informational
	hOff := d.offset()
	childVecs := d.u64()
	n := d.count(8 + 8 + 8 + 1 + 4 + 4 + 8 + 8 + 8)
	t.Threads = make([]model.Thread, 0, d.capFor(n))
	msgSeen := make([]bool, len(t.Messages))
	local := make(map[uint64]uint16, len(t.ThreadIndex))
	for i, tid := range t.ThreadIndex {
		if _, dup := local[tid]; !dup {
			local[tid] = uint16(i)
		}
	}
	var stack []zoneFrame
	var vecs uint64
	// A thread's zone count is only a claim (the zones follow, nested), so
	// reservations from all threads together stay within what the rest of
	// the payload can hold: a file cannot make every thread reserve the
	// whole remainder. Real files' counts are exact and always fit.
	zoneBudget := d.remaining() / 26
	for range n {
		t.Threads = append(t.Threads, model.Thread{})
		th := &t.Threads[len(t.Threads)-1]
		th.ID = d.u64()
		cntOff := d.offset()
		cnt := d.u64()
		d.checkCount(cntOff, cnt, 26)
		th.KernelSampleCnt = d.u64()
		th.IsFiber = d.bool()
		if p.version >= ver(0, 11, 1) {
			th.GroupHint = d.i32()
		}
		top := d.u32()
		reserve := int64(0)
		if int64(cnt) <= zoneBudget {
			reserve = int64(cnt)
			zoneBudget -= reserve
		}
		zones := &th.Zones
		zones.Grow(d.capFor(int(reserve)))
		var ref int64
		stack = append(stack[:0], zoneFrame{idx: -1, left: top})
		nextReport := p.tzEvery
		for len(stack) > 0 {
			if p.tz != nil && zones.Len() >= nextReport {
				p.reportZones(len(t.Threads)-1, zones, stack, reserve, false)
				nextReport = zones.Len() + p.tzEvery
			}
			fr := &stack[len(stack)-1]
			if fr.left == 0 {
				idx := fr.idx
				stack = stack[:len(stack)-1]
				if idx >= 0 {
					ref += d.i64()
					z := zones.At(int(idx))
					z.SetEnd(ref)
					z.SetNext(uint32(zones.Len()))
				}
				continue
			}
			if d.n-d.p >= leafZoneBytes {
				ref = p.leafRun(fr, zones, ref)
				if fr.left == 0 {
					continue
				}
			}
			fr.left--
			b := d.next(18)
			srcloc := int16(uint16(b[0]) | uint16(b[1])<<8)
			ref += int64(uint64(b[2]) | uint64(b[3])<<8 | uint64(b[4])<<16 | uint64(b[5])<<24 | uint64(b[6])<<32 | uint64(b[7])<<40 | uint64(b[8])<<48 | uint64(b[9])<<56)
			extra := uint32(b[10]) | uint32(b[11])<<8 | uint32(b[12])<<16 | uint32(b[13])<<24
			cc := uint32(b[14]) | uint32(b[15])<<8 | uint32(b[16])<<16 | uint32(b[17])<<24
			if !p.validSrcLoc(srcloc) {
				d.fail(d.offset()-18, fmt.Errorf("zone source location %d out of range", srcloc))
			}
			if int(extra) >= len(t.ZoneExtras) {
				d.fail(d.offset()-8, fmt.Errorf("zone extra %d out of range (%d)", extra, len(t.ZoneExtras)))
			}
			if zones.Len() >= math.MaxUint32-1 {
				d.failf("too many zones in one thread")
			}
			var z model.Zone
			z.SrcLoc = srcloc
			z.SetStart(ref)
			z.SetExtra(extra)
			idx := int32(zones.Append(z))
			if cc > 0 {
				vecs++
				if int64(cc) > d.remaining()/34 {
					d.fail(d.offset()-4, fmt.Errorf("child count %d exceeds what remains", cc))
				}
				stack = append(stack, zoneFrame{idx: idx, left: cc})
			} else {
				ref += d.i64()
				zp := zones.At(int(idx))
				zp.SetEnd(ref)
				zp.SetNext(uint32(idx + 1))
			}
		}
		zones.Trim() // a count claimed larger than the zones that came
		if p.tz != nil {
			p.reportZones(len(t.Threads)-1, zones, nil, reserve, true)
		}

		mnOff := d.offset()
		mn := d.count(8)
		if mn > len(t.Messages) {
			d.fail(mnOff, fmt.Errorf("thread lists %d messages, more than the %d there are", mn, len(t.Messages)))
		}
		if mn > 0 {
			th.Messages = make([]uint32, mn)
		}
		lt, ok := local[th.ID]
		for i := range th.Messages {
			off := d.offset()
			id := d.u64()
			mi, found := msgIDs[id]
			if !found {
				d.fail(off, fmt.Errorf("message id %#x not in the message list", id))
			}
			if msgSeen[mi] {
				d.fail(off, fmt.Errorf("message id %#x listed twice", id))
			}
			msgSeen[mi] = true
			if !ok {
				// As Tracy: a message thread missing from the local table is
				// added to it.
				if len(t.ThreadIndex) > math.MaxUint16 {
					d.fail(off, fmt.Errorf("too many threads"))
				}
				lt = uint16(len(t.ThreadIndex))
				t.ThreadIndex = append(t.ThreadIndex, th.ID)
				local[th.ID] = lt
				ok = true
			}
			t.Messages[mi].Thread = lt
			th.Messages[i] = mi
		}
		th.CtxSwitchSamples = p.samples()
		if p.version < ver(0, 13, 6) {
			slices.SortStableFunc(th.CtxSwitchSamples, func(a, b model.Sample) int { return cmpI64(a.Time, b.Time) })
		}
		th.Samples = p.samples()
		if p.threadLoaded != nil {
			p.threadLoaded(t, th, len(t.Threads)-1)
		}
	}
	if vecs > childVecs {
		d.fail(hOff, fmt.Errorf("child-vector count %d is less than the %d zones with children", childVecs, vecs))
	}
	p.childVecs = childVecs
}

func (p *payloadReader) samples() []model.Sample {
	d := p.d
	k := d.count(11)
	if k == 0 {
		return nil
	}
	s := make([]model.Sample, 0, d.capFor(k))
	var ref int64
	for range k {
		ref += d.i64()
		s = append(s, model.Sample{Time: ref, CallStack: p.cs24("samples")})
	}
	return s
}

type gpuFrame struct {
	idx  int32
	left uint64
}

func (p *payloadReader) readGpu() {
	d, t := p.d, p.t
	p.section("GPU zones")
	d.u64() // total: informational
	hOff := d.offset()
	childVecs := d.u64()
	n := d.count(8 + 1 + 8 + 4 + 1 + 3 + 8 + 8 + 8 + 8)
	t.GpuContexts = make([]model.GpuContext, 0, d.capFor(n))
	notes := p.version >= ver(0, 12, 4)
	zsize := int64(49)
	if notes {
		zsize = 51
	}
	var vecs uint64
	var stack []gpuFrame
	for range n {
		c := model.GpuContext{Thread: d.u64(), Calibrated: d.bool(), Count: d.u64(), Period: d.f32(), Type: d.u8(), Name: p.sidx(), Overflow: d.u64()}
		if notes {
			nn := d.count(11)
			c.NoteNames = make([]model.GpuNoteName, 0, d.capFor(nn))
			for range nn {
				c.NoteNames = append(c.NoteNames, model.GpuNoteName{ID: d.i64(), Name: p.sidx()})
			}
		}
		td := d.count(16)
		for range td {
			tl := model.GpuTimeline{Thread: d.u64()}
			zoff := d.offset()
			z := d.u64()
			d.checkCount(zoff, z, zsize)
			zones := make([]model.GpuZone, 0, d.capFor(int(z)))
			var cref, gref int64
			stack = append(stack[:0], gpuFrame{idx: -1, left: z})
			for len(stack) > 0 {
				fr := &stack[len(stack)-1]
				if fr.left == 0 {
					idx := fr.idx
					stack = stack[:len(stack)-1]
					if idx >= 0 {
						p.gpuEnd(&zones[idx], &cref, &gref, notes)
						zones[idx].Next = uint32(len(zones))
					}
					continue
				}
				fr.left--
				var g model.GpuZone
				cref += d.i64()
				g.CPUStart = cref
				gref += d.i64()
				g.GPUStart = gref
				g.SrcLoc = p.srclocID()
				g.CallStack = p.cs24("GPU zones")
				g.Thread = p.localThread()
				ccOff := d.offset()
				cc := d.u64()
				if len(zones) >= math.MaxUint32-1 {
					d.failf("too many GPU zones")
				}
				idx := int32(len(zones))
				zones = append(zones, g)
				if cc > 0 {
					vecs++
					d.checkCount(ccOff, cc, zsize)
					stack = append(stack, gpuFrame{idx: idx, left: cc})
				} else {
					p.gpuEnd(&zones[idx], &cref, &gref, notes)
					zones[idx].Next = uint32(idx + 1)
				}
			}
			tl.Zones = zones
			if len(zones) > 0 { // Tracy drops empty timelines
				c.Timelines = append(c.Timelines, tl)
			}
		}
		if notes {
			nq := d.count(10)
			c.Notes = make([]model.GpuNoteGroup, 0, d.capFor(nq))
			for range nq {
				g := model.GpuNoteGroup{QueryID: d.u16()}
				k := d.count(16)
				g.Notes = make([]model.GpuNote, 0, d.capFor(k))
				for range k {
					g.Notes = append(g.Notes, model.GpuNote{ID: d.i64(), Value: d.f64()})
				}
				c.Notes = append(c.Notes, g)
			}
		}
		t.GpuContexts = append(t.GpuContexts, c)
	}
	if vecs > childVecs {
		d.fail(hOff, fmt.Errorf("GPU child-vector count %d is less than the %d zones with children", childVecs, vecs))
	}
	p.gpuChildVecs = childVecs
}

func (p *payloadReader) gpuEnd(g *model.GpuZone, cref, gref *int64, notes bool) {
	*cref += p.d.i64()
	g.CPUEnd = *cref
	*gref += p.d.i64()
	g.GPUEnd = *gref
	if notes {
		g.QueryID = p.d.u16()
	}
}

func (p *payloadReader) readMemory() {
	d, t := p.d, p.t
	p.section("memory")
	np := d.count(8 + 8 + 8 + 8 + 32)
	d.u64() // total events: informational
	t.MemPools = make([]model.MemPool, 0, d.capFor(np))
	for range np {
		mp := model.MemPool{Name: d.u64()}
		eoff := d.offset()
		e := d.u64()
		d.checkCount(eoff, e, 42)
		mp.ActiveCount = d.u64()
		foff := d.offset()
		frees := d.u64()
		mp.Events = make([]model.MemEvent, 0, d.capFor(int(e)))
		var ref int64
		var freed uint64
		for range e {
			ev := model.MemEvent{Ptr: d.u64(), Size: d.u64(), CSAlloc: p.cs24("memory"), CSFree: p.cs24("memory")}
			ref += d.i64()
			ev.TimeAlloc = ref
			tf := d.i64()
			if tf >= 0 {
				ev.TimeFree = ref + tf
				freed++
			} else {
				ev.TimeFree = -1
			}
			ev.ThreadAlloc = p.localThread()
			ev.ThreadFree = p.localThread()
			mp.Events = append(mp.Events, ev)
		}
		if freed != frees {
			d.fail(foff, fmt.Errorf("free count %d but %d events are freed", frees, freed))
		}
		mp.High, mp.Low, mp.Usage = d.u64(), d.u64(), d.u64()
		d.u64() // the name again
		t.MemPools = append(t.MemPools, mp)
	}
}

func countZones(t *model.Trace) (cpu, gpu int64) {
	cpu = int64(t.ZoneCount())
	for i := range t.GpuContexts {
		for _, tl := range t.GpuContexts[i].Timelines {
			gpu += int64(len(tl.Zones))
		}
	}
	return cpu, gpu
}
