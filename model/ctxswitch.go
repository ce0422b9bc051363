package model

// Context-switch reasons Tracy stores besides the OS's wait reasons.
const (
	CtxReasonWakeup = -2 // a wake-up recorded before the thread ran
	CtxReasonFiber  = 99 // a fiber's span on a thread
)

// CtxSwitchBuilder fills a trace's per-thread context-switch lists
// (CtxSwitches), per-CPU timelines (CPUData) and per-thread CPU figures
// (CPUThreadData) from context-switch and wake-up events, with the rules
// Tracy's server applies. The capture worker and the Go execution-trace
// importer share it, so a trace imported offline and one captured live
// build these tables the same way.
type CtxSwitchBuilder struct {
	T *Trace
	// Lenient accepts streams that Tracy's own clients never send: a
	// switch out of a thread (or off a CPU) whose span already ended, a
	// CPU span never ended before the next starts. A capture is strict
	// (a Tracy client's stream is reproduced exactly); an import from
	// another format is lenient.
	Lenient bool

	threads    map[uint64]*ctxThread
	cpuThreads map[uint64]int    // thread id -> index in T.CPUThreadData
	extIndex   map[uint64]uint16 // thread id -> index in T.ExtThreadIndex
}

// ctxThread is the builder's state of one thread's context-switch list.
type ctxThread struct {
	idx           int // index in T.CtxSwitches
	pendingWakeup int64
	wakeupCPU     uint8
	// cpuIdx and ext memoize CPUThread's and ExtThread's map entries
	// (index+1, 0 = not looked up yet): a switch needs both, and a busy
	// Go program sends millions of switches.
	cpuIdx int
	ext    uint32
}

func (b *CtxSwitchBuilder) cpuThreadOf(c *ctxThread, tid uint64) *CPUThreadData {
	if c.cpuIdx == 0 {
		b.CPUThread(tid)
		c.cpuIdx = b.cpuThreads[tid] + 1
	}
	return &b.T.CPUThreadData[c.cpuIdx-1]
}

func (b *CtxSwitchBuilder) extThreadOf(c *ctxThread, tid uint64) uint16 {
	if c.ext == 0 {
		c.ext = uint32(b.ExtThread(tid)) + 1
	}
	return uint16(c.ext - 1)
}

// NewCtxSwitchBuilder returns a builder that fills t.
func NewCtxSwitchBuilder(t *Trace, lenient bool) *CtxSwitchBuilder {
	return &CtxSwitchBuilder{T: t, Lenient: lenient, threads: map[uint64]*ctxThread{}, cpuThreads: map[uint64]int{}, extIndex: map[uint64]uint16{}}
}

// Events is thread tid's context-switch list, created on first use.
func (b *CtxSwitchBuilder) Events(tid uint64) *[]CtxSwitch {
	_, evs := b.thread(tid)
	return evs
}

// Known reports whether thread tid has a context-switch list.
func (b *CtxSwitchBuilder) Known(tid uint64) bool { return b.threads[tid] != nil }

func (b *CtxSwitchBuilder) thread(tid uint64) (*ctxThread, *[]CtxSwitch) {
	c := b.threads[tid]
	if c == nil {
		c = &ctxThread{idx: len(b.T.CtxSwitches)}
		b.T.CtxSwitches = append(b.T.CtxSwitches, ThreadCtxSwitches{Thread: tid})
		b.threads[tid] = c
	}
	return c, &b.T.CtxSwitches[c.idx].Events
}

// CPUThread is thread tid's CPU figures, created on first use.
func (b *CtxSwitchBuilder) CPUThread(tid uint64) *CPUThreadData {
	i, ok := b.cpuThreads[tid]
	if !ok {
		i = len(b.T.CPUThreadData)
		b.T.CPUThreadData = append(b.T.CPUThreadData, CPUThreadData{Thread: tid})
		b.cpuThreads[tid] = i
	}
	return &b.T.CPUThreadData[i]
}

// ExtThread is the index of an OS thread in the external thread table the
// per-CPU timelines refer to.
func (b *CtxSwitchBuilder) ExtThread(tid uint64) uint16 {
	if i, ok := b.extIndex[tid]; ok {
		return i
	}
	i := uint16(len(b.T.ExtThreadIndex))
	b.T.ExtThreadIndex = append(b.T.ExtThreadIndex, tid)
	b.extIndex[tid] = i
	return i
}

// Switch ends the old thread's running span (0: none) with reason and
// state and starts the new one's (0: the CPU goes idle), on the thread
// lists and on the CPU's timeline, at time t.
func (b *CtxSwitchBuilder) Switch(t int64, oldThread, newThread uint64, cpu uint8, reason, state int8) {
	cs := &b.T.CPUData[cpu]
	if oldThread != 0 {
		if c := b.threads[oldThread]; c != nil {
			evs := b.T.CtxSwitches[c.idx].Events
			if n := len(evs); n > 0 && (!b.Lenient || evs[n-1].End < 0 && evs[n-1].Start >= 0) {
				it := &evs[n-1]
				it.End, it.Reason, it.State = t, reason, state
				ct := b.cpuThreadOf(c, oldThread)
				ct.RunningRegions++
				ct.RunningTime += t - it.Start
			}
		}
		if n := len(*cs); n > 0 && (!b.Lenient || (*cs)[n-1].End < 0) {
			(*cs)[n-1].End = t
		}
	}
	if newThread == 0 {
		return
	}
	c, evs := b.thread(newThread)
	migration := false
	var it *CtxSwitch
	if n := len(*evs); n > 0 && (*evs)[n-1].Reason == CtxReasonWakeup {
		it = &(*evs)[n-1]
		migration = n > 1 && (*evs)[n-2].CPU != cpu
	} else {
		if n := len(*evs); n > 0 {
			migration = (*evs)[n-1].CPU != cpu
		}
		*evs = append(*evs, CtxSwitch{Wakeup: t, WakeupCPU: cpu})
		n := len(*evs)
		it = &(*evs)[n-1]
		if c.pendingWakeup != 0 && n > 1 {
			// The wake-up came before the thread switched out.
			if prev := (*evs)[n-2].Wakeup; prev <= c.pendingWakeup && c.pendingWakeup <= t {
				it.Wakeup, it.WakeupCPU = c.pendingWakeup, c.wakeupCPU
				c.pendingWakeup = 0
			}
		}
	}
	it.Start, it.End, it.CPU, it.Reason, it.State, it.Thread = t, -1, cpu, -1, -1, 0
	if n := len(*cs); b.Lenient && n > 0 && (*cs)[n-1].End < 0 {
		(*cs)[n-1].End = t // a span the trace never ended
	}
	*cs = append(*cs, CPUEntry{Start: t, End: -1, Thread: b.extThreadOf(c, newThread)})
	if migration {
		b.cpuThreadOf(c, newThread).Migrations++
	}
}

// Wakeup records thread tid being woken on cpu at time t: held until it
// switches in when it is still running, else a wake-up entry of its own.
func (b *CtxSwitchBuilder) Wakeup(t int64, tid uint64, cpu uint8) {
	c, evs := b.thread(tid)
	if n := len(*evs); n > 0 && (*evs)[n-1].End < 0 {
		c.pendingWakeup, c.wakeupCPU = t, cpu
		return
	}
	*evs = append(*evs, CtxSwitch{Wakeup: t, WakeupCPU: cpu, Start: t, End: -1, Reason: CtxReasonWakeup, State: -1})
}
