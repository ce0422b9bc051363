package capture

import (
	"encoding/binary"
	"math"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// processFrame applies one decompressed frame. It returns a decoding error
// (the stream cannot be resynchronised after one) or nil; instrumentation
// failures are left in w.fail and stop the loop too.
func (w *worker) processFrame(frame []byte, base int64) error {
	var d protocol.ItemDecoder
	d.Reset(frame, base)
	for {
		// Runs of zone items (most of a heavy client's) take zoneRun.
		if p := int(d.Offset() - base); p < len(frame) && (frame[p] == byte(protocol.ZoneBegin16) || frame[p] == byte(protocol.ZoneEnd16)) {
			pos := w.zoneRun(frame, p)
			if w.fail != nil {
				return nil
			}
			d.Reset(frame[pos:], base+int64(pos))
		}
		it, ok := d.Next()
		if !ok {
			break
		}
		w.events++
		w.process(it)
		if w.fail != nil {
			return nil
		}
	}
	return d.Err()
}

// Sizes of the two items zoneRun takes: tag, u16 time delta, u64 source
// location; tag, u16 time delta (protocol.Specs).
const (
	zoneBegin16Size = 11
	zoneEnd16Size   = 3
	leafZoneSize    = zoneBegin16Size + zoneEnd16Size
)

// leafRun applies the run of leaf zones (leafZone's begin-end pairs) at
// frame[pos:] whose source location is the last one checked, and returns
// where it stopped. It is leafZone in a loop with the worker's state in
// locals and the zones written straight into the thread's last chunk; the
// caller saw the conditions leafZone needs hold for the first pair, and
// they stay true through the run (nothing in it changes the thread, the
// pending id or the checked key). The thread already has its local index,
// so no zone of the run can fail.
func (w *worker) leafRun(td *threadState, frame []byte, pos int) int {
	key := w.checkSrclocLast
	sl := w.shrinkSourceLocation(key)
	org := td.zones.Origin() // stored Next values are index+org (a flight recorder's list)
	ref, last := w.refs.Thread, w.lastTime
	base, mul := w.baseTime, w.timerMul
	n := 0
	for {
		room := td.zones.Spare()
		i0 := td.zones.Len()
		k := 0
		for ; k < len(room) && isLeafPair(frame, pos, key); k++ {
			b := frame[pos : pos+leafZoneSize : pos+leafZoneSize]
			tb := ref + int64(binary.LittleEndian.Uint16(b[1:]))
			ref = tb + int64(binary.LittleEndian.Uint16(b[zoneBegin16Size+1:]))
			start, end := int64(float64(tb-base)*mul), int64(float64(ref-base)*mul) // tscTime
			last = max(last, start, end)
			z := &room[k]
			z.SetStart(start)
			z.SetEnd(end)
			z.SrcLoc = sl
			z.SetNext(uint32(i0+k+1) + org)
			pos += leafZoneSize
		}
		td.zones.Extend(k)
		n += k
		// A new chunk only for a zone that goes in it.
		if k < len(room) || !isLeafPair(frame, pos, key) {
			break
		}
	}
	w.refs.Thread, w.lastTime = ref, last
	w.events += 2 * uint64(n)
	w.zones += uint64(n)
	return pos
}

// isLeafPair reports whether frame[pos:] starts with a whole ZoneBegin16 of
// source location key followed by a whole ZoneEnd16.
func isLeafPair(frame []byte, pos int, key uint64) bool {
	return len(frame)-pos >= leafZoneSize && protocol.QueueType(frame[pos]) == protocol.ZoneBegin16 &&
		protocol.QueueType(frame[pos+zoneBegin16Size]) == protocol.ZoneEnd16 && binary.LittleEndian.Uint64(frame[pos+3:]) == key
}

// leafZone applies a ZoneBegin16 followed at once by its ZoneEnd16 (b holds
// both): a zone with no children, nearly every zone of a zone-heavy client.
// The effect is exactly zoneBegin then zoneEnd's, but the zone is written
// once, whole, with no push and pop of the open-zone and id stacks and no
// At to find it again. The caller checked what makes that equivalent: the
// thread is current and no fiber, no ZoneValidation id is pending (the end
// would compare it with the begin's), and the source location repeats the
// last one checked (so the begin cannot fail or queue a query).
func (w *worker) leafZone(td *threadState, b []byte) {
	w.events += 2
	tb := w.refs.Thread + int64(binary.LittleEndian.Uint16(b[1:]))
	te := tb + int64(binary.LittleEndian.Uint16(b[zoneBegin16Size+1:]))
	w.refs.Thread = te
	start, end := w.tscTime(tb), w.tscTime(te)
	sl := w.shrinkSourceLocation(binary.LittleEndian.Uint64(b[3:]))
	w.setLast(start)
	w.setLast(end)
	w.zones++
	i := td.zones.Len()
	z := &td.zones.Spare()[0]
	td.zones.Extend(1)
	z.SetStart(start)
	z.SetEnd(end)
	z.SrcLoc = sl
	td.zones.SetNextOf(z, i+1)
	if !td.hasLocal && end > start {
		w.localThread(td.id)
		td.hasLocal = true
	}
}

// zoneRun applies the run of whole ZoneBegin16 and ZoneEnd16 items at
// frame[pos:] (all but a handful of a heavy client's items) straight from
// the bytes, exactly as process does for them, without building an Item or
// going through its switch, and returns where it stopped: before any other
// item, before one cut short by the frame's end (the decoder reports it),
// or after the item that made the worker fail.
func (w *worker) zoneRun(frame []byte, pos int) int {
	for pos < len(frame) {
		switch protocol.QueueType(frame[pos]) {
		case protocol.ZoneBegin16:
			if len(frame)-pos < zoneBegin16Size {
				return pos
			}
			if len(frame)-pos >= leafZoneSize && protocol.QueueType(frame[pos+zoneBegin16Size]) == protocol.ZoneEnd16 &&
				binary.LittleEndian.Uint64(frame[pos+3:]) == w.checkSrclocLast {
				if td := w.ctxData; td != nil && td.fiber == nil && td.nextID == 0 {
					if td.hasLocal {
						pos = w.leafRun(td, frame, pos)
						continue
					}
					w.leafZone(td, frame[pos:pos+leafZoneSize:pos+leafZoneSize])
					pos += leafZoneSize
					if w.fail != nil {
						return pos
					}
					continue
				}
			}
			b := frame[pos : pos+zoneBegin16Size : pos+zoneBegin16Size]
			w.events++
			w.refs.Thread += int64(binary.LittleEndian.Uint16(b[1:]))
			w.zoneBegin(w.refs.Thread, binary.LittleEndian.Uint64(b[3:]), false)
			pos += zoneBegin16Size
		case protocol.ZoneEnd16:
			if len(frame)-pos < zoneEnd16Size {
				return pos
			}
			w.events++
			w.refs.Thread += int64(binary.LittleEndian.Uint16(frame[pos+1:]))
			w.zoneEnd(w.refs.Thread)
			pos += zoneEnd16Size
		default:
			return pos
		}
		if w.fail != nil {
			return pos
		}
	}
	return pos
}

// process applies one item. Field offsets are those of protocol.Specs,
// counted from the tag byte.
func (w *worker) process(it protocol.Item) {
	switch it.Type {
	case protocol.ThreadContext:
		w.refs.Thread = 0
		th := it.U32(1)
		if th != w.threadCtx {
			w.threadCtx = th
			w.ctxData = w.threads[uint64(th)]
		}

	// Zones: the hot path, decoded inline.
	case protocol.ZoneBegin16, protocol.ZoneBeginCallstack16:
		w.refs.Thread += int64(it.U16(1))
		w.zoneBegin(w.refs.Thread, it.U64(3), it.Type == protocol.ZoneBeginCallstack16)
	case protocol.ZoneBegin32, protocol.ZoneBeginCallstack32:
		w.refs.Thread += protocol.DecodeCompact(protocol.Compact32, int64(it.U32(1)))
		w.zoneBegin(w.refs.Thread, it.U64(5), it.Type == protocol.ZoneBeginCallstack32)
	case protocol.ZoneBegin, protocol.ZoneBeginCallstack:
		w.refs.Thread += protocol.DecodeCompact(protocol.Compact64, it.I64(1))
		w.zoneBegin(w.refs.Thread, it.U64(9), it.Type == protocol.ZoneBeginCallstack)
	case protocol.ZoneBeginAllocSrcLoc, protocol.ZoneBeginAllocSrcLocCallstack:
		w.refs.Thread += it.I64(1)
		w.zoneBeginAlloc(w.refs.Thread, it.Type == protocol.ZoneBeginAllocSrcLocCallstack)
	case protocol.ZoneEnd16:
		w.refs.Thread += int64(it.U16(1))
		w.zoneEnd(w.refs.Thread)
	case protocol.ZoneEnd32:
		w.refs.Thread += protocol.DecodeCompact(protocol.Compact32, int64(it.U32(1)))
		w.zoneEnd(w.refs.Thread)
	case protocol.ZoneEnd:
		w.refs.Thread += protocol.DecodeCompact(protocol.Compact64, it.I64(1))
		w.zoneEnd(w.refs.Thread)
	case protocol.ZoneValidation:
		w.currentThread().nextID = it.U32(1)
	case protocol.ZoneText:
		w.zoneText()
	case protocol.ZoneName:
		w.zoneName()
	case protocol.ZoneColor:
		w.zoneColor(it.U8(1), it.U8(2), it.U8(3))
	case protocol.ZoneValue:
		w.zoneValue(it.U64(1))

	// Strings and answers.
	case protocol.SingleStringData, protocol.SingleStringData8:
		prev, had := w.single, w.hasSingle
		w.single, w.hasSingle = w.storeArrived(it.Payload(), &w.singleMemo), true
		if had {
			w.untaken(prev)
		}
	case protocol.SecondStringData, protocol.SecondStringData8:
		prev, had := w.second, w.hasSecond
		w.second, w.hasSecond = w.storeArrived(it.Payload(), &w.secondMemo), true
		if had {
			w.untaken(prev)
		}
	case protocol.StringData:
		if w.imagesPending && it.Ptr() == protocol.ExtImagesKey {
			w.imageList(it.Payload())
		} else {
			w.addString(it.Ptr(), it.Payload())
		}
		w.q.answered()
	case protocol.ThreadName:
		w.addThreadName(it.Ptr(), it.Payload())
		w.q.answered()
	case protocol.FiberName:
		w.addFiberName(it.Ptr(), it.Payload())
		w.q.answered()
	case protocol.PlotName:
		w.plotNameAnswer(it.Ptr(), it.Payload())
		w.q.answered()
	case protocol.FrameName:
		w.frameNameAnswer(it.Ptr(), it.Payload())
		w.q.answered()
	case protocol.ExternalName:
		w.externalName(it.Ptr(), it.Payload(), false)
		w.q.answered()
	case protocol.ExternalThreadName:
		w.externalName(it.Ptr(), it.Payload(), true)
	case protocol.SourceLocation:
		w.sourceLocationAnswer(it)
		w.q.answered()
	case protocol.SourceLocationPayload:
		w.sourceLocationPayload(it.Payload())
	case protocol.CallstackPayload:
		w.callstackPayload(it.Payload())
	case protocol.CallstackAllocPayload:
		w.callstackAllocPayload(it.Payload())
	case protocol.CallstackFrameSize:
		w.callstackFrameSize(it.U64(1), it.U8(9))
		w.q.answered()
	case protocol.CallstackFrame:
		w.callstackFrame(it.U32(1), it.U64(5), it.U32(13))
	case protocol.SymbolInformation:
		w.symbolInformation(it.U32(1), it.U64(5))
		w.q.answered()
	case protocol.SymbolCode:
		w.symbolCode(it.Ptr(), it.Payload())
		w.q.answered()
	case protocol.SourceCode:
		w.sourceCode(uint32(it.Ptr()), it.Payload())
		w.q.answered()
	case protocol.AckSourceCodeNotAvailable:
		delete(w.sourceQueries, it.U32(1))
		w.q.answered()
	case protocol.AckSymbolCodeNotAvailable:
		if w.symCodePending > 0 {
			w.symCodePending--
		}
		w.q.answered()
	case protocol.AckServerQueryNoop:
		w.q.answered()
	case protocol.FrameImageData:
		w.frameImageData(it.Payload())

	// Call stacks.
	case protocol.Callstack, protocol.CallstackAlloc:
		td := w.currentThread()
		td.nextCS = w.pendingCS
		w.pendingCS = 0
	case protocol.CallstackSerial:
		w.serialNextCS = w.pendingCS
		w.pendingCS = 0
	case protocol.CallstackSample, protocol.CallstackSample32, protocol.CallstackSample16,
		protocol.CallstackSampleContextSwitch, protocol.CallstackSampleContextSwitch32, protocol.CallstackSampleContextSwitch16:
		t, _ := w.refs.Time(it)
		w.callstackSample(it.U32(1), t, it.Type >= protocol.CallstackSampleContextSwitch)

	// Frames.
	case protocol.FrameMarkMsg:
		w.frameMark(it.I64(1), it.U64(9))
	case protocol.FrameMarkMsgStart:
		w.frameMarkStart(it.I64(1), it.U64(9))
	case protocol.FrameMarkMsgEnd:
		w.frameMarkEnd(it.I64(1), it.U64(9))
	case protocol.FrameVsync:
		w.frameVsync(it.I64(1), it.U32(9))
	case protocol.FrameImage:
		w.frameImage(it.U32(1), it.U16(5), it.U16(7), it.U8(9))

	// Messages.
	case protocol.Message, protocol.MessageCallstack:
		w.message(it.I64(1), model.IdxRef(w.takeSingleRef()), 0xFFFFFFFF, it.U8(9), it.Type == protocol.MessageCallstack)
	case protocol.MessageColor, protocol.MessageColorCallstack:
		w.message(it.I64(1), model.IdxRef(w.takeSingleRef()), color(it.U8(9), it.U8(10), it.U8(11)), it.U8(12), it.Type == protocol.MessageColorCallstack)
	case protocol.MessageLiteral, protocol.MessageLiteralCallstack:
		tm := it.U64(9)
		w.currentThread() // Tracy notices the thread before the text key
		w.checkString(tm >> 8)
		w.message(it.I64(1), model.PtrRef(tm>>8), 0xFFFFFFFF, uint8(tm), it.Type == protocol.MessageLiteralCallstack)
	case protocol.MessageLiteralColor, protocol.MessageLiteralColorCallstack:
		tm := it.U64(12)
		w.currentThread()
		w.checkString(tm >> 8)
		w.message(it.I64(1), model.PtrRef(tm>>8), color(it.U8(9), it.U8(10), it.U8(11)), uint8(tm), it.Type == protocol.MessageLiteralColorCallstack)
	case protocol.MessageAppInfo:
		w.t.AppInfo = append(w.t.AppInfo, model.IdxRef(w.takeSingle()))
		w.setLast(w.tscTime(it.I64(1)))

	// Plots.
	case protocol.PlotDataInt:
		w.refs.Thread += it.I64(9)
		w.plotData(it.U64(1), w.refs.Thread, float64(int64(it.U64(17))))
	case protocol.PlotDataFloat:
		w.refs.Thread += it.I64(9)
		v := float64(math.Float32frombits(it.U32(17)))
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			w.plotData(it.U64(1), w.refs.Thread, v)
		}
	case protocol.PlotDataDouble:
		w.refs.Thread += it.I64(9)
		v := math.Float64frombits(it.U64(17))
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			w.plotData(it.U64(1), w.refs.Thread, v)
		}
	case protocol.PlotConfig:
		w.plotConfig(it.U64(1), it.U8(9), it.U8(10), it.U8(11), it.U32(12))
	case protocol.SysTimeReport:
		w.sysTime(it.I64(1), float64(math.Float32frombits(it.U32(9))))
	case protocol.SysPowerReport:
		w.sysPower(it.I64(1), it.U64(9), it.U64(17))

	// Memory.
	case protocol.MemNamePayload:
		w.memNamePay = it.U64(1)
		w.hasMemNamePay = true
	case protocol.MemAlloc, protocol.MemAllocNamed, protocol.MemAllocCallstack, protocol.MemAllocCallstackNamed:
		w.refs.Serial += it.I64(1)
		w.memAlloc(it.Type, w.refs.Serial, uint64(it.U32(9)), it.U64(13), it.U48(21))
	case protocol.MemFree, protocol.MemFreeNamed, protocol.MemFreeCallstack, protocol.MemFreeCallstackNamed:
		w.refs.Serial += it.I64(1)
		w.memFree(it.Type, w.refs.Serial, uint64(it.U32(9)), it.U64(13))
	case protocol.MemDiscard, protocol.MemDiscardCallstack:
		w.memDiscard(it.Type == protocol.MemDiscardCallstack, it.I64(1), uint64(it.U32(9)), it.U64(13))

	// Locks.
	case protocol.LockAnnounce:
		w.lockAnnounce(it.U32(1), it.I64(5), it.U64(13), it.U8(21))
	case protocol.LockTerminate:
		if l := w.locks[it.U32(1)]; l != nil {
			w.t.Locks[l.idx].TimeTerminate = w.tscTime(it.I64(5))
		}
	case protocol.LockWait, protocol.LockObtain, protocol.LockSharedWait, protocol.LockSharedObtain:
		w.refs.Serial += it.I64(9)
		w.lockEvent(it.Type, it.U32(5), uint64(it.U32(1)), w.refs.Serial)
	case protocol.LockRelease:
		w.refs.Serial += it.I64(5)
		w.lockEvent(it.Type, it.U32(1), 0, w.refs.Serial)
	case protocol.LockSharedRelease:
		w.refs.Serial += it.I64(5)
		w.lockEvent(it.Type, it.U32(1), uint64(it.U32(13)), w.refs.Serial)
	case protocol.LockMark:
		w.lockMark(uint64(it.U32(1)), it.U32(5), it.U64(9))
	case protocol.LockName:
		id := w.takeSingle()
		if l := w.locks[it.U32(1)]; l != nil {
			w.t.Locks[l.idx].CustomName = id
		}

	// Session.
	case protocol.Terminate:
		w.terminate = true
	case protocol.KeepAlive:
	case protocol.Crash:
		w.crashed = true
	case protocol.CrashReport:
		w.crashReport(it.I64(1), it.U64(9))

	// System information.
	case protocol.TidToPid:
		w.t.TidToPid[it.U64(1)] = it.U64(9)
	case protocol.CpuTopology:
		w.cpuTopology(it.U32(1), it.U32(5), it.U32(9), it.U32(13))
	case protocol.ParamSetup:
		w.checkString(it.U64(5))
		w.params = append(w.params, param{idx: it.U32(1), name: it.U64(5), typ: it.U8(13), val: int32(it.U32(14))})
	case protocol.ThreadGroupHint:
		if td := w.threads[uint64(it.U32(1))]; td != nil {
			w.t.Threads[td.idx].GroupHint = int32(it.U32(5))
		}
	case protocol.SectionSetup:
		w.sectionSetup(it.U16(1))
	case protocol.SectionEnter:
		w.refs.Thread += it.I64(1)
		w.sectionEnter(w.refs.Thread, it.U32(9), it.U16(13))
	case protocol.SectionLeave:
		w.refs.Thread += it.I64(1)
		w.sectionLeave(w.refs.Thread, it.U32(9))
	case protocol.FiberEnter:
		w.refs.Thread += it.I64(1)
		w.fiberEnter(w.refs.Thread, it.U64(9), uint64(it.U32(17)), int32(it.U32(21)))
	case protocol.FiberLeave:
		w.refs.Thread += it.I64(1)
		w.fiberLeave(w.refs.Thread, uint64(it.U32(9)))

	// GPU.
	case protocol.GpuNewContext:
		w.gpuNewContext(it.I64(1), it.I64(9), it.U32(17), math.Float32frombits(it.U32(21)), it.U8(25), it.U8(26), it.U8(27))
	case protocol.GpuZoneBegin, protocol.GpuZoneBeginSerial:
		w.checkSourceLocation(it.U64(16))
		w.gpuZoneBegin(it, w.shrinkSourceLocation(it.U64(16)), it.Type == protocol.GpuZoneBeginSerial, 0)
	case protocol.GpuZoneBeginCallstack:
		w.checkSourceLocation(it.U64(16))
		sl := w.shrinkSourceLocation(it.U64(16))
		td := w.currentThread()
		w.gpuZoneBegin(it, sl, false, td.nextCS)
		td.nextCS = 0
	case protocol.GpuZoneBeginCallstackSerial:
		w.checkSourceLocation(it.U64(16))
		w.gpuZoneBegin(it, w.shrinkSourceLocation(it.U64(16)), true, w.serialNextCS)
		w.serialNextCS = 0
	case protocol.GpuZoneBeginAllocSrcLoc, protocol.GpuZoneBeginAllocSrcLocSerial:
		w.gpuZoneBegin(it, w.pendingPayload, it.Type == protocol.GpuZoneBeginAllocSrcLocSerial, 0)
		w.pendingPayload = 0
	case protocol.GpuZoneBeginAllocSrcLocCallstack:
		td := w.currentThread()
		w.gpuZoneBegin(it, w.pendingPayload, false, td.nextCS)
		td.nextCS = 0
		w.pendingPayload = 0
	case protocol.GpuZoneBeginAllocSrcLocCallstackSerial:
		w.gpuZoneBegin(it, w.pendingPayload, true, w.serialNextCS)
		w.serialNextCS = 0
		w.pendingPayload = 0
	case protocol.GpuZoneEnd, protocol.GpuZoneEndSerial:
		w.gpuZoneEnd(it, it.Type == protocol.GpuZoneEndSerial)
	case protocol.GpuTime:
		w.gpuTime(it.I64(1), it.U16(9), it.U8(11))
	case protocol.GpuCalibration:
		w.gpuCalibration(it.I64(1), it.I64(9), it.I64(17), it.U8(25))
	case protocol.GpuTimeSync:
		w.gpuTimeSync(it.I64(1), it.I64(9), it.U8(17))
	case protocol.GpuContextName, protocol.GpuAnnotationName:
		w.gpuNames(it)
	case protocol.GpuZoneAnnotation:
		w.gpuZoneAnnotation(it.I64(1), math.Float64frombits(it.U64(9)), it.U16(21), it.U8(23))

	// Scheduling (system tracing).
	case protocol.ContextSwitch:
		w.refs.Context += it.I64(1)
		w.contextSwitch(w.refs.Context, uint64(it.U32(9)), uint64(it.U32(13)), it.U8(17), int8(it.U8(18)), int8(it.U8(19)))
	case protocol.ThreadWakeup:
		w.refs.Context += it.I64(1)
		w.threadWakeup(w.refs.Context, uint64(it.U32(9)), it.U8(13))

	case protocol.HwSampleCpuCycle, protocol.HwSampleInstructionRetired, protocol.HwSampleCacheReference,
		protocol.HwSampleCacheMiss, protocol.HwSampleBranchRetired, protocol.HwSampleBranchMiss:
		w.hwSample(int(it.Type-protocol.HwSampleCpuCycle), it.U64(1), it.I64(9))

	default:
		// Every other type on the wire is handled above; what remains
		// (never sent by 0.14.0 clients) only advances its time reference.
		w.refs.Time(it)
	}
}

// color packs wire b,g,r bytes as Tracy stores colours: 0xFFBBGGRR for
// messages (alpha forced), so callers that need 24 bits mask it.
func color(b, g, r uint8) uint32 {
	return 0xFF000000 | uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}
