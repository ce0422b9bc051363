// Package gotrace maps a Go execution trace (the stream runtime/trace
// writes, parsed by golang.org/x/exp/trace) onto Tracy's vocabulary:
// threads, zones, messages, plots, context switches, wake-ups and call-stack
// samples. Both the live path (tracy/goruntime, which sends the result into
// the running tracy client) and the offline importer (formats/gotrace,
// which builds a model.Trace) feed events to one Translator and differ only
// in their Sink, so the two give the same picture of the same run.
//
// The mapping (also in tracy/goruntime's package doc):
//
//   - A goroutine is a thread (id = goroutine id), named by its start
//     function ("main.worker (g12)"; "main" for goroutine 1).
//   - A goroutine starting to run on P n is a context switch in on CPU n;
//     stopping (blocked, preempted, syscall, exit) is a context switch out
//     with a reason and state from package internal/goreason. Waiting ->
//     runnable is a wake-up, on the waker's P.
//   - GC: one "GC" lane. A cycle is a "GC cycle" zone from the start of its
//     sweep-termination stop-the-world to the end of its mark-termination
//     one; inside it the two "stop-the-world (...)" pauses and the "GC mark"
//     phase between them. Other stop-the-world pauses are zones on the same
//     lane. Mark assists are "GC mark assist" zones on the goroutine's
//     zone lane.
//   - runtime/trace regions are zones on the goroutine's zone lane, tasks
//     are zones on "tasks" lanes (one lane per concurrently open task), logs
//     are messages ("category: message") on the goroutine's zone lane.
//   - CPU profile samples are call-stack samples of their goroutine (or of
//     the "no goroutine" lane).
//   - Metrics the trace carries become plots (heap in use, heap goal,
//     GOMAXPROCS); the goroutine count is computed from goroutine creation
//     and exit, and "Go sched latency p99" from how long goroutines waited
//     runnable, per 10 ms (live, both come from runtime/metrics instead).
//
// Dropped: proc and thread (M) state transitions other than what the
// goroutine transitions imply, incremental sweep ranges, user task
// hierarchy (a task is a zone; its parent is not linked), stacks of
// scheduling events, labels, experimental events, and region ends whose
// begin precedes the trace.
package gotrace

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"

	"github.com/gotracy/gotracy/internal/goreason"
)

// Lane ids for what is not a goroutine. Goroutine ids are far below them.
const (
	GCLane         uint32 = 0xFFFFFFF0
	NoGoroutine    uint32 = 0xFFFFFFF1
	TaskLane0      uint32 = 0xFFFFFF00 // TaskLane0+i is the i-th tasks lane
	maxTaskLanes          = 0xF0
	RegionLaneFlag uint32 = 0x80000000 // live: a goroutine's zone lane is g | RegionLaneFlag
)

// Zone names the translator uses on the GC lane.
const (
	ZoneGCCycle    = "GC cycle"
	ZoneGCMark     = "GC mark"
	ZoneMarkAssist = "GC mark assist"
)

// Frame is one frame of a sampled stack, innermost first.
type Frame struct {
	PC   uint64
	Func string
	File string
	Line uint64
}

// Sink receives the translated events. Times are the trace's nanoseconds.
// Zones arrive properly nested per lane and in time order per lane.
type Sink interface {
	ThreadName(tid uint32, name string)
	ContextSwitch(t int64, oldThread, newThread uint32, cpu uint8, reason, state uint8)
	Wakeup(t int64, thread uint32, cpu uint8)
	ZoneBegin(tid uint32, t int64, name string)
	ZoneEnd(tid uint32, t int64)
	Message(tid uint32, t int64, text string)
	Sample(tid uint32, t int64, frames []Frame)
	Plot(name string, t int64, v float64)
}

// Options select what the translator emits.
type Options struct {
	// RegionLanes puts regions, assists and logs of goroutine g on lane
	// g|RegionLaneFlag instead of g itself (live: the goroutine's own
	// thread already carries the tracy client's zones, which the server
	// must receive in order).
	RegionLanes bool
	// NoMetrics drops the trace's metric events (live: plots come from
	// runtime/metrics instead).
	NoMetrics bool
	// NoGoroutineCount drops the computed goroutine-count plot.
	NoGoroutineCount bool
	// PoolLanes gives goroutines lanes of their start function that
	// goroutines which exited hand on ("main.worker", "main.worker #2",
	// ...), instead of a thread per goroutine id: a program that starts
	// millions of short goroutines then fits Tracy's 65,536 threads, and
	// a lane still holds one start function. Offline only: live, the
	// goroutine's thread is also the one its tracy zones are on.
	PoolLanes bool
}

