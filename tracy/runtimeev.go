//go:build !notracy

package tracy

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gotracy/gotracy/protocol"
)

// This file is the low-level door tracy/goruntime uses to send what the Go
// execution tracer saw: context switches, wake-ups, call-stack samples, CPU
// topology, and zones and messages with explicit threads and times, on
// lanes the program itself never records on (the "GC" lane, a goroutine's
// "· trace" lane). They reach the sender through one mutex-protected queue
// of their own, like serial events, and the sender encodes them with the
// session's time references (R_C for context switches and samples, R_T for
// zones under their ThreadContext, absolute times for messages).
//
// Times are runtime nanotime nanoseconds (the clock runtime/trace's
// ClockSnapshot.Mono reads), converted to client ticks here.

type rtKind uint8

const (
	rtSwitch rtKind = iota + 1
	rtWakeup
	rtZoneBegin
	rtZoneEnd
	rtMessage
	rtSample
)

// rtEv is one queued event: pointer-free and 32 bytes, since a busy
// program queues millions (the queue is copied once per Flush and never
// scanned by the GC). A message's text and a sample's stack wait in side
// queues taken in order by the drain.
type rtEv struct {
	kind      rtKind
	cpu       uint8
	reason    uint8
	state     uint8
	tid, tid2 uint32
	t         int64
	key       uint64
}

// rtSide holds, in queue order, the texts of a queue's messages and the
// stacks of its samples.
type rtSide struct {
	texts  []string
	stacks [][]uintptr
}

func (d *rtSide) reset() {
	clear(d.texts)
	clear(d.stacks)
	d.texts, d.stacks = d.texts[:0], d.stacks[:0]
}

// maxRuntimeQueue bounds the queue; past it RuntimeBatch.Flush waits for
// the sender (the waiting goroutine is goruntime's reader, not the program).
const maxRuntimeQueue = 1 << 20

// rtUsed is set once anything was handed to the runtime door, so a sender
// of a program that never imports goruntime skips the door's mutex on
// every drain.
var rtUsed atomic.Bool

var rtq struct {
	mu        sync.Mutex
	ep        uint32
	q         []rtEv
	side      rtSide
	spare     []rtEv
	spareSide rtSide
	cpus      int
	locs      map[string]uint64
}

// maxRuntimeLocs bounds the zone names the runtime door interns (region
// and task names come from the program; Tracy allows 32767 locations).
const maxRuntimeLocs = 4096

// RuntimeBatch collects execution-trace events for tracy/goruntime and hands
// them to the sender with Flush. It is not for instrumenting programs: use
// zones, messages and plots. A RuntimeBatch is used by one goroutine.
type RuntimeBatch struct {
	evs  []rtEv
	side rtSide
	// clock conversion: a pair of readings taken at Flush time.
	tick1, ns1 int64
	mul        float64
}

// RuntimeEnabled reports whether the profiler records (a session or the
// backlog of the first one).
func RuntimeEnabled() bool { return rec.Load() != 0 }

func (b *RuntimeBatch) ticks(ns int64) int64 {
	if b.mul == 0 {
		p := curProf()
		if p == nil {
			return ns
		}
		b.tick1, b.ns1 = now(), nanotime()
		if useTSC && b.ns1 > p.cal.ns0 && b.tick1 > p.cal.tick0 {
			b.mul = float64(b.tick1-p.cal.tick0) / float64(b.ns1-p.cal.ns0) // ticks per ns
		} else {
			b.mul = 1
		}
	}
	if b.mul == 1 && !useTSC {
		return ns
	}
	return b.tick1 - int64(float64(b.ns1-ns)*b.mul)
}

func curProf() *profiler {
	profMu.Lock()
	defer profMu.Unlock()
	return prof
}

// ContextSwitch records thread oldThread stopping and newThread starting
// on cpu at ns (either may be 0: none).
func (b *RuntimeBatch) ContextSwitch(ns int64, oldThread, newThread uint32, cpu, reason, state uint8) {
	b.evs = append(b.evs, rtEv{kind: rtSwitch, t: b.ticks(ns), tid: oldThread, tid2: newThread, cpu: cpu, reason: reason, state: state})
}

// Wakeup records thread becoming ready to run, woken from cpu.
func (b *RuntimeBatch) Wakeup(ns int64, thread uint32, cpu uint8) {
	b.evs = append(b.evs, rtEv{kind: rtWakeup, t: b.ticks(ns), tid: thread, cpu: cpu})
}

