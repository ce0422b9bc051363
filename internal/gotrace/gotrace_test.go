package gotrace

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/exp/trace"
)

// recSink records zones per lane as "name[begin,end]" in begin order, and
// context switches.
type recSink struct {
	open     map[uint32][]int
	zones    map[uint32][]string
	times    map[uint32][][2]int64
	switches []string
}

func newRec() *recSink {
	return &recSink{open: map[uint32][]int{}, zones: map[uint32][]string{}, times: map[uint32][][2]int64{}}
}

func (r *recSink) ThreadName(uint32, string) {}
func (r *recSink) ContextSwitch(t int64, old, nw uint32, cpu uint8, reason, state uint8) {
	r.switches = append(r.switches, fmt.Sprintf("%d:%d->%d@%d r%d s%d", t, old, nw, cpu, reason, state))
}
func (r *recSink) Wakeup(t int64, tid uint32, cpu uint8) {
	r.switches = append(r.switches, fmt.Sprintf("%d:wake %d@%d", t, tid, cpu))
}
func (r *recSink) ZoneBegin(tid uint32, t int64, name string) {
	r.open[tid] = append(r.open[tid], len(r.zones[tid]))
	r.zones[tid] = append(r.zones[tid], name)
	r.times[tid] = append(r.times[tid], [2]int64{t, -1})
}
func (r *recSink) ZoneEnd(tid uint32, t int64) {
	st := r.open[tid]
	i := st[len(st)-1]
	r.open[tid] = st[:len(st)-1]
	r.times[tid][i][1] = t
}
func (r *recSink) Message(uint32, int64, string) {}
func (r *recSink) Sample(uint32, int64, []Frame) {}
func (r *recSink) Plot(string, int64, float64)   {}

func (r *recSink) lane(tid uint32) string {
	var b []string
	for i, n := range r.zones[tid] {
		b = append(b, fmt.Sprintf("%s[%d,%d]", n, r.times[tid][i][0], r.times[tid][i][1]))
	}
	return strings.Join(b, " ")
}