// Plot names.
const (
	PlotHeap       = "Go heap in use"
	PlotHeapGoal   = "Go heap goal"
	PlotGoroutines = "Go goroutines"
	PlotGOMAXPROCS = "GOMAXPROCS"
	// PlotSchedLatency is, per 10 ms of trace, the 99th percentile of how
	// long goroutines waited runnable before they ran (ns), as the live
	// path plots from runtime/metrics.
	PlotSchedLatency = "Go sched latency p99"
	latencyWindow    = 10_000_000
)

var metricPlots = map[string]string{
	"/memory/classes/heap/objects:bytes": PlotHeap,
	"/gc/heap/goal:bytes":                PlotHeapGoal,
	"/sched/gomaxprocs:threads":          PlotGOMAXPROCS,
}

type gstate struct {
	tid     uint32 // its lane
	ready   int64  // when it last became runnable, 0 = not runnable
	fn      string
	running bool
	cpu     uint8
	exists  bool
	named   bool     // its thread was named
	zones   []string // open zones on the goroutine's zone lane
}

// Translator turns events into Sink calls. It is not safe for concurrent
// use.
type Translator struct {
	s    Sink
	o    Options
	gs   map[trace.GoID]*gstate
	live int64 // goroutines that exist

	// GC lane state.
	gcStack     []string
	cycleOpen   bool
	markOpen    bool
	pendingMark bool
	stwOpen     bool
	stwKind     int // 1 sweep termination, 2 mark termination, 0 other

	tasks     map[trace.TaskID]int // task -> lane
	taskLanes []bool               // busy lanes

	frames     []Frame
	last       int64
	lat        []int64 // latencies of the current window
	latStart   int64
	startFn    map[trace.Stack]string // creation stack -> start function, this generation
	lastReason string
	lastCode   uint8
	pools      map[string][]uint32 // start function -> free lanes
	nPool      map[string]int      // start function -> lanes made
	nextID     uint32
	named      map[uint32]bool // lanes other than goroutines' that were named
	free       []*gstate       // states of goroutines that exited, for reuse
	// Counts.
	Events, Switches, Samples, Zones int
}

// New returns a translator that feeds s.
func New(s Sink, o Options) *Translator {
	return &Translator{s: s, o: o, gs: map[trace.GoID]*gstate{}, tasks: map[trace.TaskID]int{}, named: map[uint32]bool{},
		pools: map[string][]uint32{}, nPool: map[string]int{}, nextID: 1, startFn: map[trace.Stack]string{}}
}

func (x *Translator) g(id trace.GoID) *gstate {
	g := x.gs[id]
	if g == nil {
		// A goroutine-heavy program creates and ends thousands a second:
		// reuse the states (and zone stacks) of those that exited.
		if n := len(x.free); n > 0 {
			g = x.free[n-1]
			x.free = x.free[:n-1]
			*g = gstate{tid: uint32(id), zones: g.zones[:0]}
		} else {
			g = &gstate{tid: uint32(id)}
		}
		x.gs[id] = g
	}
	return g
}

// tidOf is goroutine id's lane.
func (x *Translator) tidOf(id trace.GoID) uint32 {
	if g := x.gs[id]; g != nil {
		return g.tid
	}
	return uint32(id)
}

// poolLane gives g a lane of its start function.
func (x *Translator) poolLane(id trace.GoID, g *gstate, fn string) {
	if id == 1 {
		g.tid = 1
		x.name(id, g, fn)
		return
	}
	if fn == "" {
		fn = x.goName(id, "") // there before the trace: a lane of its own
	}
	g.fn = fn
	if free := x.pools[fn]; len(free) > 0 {
		g.tid = free[len(free)-1]
		x.pools[fn] = free[:len(free)-1]
		return
	}
	x.nextID++
	for x.nextID == 1 || x.nextID >= TaskLane0 {
		x.nextID = 2 // (wrapping needs 4 billion lanes)
	}
	g.tid = x.nextID
	x.nPool[fn]++
	name := fn
	if n := x.nPool[fn]; n > 1 {
		name += " #" + strconv.Itoa(n)
	}
	x.named[g.tid] = true
	x.s.ThreadName(g.tid, name)
}

func cpuOf(p trace.ProcID) (uint8, bool) {
	if p < 0 {
		return 0, false
	}
	return uint8(p % 256), true
}