// ZoneBegin opens a zone called name on thread. Zones of one thread must
// nest and come in time order, and the thread must be one the program does
// not record zones on itself.
func (b *RuntimeBatch) ZoneBegin(thread uint32, ns int64, name string) {
	b.evs = append(b.evs, rtEv{kind: rtZoneBegin, t: b.ticks(ns), tid: thread, key: runtimeLoc(name)})
}

// ZoneEnd closes thread's innermost zone opened with ZoneBegin.
func (b *RuntimeBatch) ZoneEnd(thread uint32, ns int64) {
	b.evs = append(b.evs, rtEv{kind: rtZoneEnd, t: b.ticks(ns), tid: thread})
}

// Message records a message of thread.
func (b *RuntimeBatch) Message(thread uint32, ns int64, text string) {
	b.evs = append(b.evs, rtEv{kind: rtMessage, t: b.ticks(ns), tid: thread})
	b.side.texts = append(b.side.texts, clipText(text))
}

// Sample records a sampled call stack of thread (innermost first; the
// slice is copied).
func (b *RuntimeBatch) Sample(thread uint32, ns int64, pcs []uintptr) {
	if len(pcs) == 0 {
		return
	}
	if len(pcs) > maxStack {
		pcs = pcs[:maxStack]
	}
	b.evs = append(b.evs, rtEv{kind: rtSample, t: b.ticks(ns), tid: thread})
	b.side.stacks = append(b.side.stacks, append([]uintptr(nil), pcs...))
}

// Len is the number of events waiting for Flush.
func (b *RuntimeBatch) Len() int { return len(b.evs) }

// Flush hands the batch to the sender; it waits while the sender is far
// behind. Events are dropped when nothing records.
func (b *RuntimeBatch) Flush() {
	b.mul = 0
	if len(b.evs) == 0 {
		return
	}
	rtUsed.Store(true)
	rtq.mu.Lock()
	for len(rtq.q) >= maxRuntimeQueue && rec.Load() != 0 {
		rtq.mu.Unlock()
		waits.Add(1)
		sleepNs(50e3)
		rtq.mu.Lock()
	}
	if ep := rec.Load(); ep != 0 {
		if rtq.ep != ep {
			rtq.q = rtq.q[:0]
			rtq.side.reset()
			rtq.ep = ep
		}
		rtq.q = append(rtq.q, b.evs...)
		rtq.side.texts = append(rtq.side.texts, b.side.texts...)
		rtq.side.stacks = append(rtq.side.stacks, b.side.stacks...)
	}
	rtq.mu.Unlock()
	b.evs = b.evs[:0]
	b.side.reset()
}

// SetRuntimeCPUs announces n logical CPUs (the Go scheduler's Ps) to every
// session, as Tracy's CpuTopology: one package, one core per CPU.
func SetRuntimeCPUs(n int) {
	rtUsed.Store(true)
	rtq.mu.Lock()
	rtq.cpus = min(n, 256)
	rtq.mu.Unlock()
}

// SetLaneName names a thread id that no goroutine has (a lane such as
// "GC"), or a goroutine that has not set its own name.
func SetLaneName(tid uint32, name string) {
	if _, ok := threadNames.Load(uint64(tid)); ok {
		return
	}
	threadNames.Store(uint64(tid), &name)
}

// goNames holds the start functions SetGoroutineName recorded; the name is
// formatted only when a server asks, since most goroutines of a busy
// program are never asked about.
var goNames struct {
	sync.Mutex
	m map[uint32]string
}

// maxGoNames bounds goNames (goroutine churn must not grow memory for
// good); later goroutines keep "goroutine N".
const maxGoNames = 1 << 16

// SetGoroutineName names goroutine tid's thread after its start function,
// "fn (gN)", unless the program named it with SetThreadName.
func SetGoroutineName(tid uint32, fn string) {
	goNames.Lock()
	if goNames.m == nil {
		goNames.m = map[uint32]string{}
	}
	if len(goNames.m) < maxGoNames {
		goNames.m[tid] = fn
	}
	goNames.Unlock()
}

func runtimeThreadName(tid uint32) (string, bool) {
	goNames.Lock()
	fn, ok := goNames.m[tid]
	goNames.Unlock()
	if !ok || fn == "" {
		return "", false
	}
	return fn + " (g" + strconv.FormatUint(uint64(tid), 10) + ")", true
}

func runtimeLoc(name string) uint64 {
	rtq.mu.Lock()
	defer rtq.mu.Unlock()
	if k, ok := rtq.locs[name]; ok {
		return k
	}
	if rtq.locs == nil {
		rtq.locs = map[string]uint64{}
	}
	if len(rtq.locs) >= maxRuntimeLocs {
		name = "[more names]"
		if k, ok := rtq.locs[name]; ok {
			return k
		}
	}
	l := LocAt(name, name, "[Go execution trace]", 0, 0)
	rtq.locs[name] = l.key
	return l.key
}

