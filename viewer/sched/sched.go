// Package sched answers the timeline's questions about scheduling: when
// each thread (or goroutine) ran and on which CPU, why it stopped, what
// each CPU ran, and where the sampled call stacks fall, at the level of
// detail a window of so many pixels draws. It works on a *model.Trace and
// needs no HTTP: the viewer's /api/v1/sched endpoints call it.
package sched

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gotracy/gotracy/internal/goreason"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

// Index holds each thread's running spans and each CPU's spans in the flat
// sorted form the merge reads. Build it once per trace.
type Index struct {
	Threads []Thread
	CPUs    []CPU
	Go      bool // the codes are Go's (internal/goreason), not an OS's
}

// Thread is one thread's running spans.
type Thread struct {
	ID      uint64
	Index   int // position in Trace.Threads, -1 if it has no zones thread
	Name    string
	Start   []int64
	End     []int64
	Ev      []int32 // index in the thread's CtxSwitch events
	Events  []model.CtxSwitch
	Running int64
	Samples []int64  // sample times, sorted
	Stacks  []uint32 // the samples' call stacks
}

// CPU is one CPU's spans.
type CPU struct {
	CPU     int
	Entries []model.CPUEntry
}

// IsGo reports whether the trace's context-switch codes are Go's: an
// imported Go execution trace or a capture of a Go program.
func IsGo(t *model.Trace) bool {
	h := t.Metadata.HostInfo
	return strings.HasPrefix(h, "Go execution trace") || strings.Contains(h, "Compiler: Go ")
}

// Build indexes t.
func Build(t *model.Trace) *Index {
	ix := &Index{Go: IsGo(t)}
	last := t.Metadata.LastTime
	byID := map[uint64]int{}
	threadIdx := map[uint64]int{}
	for i := range t.Threads {
		threadIdx[t.Threads[i].ID] = i
	}
	name := func(tid uint64) string {
		if n := t.ThreadName(tid); n != "" {
			return n
		}
		if n, ok := t.ExtThreadNames[tid]; ok {
			return t.Str(n[1])
		}
		return ""
	}
	add := func(tid uint64) *Thread {
		if i, ok := byID[tid]; ok {
			return &ix.Threads[i]
		}
		idx, ok := threadIdx[tid]
		if !ok {
			idx = -1
		}
		byID[tid] = len(ix.Threads)
		ix.Threads = append(ix.Threads, Thread{ID: tid, Index: idx, Name: name(tid)})
		return &ix.Threads[len(ix.Threads)-1]
	}
	for _, cs := range t.CtxSwitches {
		th := add(cs.Thread)
		th.Events = cs.Events
		prevEnd := int64(-1 << 62)
		for i, e := range cs.Events {
			if e.Start < 0 || e.Reason == -2 && e.End < 0 {
				continue // a wake-up not yet followed by a run
			}
			end := e.End
			if end < 0 {
				end = last
			}
			if e.Start < prevEnd || end < e.Start {
				continue // not sorted: skip rather than break the merge
			}
			th.Start = append(th.Start, e.Start)
			th.End = append(th.End, end)
			th.Ev = append(th.Ev, int32(i))
			th.Running += end - e.Start
			prevEnd = end
		}
	}
	for i := range t.Threads {
		if len(t.Threads[i].Samples) == 0 {
			continue
		}
		th := add(t.Threads[i].ID)
		smp := slices.Clone(t.Threads[i].Samples)
		slices.SortStableFunc(smp, func(a, b model.Sample) int { return cmp.Compare(a.Time, b.Time) })
		for _, s := range smp {
			th.Samples = append(th.Samples, s.Time)
			th.Stacks = append(th.Stacks, s.CallStack)
		}
	}
	for c := range t.CPUData {
		if len(t.CPUData[c]) > 0 {
			ix.CPUs = append(ix.CPUs, CPU{CPU: c, Entries: t.CPUData[c]})
		}
	}
	return ix
}

// LaneThread is a thread in the lanes answer.
type LaneThread struct {
	Thread  uint64 `json:"thread"`
	Index   int    `json:"index"` // the zones thread's index, -1 for none
	Name    string `json:"name"`
	Runs    int    `json:"runs"`
	Running int64  `json:"running_ns"`
	Samples int    `json:"samples"`
}

// LaneCPU is a CPU in the lanes answer.
type LaneCPU struct {
	CPU     int `json:"cpu"`
	Entries int `json:"entries"`
}

// Lanes is what the page needs once: which threads and CPUs have data, and
// the names of the reason and state codes.
type Lanes struct {
	Threads []LaneThread `json:"threads"`
	CPUs    []LaneCPU    `json:"cpus"`
	Go      bool         `json:"go"`
	Reasons []string     `json:"reasons"` // by code; empty when unknown
	States  []string     `json:"states"`
}