func (x *Translator) lane(g trace.GoID) uint32 {
	tid := x.tidOf(g)
	if x.o.RegionLanes {
		tid |= RegionLaneFlag
		if !x.named[tid] {
			x.named[tid] = true
			x.s.ThreadName(tid, x.goName(g, "")+" · trace")
		}
	}
	return tid
}

func (x *Translator) goName(g trace.GoID, fn string) string {
	if g == 1 {
		return "main"
	}
	if fn == "" {
		return "goroutine " + strconv.FormatInt(int64(g), 10)
	}
	return fn + " (g" + strconv.FormatInt(int64(g), 10) + ")"
}

// GoroutineNamer is a Sink that names goroutine lanes itself from their
// start function ("" when unknown), sparing the translator a string per
// goroutine (live: the client formats a name only when asked for it).
type GoroutineNamer interface {
	GoroutineName(tid uint32, fn string)
}

// name names goroutine id's thread (its state g: a goroutine is named
// once, and the flag goes with its state when it exits, so goroutine
// churn does not grow the translator).
func (x *Translator) name(id trace.GoID, g *gstate, fn string) {
	tid := uint32(id)
	if g.named && fn == "" {
		return
	}
	g.named = true
	if n, ok := x.s.(GoroutineNamer); ok {
		n.GoroutineName(tid, fn)
		return
	}
	x.s.ThreadName(tid, x.goName(id, fn))
}

// Event translates one event.
func (x *Translator) Event(ev *trace.Event) {
	x.Events++
	t := int64(ev.Time())
	if t > x.last {
		x.last = t
	}
	switch ev.Kind() {
	case trace.EventSync:
		clear(x.startFn) // stack handles belong to a generation
	case trace.EventStateTransition:
		st := ev.StateTransition()
		if st.Resource.Kind == trace.ResourceGoroutine {
			x.goTransition(ev, t, st)
		}
	case trace.EventRangeBegin, trace.EventRangeActive:
		r := ev.Range()
		x.rangeBegin(ev, t, r)
	case trace.EventRangeEnd:
		r := ev.Range()
		x.rangeEnd(ev, t, r)
	case trace.EventRegionBegin:
		r := ev.Region()
		if g := ev.Goroutine(); g != trace.NoGoroutine {
			x.pushZone(g, t, r.Type)
		}
	case trace.EventRegionEnd:
		r := ev.Region()
		if g := ev.Goroutine(); g != trace.NoGoroutine {
			x.popZone(g, t, r.Type)
		}
	case trace.EventTaskBegin:
		k := ev.Task()
		x.taskBegin(t, k)
	case trace.EventTaskEnd:
		k := ev.Task()
		x.taskEnd(t, k)
	case trace.EventLog:
		l := ev.Log()
		text := l.Message
		if l.Category != "" {
			text = l.Category + ": " + l.Message
		}
		tid := NoGoroutine
		if g := ev.Goroutine(); g != trace.NoGoroutine {
			tid = x.lane(g)
		}
		x.s.Message(tid, t, text)
	case trace.EventStackSample:
		x.sample(ev, t)
	case trace.EventMetric:
		if x.o.NoMetrics {
			return
		}
		m := ev.Metric()
		if name, ok := metricPlots[m.Name]; ok && m.Value.Kind() == trace.ValueUint64 {
			x.s.Plot(name, t, float64(m.Value.Uint64()))
		}
	}
}

func (x *Translator) sample(ev *trace.Event, t int64) {
	x.frames = x.frames[:0]
	for f := range ev.Stack().Frames() {
		x.frames = append(x.frames, Frame{PC: f.PC, Func: f.Func, File: f.File, Line: f.Line})
	}
	if len(x.frames) == 0 {
		return
	}
	tid := NoGoroutine
	if g := ev.Goroutine(); g != trace.NoGoroutine {
		tid = x.tidOf(g)
	} else if !x.named[NoGoroutine] {
		x.named[NoGoroutine] = true
		x.s.ThreadName(NoGoroutine, "no goroutine")
	}
	x.Samples++
	x.s.Sample(tid, t, x.frames)
}

func (x *Translator) count(d int64, t int64) {
	x.live += d
	if !x.o.NoGoroutineCount {
		x.s.Plot(PlotGoroutines, t, float64(x.live))
	}
}