// rtSession is the sender's state for the runtime door in its current
// session: open zones per lane (ended at Terminate) and whether the
// topology went out.
var rtSession struct {
	s     *session
	depth map[uint32]int
	topo  bool
}

func (s *session) rtState() {
	if rtSession.s != s {
		rtSession.s, rtSession.depth, rtSession.topo = s, map[uint32]int{}, false
	}
}

func (s *session) threadCtx(tid uint32) {
	if s.curTid != tid {
		s.buf = s.refs.AppendThreadContext(s.buf, tid)
		s.curTid = tid
	}
}

// drainRuntime encodes what the runtime door queued (sender only).
func (s *session) drainRuntime() bool {
	if !rtUsed.Load() {
		return false
	}
	s.rtState()
	rtq.mu.Lock()
	q, side, ep, cpus := rtq.q, rtq.side, rtq.ep, rtq.cpus
	rtq.q, rtq.side = rtq.spare[:0], rtq.spareSide
	rtq.spare, rtq.spareSide = nil, rtSide{}
	rtq.mu.Unlock()
	worked := false
	if cpus > 0 && !rtSession.topo {
		rtSession.topo = true
		for i := 0; i < cpus; i++ {
			s.buf = protocol.AppendCpuTopology(s.buf, 0, 0, uint32(i), uint32(i))
		}
		worked = true
	}
	if ep == s.ep {
		var c rtCursor
		for i := range q {
			s.encodeRuntime(&q[i], &side, &c)
			if len(s.buf) > batchLimit {
				s.writeBuf()
			}
		}
		worked = worked || len(q) > 0
	}
	side.reset()
	rtq.mu.Lock()
	rtq.spare, rtq.spareSide = q[:0], side
	rtq.mu.Unlock()
	return worked
}

// rtCursor is how far a drain has taken from the side queues.
type rtCursor struct{ text, stack int }

func (s *session) encodeRuntime(e *rtEv, side *rtSide, c *rtCursor) {
	s.others++
	switch e.kind {
	case rtSwitch:
		s.buf = protocol.AppendContextSwitch(s.buf, s.refs.Delta(protocol.TimeContext, e.t), e.tid, e.tid2, e.cpu, e.reason, e.state, 0, 0, 0)
	case rtWakeup:
		s.buf = protocol.AppendThreadWakeup(s.buf, s.refs.Delta(protocol.TimeContext, e.t), e.tid, e.cpu, 0, 0)
	case rtZoneBegin:
		s.threadCtx(e.tid)
		rtSession.depth[e.tid]++
		s.buf = s.refs.AppendZoneBegin(s.buf, e.t, e.key)
	case rtZoneEnd:
		if rtSession.depth[e.tid] == 0 {
			return // its begin went to an earlier session
		}
		s.threadCtx(e.tid)
		rtSession.depth[e.tid]--
		s.buf = s.refs.AppendZoneEnd(s.buf, e.t)
	case rtMessage:
		s.threadCtx(e.tid)
		text := side.texts[c.text]
		c.text++
		s.buf = appendSingle(s.buf, []byte(text))
		s.buf = protocol.AppendMessage(s.buf, e.t, 0)
	case rtSample:
		pcs := side.stacks[c.stack]
		c.stack++
		s.appendPCs(pcs)
		s.buf = s.refs.AppendCallstackSample(s.buf, e.tid, e.t)
	}
}

// closeRuntimeZones ends the runtime lanes' open zones (before Terminate).
func (s *session) closeRuntimeZones(t int64) {
	s.rtState()
	for tid, d := range rtSession.depth {
		if d == 0 {
			continue
		}
		s.threadCtx(tid)
		for ; d > 0; d-- {
			s.buf = s.refs.AppendZoneEnd(s.buf, t)
		}
		rtSession.depth[tid] = 0
	}
}

// appendExternalName answers the server's question about a thread that a
// context switch named: the goroutine's (or lane's) name and the program.
func appendExternalName(b []byte, tid uint64, program string) []byte {
	name := "[unknown]"
	if tid <= 0xFFFFFFFF {
		name = threadName(uint32(tid))
	} else {
		name = "thread " + strconv.FormatUint(tid, 10)
	}
	if program == "" {
		program = "[unknown]"
	}
	b, _ = protocol.AppendExternalThreadName(b, tid, clipText(name))
	b, _ = protocol.AppendExternalName(b, tid, clipText(program))
	return b
}
