package capture

import (
	"github.com/gotracy/gotracy/model"
)

// contextSwitch ends the old thread's running span and starts the new
// one's, on the thread lists and on the CPU's timeline, as Tracy does.
func (w *worker) contextSwitch(tick int64, oldThread, newThread uint64, cpu uint8, reason, state int8) {
	t := w.tscTime(tick)
	w.setLast(t)
	w.ctx.Switch(t, oldThread, newThread, cpu, reason, state)
	if newThread != 0 {
		w.checkExternalName(newThread)
	}
}

func (w *worker) threadWakeup(tick int64, thread uint64, cpu uint8) {
	t := w.tscTime(tick)
	w.setLast(t)
	w.ctx.Wakeup(t, thread, cpu)
}

// fiberSwitch records a fiber starting (or stopping) to run on a thread:
// fibers get context-switch lists of their own.
func (w *worker) fiberSwitch(t int64, leaving, entering *threadState, thread uint64) {
	if leaving != nil && w.ctx.Known(leaving.id) {
		if evs := *w.ctx.Events(leaving.id); len(evs) > 0 {
			evs[len(evs)-1].End = t
		}
	}
	if entering != nil {
		evs := w.ctx.Events(entering.id)
		*evs = append(*evs, model.CtxSwitch{Wakeup: t, Start: t, End: -1, Reason: model.CtxReasonFiber, State: -1, Thread: uint64(w.localThread(thread))})
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