func (x *Translator) goTransition(ev *trace.Event, t int64, st trace.StateTransition) {
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	g := x.g(id)
	if !g.exists && to != trace.GoNotExist {
		g.exists = true
		fn := ""
		if from == trace.GoNotExist {
			var ok bool
			if fn, ok = x.startFn[st.Stack]; !ok {
				for f := range st.Stack.Frames() {
					fn = f.Func // the outermost frame is the start function
				}
				x.startFn[st.Stack] = fn
			}
		}
		if x.o.PoolLanes {
			x.poolLane(id, g, fn)
		} else {
			x.name(id, g, fn)
		}
		x.count(1, t)
	}
	tid := g.tid
	cpu, hasP := cpuOf(ev.Proc())
	switch {
	case to == trace.GoRunning:
		if g.running {
			return
		}
		if !hasP {
			cpu = g.cpu
		}
		g.running, g.cpu = true, cpu
		if g.ready > 0 && !x.o.NoMetrics {
			x.latency(t, t-g.ready)
		}
		g.ready = 0
		x.Switches++
		x.s.ContextSwitch(t, 0, tid, cpu, 0, 0)
	case g.running:
		g.running = false
		var state uint8
		reason := st.Reason
		switch to {
		case trace.GoRunnable:
			state = goreason.StateRunnable
			g.ready = t
		case trace.GoWaiting:
			state = goreason.StateWaiting
		case trace.GoSyscall:
			state, reason = goreason.StateSyscall, "syscall"
		case trace.GoNotExist:
			state, reason = goreason.StateExited, "exited"
		}
		if reason != x.lastReason {
			// The parser hands the same strings again and again: one
			// comparison instead of a map lookup per switch.
			x.lastReason, x.lastCode = reason, goreason.Code(reason)
		}
		x.Switches++
		x.s.ContextSwitch(t, tid, 0, g.cpu, x.lastCode, state)
	case from == trace.GoWaiting && to == trace.GoRunnable, from == trace.GoNotExist && to == trace.GoRunnable:
		if !hasP {
			cpu = g.cpu
		}
		g.ready = t
		x.s.Wakeup(t, tid, cpu)
	}
	if to == trace.GoNotExist && g.exists {
		x.closeZones(id, g, t)
		if x.o.PoolLanes && g.fn != "" {
			x.pools[g.fn] = append(x.pools[g.fn], g.tid)
		}
		delete(x.gs, id)
		if len(x.free) < 1024 {
			x.free = append(x.free, g)
		}
		x.count(-1, t)
	}
}

func (x *Translator) pushZone(id trace.GoID, t int64, name string) {
	g := x.g(id)
	g.zones = append(g.zones, name)
	x.Zones++
	x.s.ZoneBegin(x.lane(id), t, name)
}

// popZone ends the innermost open zone called name and any opened inside
// it (regions ended out of order); an end whose begin the trace does not
// hold is dropped.
func (x *Translator) popZone(id trace.GoID, t int64, name string) {
	g := x.gs[id]
	if g == nil {
		return
	}
	for i := len(g.zones) - 1; i >= 0; i-- {
		if g.zones[i] == name {
			tid := x.lane(id)
			for j := len(g.zones) - 1; j >= i; j-- {
				x.s.ZoneEnd(tid, t)
			}
			g.zones = g.zones[:i]
			return
		}
	}
}

func (x *Translator) closeZones(id trace.GoID, g *gstate, t int64) {
	if len(g.zones) == 0 {
		return
	}
	tid := x.lane(id)
	for range g.zones {
		x.s.ZoneEnd(tid, t)
	}
	g.zones = g.zones[:0]
}

func (x *Translator) gcOpen(t int64, name string) {
	if !x.named[GCLane] {
		x.named[GCLane] = true
		x.s.ThreadName(GCLane, "GC")
	}
	x.gcStack = append(x.gcStack, name)
	x.Zones++
	x.s.ZoneBegin(GCLane, t, name)
}

// gcClose ends the innermost GC-lane zone called name and what is inside it.
func (x *Translator) gcClose(t int64, name string) {
	for i := len(x.gcStack) - 1; i >= 0; i-- {
		if x.gcStack[i] == name {
			for j := len(x.gcStack) - 1; j >= i; j-- {
				x.s.ZoneEnd(GCLane, t)
			}
			x.gcStack = x.gcStack[:i]
			return
		}
	}
}