// Lanes lists the index's threads and CPUs.
func (ix *Index) Lanes() Lanes {
	a := Lanes{Threads: []LaneThread{}, CPUs: []LaneCPU{}, Go: ix.Go, Reasons: []string{}, States: []string{}}
	for i := range ix.Threads {
		th := &ix.Threads[i]
		a.Threads = append(a.Threads, LaneThread{Thread: th.ID, Index: th.Index, Name: th.Name, Runs: len(th.Start), Running: th.Running, Samples: len(th.Samples)})
	}
	for _, c := range ix.CPUs {
		a.CPUs = append(a.CPUs, LaneCPU{CPU: c.CPU, Entries: len(c.Entries)})
	}
	if ix.Go {
		a.Reasons = goreason.Reasons[:]
		a.States = goreason.StateNames[:]
	}
	return a
}

// Run is a running span (or a group of spans merged at this scale) and why
// the thread stopped after it.
type Run struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Count  int   `json:"count"`
	CPU    int   `json:"cpu"`    // of the first span
	Reason int8  `json:"reason"` // of the last span's end, -1 = still running
	State  int8  `json:"state"`
	Wakeup int64 `json:"wakeup"` // when the first span's thread was woken
}

// Point is a group of samples; a single sample names its call stack
// (for /api/v1/callstack).
type Point struct {
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Count     int    `json:"count"`
	CallStack uint32 `json:"callstack,omitempty"`
}

// CPUSpan is a span of a CPU: the thread that ran, or, for a merged group,
// the thread of its longest span.
type CPUSpan struct {
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Count  int    `json:"count"`
	Thread uint64 `json:"thread"`
}

// WindowThread is one thread's answer.
type WindowThread struct {
	Thread  uint64  `json:"thread"`
	Runs    []Run   `json:"runs"`
	Samples []Point `json:"samples"`
}

// WindowCPU is one CPU's answer.
type WindowCPU struct {
	CPU   int       `json:"cpu"`
	Spans []CPUSpan `json:"spans"`
}

// Window is what the window q draws.
type Window struct {
	Threads []WindowThread `json:"threads"`
	CPUs    []WindowCPU    `json:"cpus"`
}

// Filter selects what Window answers: the threads in Threads (all when
// nil) and the CPUs when CPUs is set.
type Filter struct {
	Threads map[uint64]bool
	NoCPUs  bool
}

// Window merges at minPx the spans and samples that fall in q, for the
// threads and CPUs f selects.
func (ix *Index) Window(t *model.Trace, q lod.Query, minPx float64, f Filter) Window {
	a := Window{Threads: []WindowThread{}, CPUs: []WindowCPU{}}
	var buf []lod.Span
	last := t.Metadata.LastTime
	for i := range ix.Threads {
		th := &ix.Threads[i]
		if f.Threads != nil && !f.Threads[th.ID] {
			continue
		}
		wt := WindowThread{Thread: th.ID, Runs: []Run{}, Samples: []Point{}}
		buf = lod.MergeSpans(buf[:0], len(th.Start), func(k int) int64 { return th.Start[k] }, func(k int) int64 { return th.End[k] }, q, minPx)
		for _, s := range buf {
			first := th.Events[th.Ev[s.First]]
			lastEv := th.Events[th.Ev[s.First+s.Count-1]]
			r := Run{Start: s.Start, End: s.End, Count: int(s.Count), CPU: int(first.CPU), Reason: lastEv.Reason, State: lastEv.State, Wakeup: first.Wakeup}
			if lastEv.End < 0 {
				r.Reason, r.State = -1, -1
			}
			wt.Runs = append(wt.Runs, r)
		}
		buf = lod.MergeSpans(buf[:0], len(th.Samples), func(k int) int64 { return th.Samples[k] }, func(k int) int64 { return th.Samples[k] }, q, minPx)
		for _, s := range buf {
			p := Point{Start: s.Start, End: s.End, Count: int(s.Count)}
			if s.Count == 1 {
				p.CallStack = th.Stacks[s.First]
			}
			wt.Samples = append(wt.Samples, p)
		}
		if len(wt.Runs) > 0 || len(wt.Samples) > 0 {
			a.Threads = append(a.Threads, wt)
		}
	}
	for _, c := range ix.CPUs {
		if f.NoCPUs {
			break
		}
		es := c.Entries
		end := func(k int) int64 {
			if es[k].End < 0 {
				return last
			}
			return es[k].End
		}
		buf = lod.MergeSpans(buf[:0], len(es), func(k int) int64 { return es[k].Start }, end, q, minPx)
		wc := WindowCPU{CPU: c.CPU, Spans: []CPUSpan{}}
		for _, s := range buf {
			var tid uint64
			if k := int(s.Longest); k < len(es) && int(es[k].Thread) < len(t.ExtThreadIndex) {
				tid = t.ExtThreadIndex[es[k].Thread]
			}
			wc.Spans = append(wc.Spans, CPUSpan{Start: s.Start, End: s.End, Count: int(s.Count), Thread: tid})
		}
		a.CPUs = append(a.CPUs, wc)
	}
	return a
}
