package capture

import (
	"github.com/gotracy/gotracy/model"
)

// Context-switch reasons Tracy stores besides the OS's wait reasons.
const (
	reasonWakeup = -2
	reasonFiber  = 99
)

// ctxThread is the capture state of one thread's context-switch list.
type ctxThread struct {
	idx           int // index in t.CtxSwitches
	pendingWakeup int64
	wakeupCPU     uint8
}

func (w *worker) ctxSwitches(tid uint64) (*ctxThread, *[]model.CtxSwitch) {
	c := w.ctx[tid]
	if c == nil {
		c = &ctxThread{idx: len(w.t.CtxSwitches)}
		w.t.CtxSwitches = append(w.t.CtxSwitches, model.ThreadCtxSwitches{Thread: tid})
		w.ctx[tid] = c
	}
	return c, &w.t.CtxSwitches[c.idx].Events
}

func (w *worker) cpuThread(tid uint64) *model.CPUThreadData {
	i, ok := w.cpuThreads[tid]
	if !ok {
		i = len(w.t.CPUThreadData)
		w.t.CPUThreadData = append(w.t.CPUThreadData, model.CPUThreadData{Thread: tid})
		w.cpuThreads[tid] = i
	}
	return &w.t.CPUThreadData[i]
}

// extThread is the index of an OS thread in the external thread table used
// by the per-CPU timelines.
func (w *worker) extThread(tid uint64) uint16 {
	if i, ok := w.extIndex[tid]; ok {
		return i
	}
	i := uint16(len(w.t.ExtThreadIndex))
	w.t.ExtThreadIndex = append(w.t.ExtThreadIndex, tid)
	w.extIndex[tid] = i
	return i
}

// contextSwitch ends the old thread's running span and starts the new
// one's, on the thread lists and on the CPU's timeline, as Tracy does.
func (w *worker) contextSwitch(tick int64, oldThread, newThread uint64, cpu uint8, reason, state int8) {
	t := w.tscTime(tick)
	w.setLast(t)
	cs := &w.t.CPUData[cpu]
	if oldThread != 0 {
		if c := w.ctx[oldThread]; c != nil {
			evs := w.t.CtxSwitches[c.idx].Events
			if n := len(evs); n > 0 {
				it := &evs[n-1]
				it.End, it.Reason, it.State = t, reason, state
				ct := w.cpuThread(oldThread)
				ct.RunningRegions++
				ct.RunningTime += t - it.Start
			}
		}
		if n := len(*cs); n > 0 {
			(*cs)[n-1].End = t
		}
	}
	if newThread == 0 {
		return
	}
	c, evs := w.ctxSwitches(newThread)
	migration := false
	var it *model.CtxSwitch
	if n := len(*evs); n > 0 && (*evs)[n-1].Reason == reasonWakeup {
		it = &(*evs)[n-1]
		migration = n > 1 && (*evs)[n-2].CPU != cpu
	} else {
		if n := len(*evs); n > 0 {
			migration = (*evs)[n-1].CPU != cpu
		}
		*evs = append(*evs, model.CtxSwitch{Wakeup: t, WakeupCPU: cpu})
		n := len(*evs)
		it = &(*evs)[n-1]
		if c.pendingWakeup != 0 && n > 1 {
			// The wakeup came before the thread switched out.
			if prev := (*evs)[n-2].Wakeup; prev <= c.pendingWakeup && c.pendingWakeup <= t {
				it.Wakeup, it.WakeupCPU = c.pendingWakeup, c.wakeupCPU
				c.pendingWakeup = 0
			}
		}
	}
	it.Start, it.End, it.CPU, it.Reason, it.State, it.Thread = t, -1, cpu, -1, -1, 0
	*cs = append(*cs, model.CPUEntry{Start: t, End: -1, Thread: w.extThread(newThread)})
	w.checkExternalName(newThread)
	if migration {
		w.cpuThread(newThread).Migrations++
	}
}

func (w *worker) threadWakeup(tick int64, thread uint64, cpu uint8) {
	t := w.tscTime(tick)
	w.setLast(t)
	c, evs := w.ctxSwitches(thread)
	if n := len(*evs); n > 0 && (*evs)[n-1].End < 0 {
		c.pendingWakeup, c.wakeupCPU = t, cpu
		return
	}
	*evs = append(*evs, model.CtxSwitch{Wakeup: t, WakeupCPU: cpu, Start: t, End: -1, Reason: reasonWakeup, State: -1})
}

// fiberSwitch records a fiber starting (or stopping) to run on a thread:
// fibers get context-switch lists of their own.
func (w *worker) fiberSwitch(t int64, leaving, entering *threadState, thread uint64) {
	if leaving != nil {
		if c := w.ctx[leaving.id]; c != nil {
			if evs := w.t.CtxSwitches[c.idx].Events; len(evs) > 0 {
				evs[len(evs)-1].End = t
			}
		}
	}
	if entering != nil {
		_, evs := w.ctxSwitches(entering.id)
		*evs = append(*evs, model.CtxSwitch{Wakeup: t, Start: t, End: -1, Reason: reasonFiber, State: -1, Thread: uint64(w.localThread(thread))})
	}
}

// hwSample records a hardware-counter sample (kind 0..5: cycles, retired
// instructions, cache references, cache misses, branches retired, branch
// misses) at an instruction address; time 0 means unknown.
func (w *worker) hwSample(kind int, ip uint64, tick int64) {
	t := int64(0)
	if tick != 0 {
		t = w.tscTime(tick)
		w.setLast(t)
	}
	i, ok := w.hwIndex[ip]
	if !ok {
		i = len(w.t.HwSamples)
		w.t.HwSamples = append(w.t.HwSamples, model.HwSample{Addr: ip})
		w.hwIndex[ip] = i
	}
	s := &w.t.HwSamples[i]
	s.Times[kind] = append(s.Times[kind], t)
}