func (x *Translator) rangeBegin(ev *trace.Event, t int64, r trace.Range) {
	switch {
	case r.Name == "GC concurrent mark phase":
		if x.stwOpen {
			x.pendingMark = true // the mark starts when the world does
			return
		}
		if !x.cycleOpen {
			x.cycleOpen = true
			x.gcOpen(t, ZoneGCCycle)
		}
		x.markOpen = true
		x.gcOpen(t, ZoneGCMark)
	case strings.HasPrefix(r.Name, "stop-the-world"):
		if x.stwOpen {
			return
		}
		x.stwKind = 0
		switch {
		case strings.Contains(r.Name, "sweep termination"):
			x.stwKind = 1
			if !x.cycleOpen {
				x.cycleOpen = true
				x.gcOpen(t, ZoneGCCycle)
			}
		case strings.Contains(r.Name, "mark termination"):
			x.stwKind = 2
			if x.markOpen {
				x.gcClose(t, ZoneGCMark)
				x.markOpen = false
			}
		}
		x.stwOpen = true
		x.gcOpen(t, r.Name)
	case r.Name == "GC mark assist":
		if g := r.Scope; g.Kind == trace.ResourceGoroutine {
			x.pushZone(g.Goroutine(), t, ZoneMarkAssist)
		}
	}
}

func (x *Translator) rangeEnd(ev *trace.Event, t int64, r trace.Range) {
	switch {
	case r.Name == "GC concurrent mark phase":
		x.pendingMark = false
		if x.markOpen {
			x.gcClose(t, ZoneGCMark)
			x.markOpen = false
		}
	case strings.HasPrefix(r.Name, "stop-the-world"):
		if !x.stwOpen {
			return
		}
		x.stwOpen = false
		x.gcClose(t, r.Name)
		switch x.stwKind {
		case 1:
			if x.pendingMark {
				x.pendingMark = false
				x.markOpen = true
				x.gcOpen(t, ZoneGCMark)
			}
		case 2:
			if x.cycleOpen {
				x.gcClose(t, ZoneGCCycle)
				x.cycleOpen = false
			}
		}
	case r.Name == "GC mark assist":
		if g := r.Scope; g.Kind == trace.ResourceGoroutine {
			x.popZone(g.Goroutine(), t, ZoneMarkAssist)
		}
	}
}

func (x *Translator) taskBegin(t int64, k trace.Task) {
	if k.Type == "" {
		return
	}
	lane := -1
	for i, busy := range x.taskLanes {
		if !busy {
			lane = i
			break
		}
	}
	if lane < 0 {
		if len(x.taskLanes) >= maxTaskLanes {
			return // too many concurrent tasks: dropped
		}
		lane = len(x.taskLanes)
		x.taskLanes = append(x.taskLanes, false)
		name := "tasks"
		if lane > 0 {
			name = "tasks " + strconv.Itoa(lane+1)
		}
		x.s.ThreadName(TaskLane0+uint32(lane), name)
	}
	x.taskLanes[lane] = true
	x.tasks[k.ID] = lane
	x.Zones++
	x.s.ZoneBegin(TaskLane0+uint32(lane), t, k.Type)
}

func (x *Translator) taskEnd(t int64, k trace.Task) {
	lane, ok := x.tasks[k.ID]
	if !ok {
		return
	}
	delete(x.tasks, k.ID)
	x.taskLanes[lane] = false
	x.s.ZoneEnd(TaskLane0+uint32(lane), t)
}

// latency adds one wait to the current window, emitting the previous
// window's percentile when t is past it.
func (x *Translator) latency(t, d int64) {
	if x.latStart == 0 {
		x.latStart = t
	}
	if t-x.latStart >= latencyWindow {
		x.flushLatency(x.latStart + latencyWindow)
		x.latStart = t
	}
	x.lat = append(x.lat, d)
}

func (x *Translator) flushLatency(at int64) {
	if len(x.lat) == 0 {
		return
	}
	slices.Sort(x.lat)
	p := x.lat[(len(x.lat)*99+99)/100-1]
	x.s.Plot(PlotSchedLatency, at, float64(p))
	x.lat = x.lat[:0]
}

// Finish closes everything still open at the last event's time (or t, if
// later): zones, running goroutines.
func (x *Translator) Finish(t int64) {
	if t < x.last {
		t = x.last
	}
	x.flushLatency(min(x.latStart+latencyWindow, t))
	for id, g := range x.gs {
		x.closeZones(id, g, t)
		if g.running {
			g.running = false
			x.s.ContextSwitch(t, g.tid, 0, g.cpu, 0, goreason.StateRunnable)
		}
	}
	for i := len(x.gcStack) - 1; i >= 0; i-- {
		x.s.ZoneEnd(GCLane, t)
	}
	x.gcStack = x.gcStack[:0]
	x.cycleOpen, x.markOpen, x.stwOpen, x.pendingMark = false, false, false, false
	for id, lane := range x.tasks {
		x.s.ZoneEnd(TaskLane0+uint32(lane), t)
		x.taskLanes[lane] = false
		delete(x.tasks, id)
	}
}

// Last returns the latest event time seen.
func (x *Translator) Last() int64 { return x.last }