func rng(t *testing.T, kind trace.EventKind, ts int64, name string, g trace.GoID) trace.Event {
	t.Helper()
	scope := trace.ResourceID{Kind: trace.ResourceNone}
	if g != trace.NoGoroutine {
		scope = trace.MakeResourceID(g)
	}
	ev, err := trace.MakeEvent(trace.EventConfig[trace.Range]{Time: trace.Time(ts), Kind: kind, Goroutine: g, Proc: 0, Thread: 1,
		Details: trace.Range{Name: name, Scope: scope}})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestGCLaneNests: the tracer's GC ranges overlap (the mark phase begins
// inside the sweep-termination pause and ends inside the mark-termination
// one); the GC lane gets a cycle with the pauses and the mark nested in
// it, and another pause during the mark nested in the mark.
func TestGCLaneNests(t *testing.T) {
	r := newRec()
	x := New(r, Options{})
	const mark = "GC concurrent mark phase"
	evs := []trace.Event{
		rng(t, trace.EventRangeBegin, 10, "stop-the-world (GC sweep termination)", 1),
		rng(t, trace.EventRangeBegin, 12, mark, trace.NoGoroutine),
		rng(t, trace.EventRangeEnd, 15, "stop-the-world (GC sweep termination)", 1),
		rng(t, trace.EventRangeBegin, 20, "stop-the-world (read mem stats)", 1),
		rng(t, trace.EventRangeEnd, 22, "stop-the-world (read mem stats)", 1),
		rng(t, trace.EventRangeBegin, 28, "stop-the-world (GC mark termination)", 1),
		rng(t, trace.EventRangeEnd, 30, mark, trace.NoGoroutine),
		rng(t, trace.EventRangeEnd, 32, "stop-the-world (GC mark termination)", 1),
		rng(t, trace.EventRangeBegin, 40, "GC mark assist", 7),
		rng(t, trace.EventRangeEnd, 41, "GC mark assist", 7),
	}
	for i := range evs {
		x.Event(&evs[i])
	}
	x.Finish(50)
	want := "GC cycle[10,32] stop-the-world (GC sweep termination)[10,15] GC mark[15,28] stop-the-world (read mem stats)[20,22] stop-the-world (GC mark termination)[28,32]"
	if got := r.lane(GCLane); got != want {
		t.Errorf("GC lane\n got %s\nwant %s", got, want)
	}
	if got := r.lane(7); got != "GC mark assist[40,41]" {
		t.Errorf("goroutine 7: %s", got)
	}
	for tid, st := range r.open {
		if len(st) != 0 {
			t.Errorf("lane %d: %d zones left open", tid, len(st))
		}
	}
}

func gost(t *testing.T, ts int64, g trace.GoID, p trace.ProcID, from, to trace.GoState) trace.Event {
	t.Helper()
	ev, err := trace.MakeEvent(trace.EventConfig[trace.StateTransition]{Time: trace.Time(ts), Kind: trace.EventStateTransition, Goroutine: g, Proc: p, Thread: 1,
		Details: trace.MakeGoStateTransition(g, from, to)})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestSwitches: running on a P is a switch in on that CPU, stopping is a
// switch out on the same CPU with the state, waking is a wake-up, and a
// goroutine still running at the end is switched out there.
func TestSwitches(t *testing.T) {
	r := newRec()
	x := New(r, Options{NoGoroutineCount: true})
	evs := []trace.Event{
		gost(t, 1, 5, 1, trace.GoNotExist, trace.GoRunnable),
		gost(t, 2, 5, 1, trace.GoRunnable, trace.GoRunning),
		gost(t, 3, 5, 1, trace.GoRunning, trace.GoWaiting),
		gost(t, 4, 5, 0, trace.GoWaiting, trace.GoRunnable),
		gost(t, 5, 5, 0, trace.GoRunnable, trace.GoRunning),
	}
	for i := range evs {
		x.Event(&evs[i])
	}
	x.Finish(9)
	want := "1:wake 5@1 | 2:0->5@1 r0 s0 | 3:5->0@1 r0 s2 | 4:wake 5@0 | 5:0->5@0 r0 s0 | 9:5->0@0 r0 s1"
	if got := strings.Join(r.switches, " | "); got != want {
		t.Errorf("switches\n got %s\nwant %s", got, want)
	}
}

type nameSink struct {
	recSink
	names map[uint32]string
}

func (n *nameSink) ThreadName(tid uint32, name string) { n.names[tid] = name }

// TestPoolLanes: a goroutine that starts after another of the same start
// function exited takes its lane; two alive at once get two lanes.
func TestPoolLanes(t *testing.T) {
	n := &nameSink{recSink: *newRec(), names: map[uint32]string{}}
	x := New(n, Options{PoolLanes: true, NoGoroutineCount: true})
	create := func(ts int64, g trace.GoID) trace.Event {
		st := trace.MakeGoStateTransition(g, trace.GoNotExist, trace.GoRunnable)
		st.Stack = trace.MakeStack([]trace.StackFrame{{PC: 1, Func: "main.w"}})
		ev, err := trace.MakeEvent(trace.EventConfig[trace.StateTransition]{Time: trace.Time(ts), Kind: trace.EventStateTransition, Goroutine: 1, Proc: 0, Thread: 1, Details: st})
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	evs := []trace.Event{
		create(1, 10),
		gost(t, 2, 10, 0, trace.GoRunnable, trace.GoRunning),
		gost(t, 3, 10, 0, trace.GoRunning, trace.GoNotExist),
		create(4, 11), // takes g10's lane
		create(5, 12), // g11 is alive: a second lane
		gost(t, 6, 11, 0, trace.GoRunnable, trace.GoRunning),
		gost(t, 7, 12, 1, trace.GoRunnable, trace.GoRunning),
	}
	for i := range evs {
		x.Event(&evs[i])
	}
	x.Finish(9)
	if x.tidOf(11) != 2 || x.tidOf(12) != 3 {
		t.Errorf("lanes: g11 on %d, g12 on %d; want 2 (g10's) and 3", x.tidOf(11), x.tidOf(12))
	}
	if n.names[2] != "main.w" || n.names[3] != "main.w #2" {
		t.Errorf("names %v", n.names)
	}
}
