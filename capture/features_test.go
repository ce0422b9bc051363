package capture

import (
	"bytes"
	"context"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// Less common items, replayed from a synthetic stream (answers included
// where the server would ask): zone annotations, fibers, sections, power,
// CPU topology, messages with call stacks, named memory with call stacks.
func TestFeatures(t *testing.T) {
	var refs protocol.TimeRefs
	var b []byte
	app := func(nb []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		b = nb
	}
	b = refs.AppendThreadContext(b, 1)
	b = refs.AppendZoneBegin(b, 1000, 0x100)
	app(protocol.AppendSingleString(b, "first"))
	b = protocol.AppendZoneText(b)
	app(protocol.AppendSingleString(b, "second"))
	b = protocol.AppendZoneText(b)
	b = protocol.AppendZoneValue(b, 31)
	b = protocol.AppendZoneColor(b, 0x30, 0x20, 0x10)
	app(protocol.AppendSingleString(b, "renamed"))
	b = protocol.AppendZoneName(b)
	// A fiber takes over thread 1: the next zone belongs to it.
	b = protocol.AppendFiberEnter(b, refs.Delta(protocol.TimeThread, 1100), 0x900, 1, 0)
	b = refs.AppendZoneBegin(b, 1200, 0x100)
	b = refs.AppendZoneEnd(b, 1300)
	b = protocol.AppendFiberLeave(b, refs.Delta(protocol.TimeThread, 1400), 1)
	b = refs.AppendZoneEnd(b, 1500)
	// Sections: one in order, one whose leave comes first.
	app(protocol.AppendSingleString(b, "cat one"))
	b = protocol.AppendSectionSetup(b, 1)
	app(protocol.AppendSingleString(b, "s1"))
	b = protocol.AppendSectionEnter(b, refs.Delta(protocol.TimeThread, 1600), 1, 1)
	b = protocol.AppendSectionLeave(b, refs.Delta(protocol.TimeThread, 1700), 1)
	b = protocol.AppendSectionLeave(b, refs.Delta(protocol.TimeThread, 1900), 2)
	app(protocol.AppendSingleString(b, "s2"))
	b = protocol.AppendSectionEnter(b, refs.Delta(protocol.TimeThread, 1800), 2, 1)
	// Power: the first report only creates the plot.
	b = protocol.AppendSysPowerReport(b, 2000, 0, 0x950)
	b = protocol.AppendSysPowerReport(b, 3000, 5, 0x950) // 5 uJ in 1000 ns = 5 W
	b = protocol.AppendCpuTopology(b, 0, 0, 1, 3)
	b = protocol.AppendCpuTopology(b, 0, 0, 1, 4)
	// Message with a call stack, named memory with a call stack.
	app(protocol.AppendCallstackPayloadFrames(b, 1, []uint64{0x500}))
	b = protocol.AppendCallstack(b)
	app(protocol.AppendSingleString(b, "with stack"))
	b = protocol.AppendMessageCallstack(b, 4000, 0x20)
	app(protocol.AppendCallstackPayloadFrames(b, 2, []uint64{0x500, 0x600}))
	b = protocol.AppendCallstackSerial(b)
	b = protocol.AppendMemNamePayload(b, 0x960)
	b = protocol.AppendMemAllocCallstackNamed(b, refs.Delta(protocol.TimeSerial, 4100), 1, 0xA000, 48)
	// Answers the server asks for.
	app(protocol.AppendFiberName(b, 0x900, "fiber A"))
	app(protocol.AppendStringData(b, 0x950, "package-0"))
	app(protocol.AppendStringData(b, 0x960, "pool"))
	b = protocol.AppendTerminate(b)

	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	// The stream has no answers for these: the replay says so.
	wantUnanswered(t, err, "2 call-stack frames, 1 thread names, 1 source locations")
	check := func(tr *model.Trace) {
		t.Helper()
		if len(tr.Threads) != 2 || !tr.Threads[1].IsFiber || tr.ThreadName(tr.Threads[1].ID) != "fiber A" {
			t.Fatalf("threads %+v", tr.Threads)
		}
		main, fiber := tr.Threads[0].Zones.Slice(), tr.Threads[1].Zones.Slice()
		if len(main) != 1 || len(fiber) != 1 || fiber[0].Start() != 1200 || main[0].End() != 1500 {
			t.Fatalf("zones main %d fiber %d", len(main), len(fiber))
		}
		e := tr.ZoneExtras[main[0].Extra()]
		if tr.Str(e.Text) != "first\nsecond\n31 [0x1f]" || tr.Str(e.Name) != "renamed" || e.Color != 0x302010 {
			t.Errorf("zone extra %+v text %q", e, tr.Str(e.Text))
		}
		if len(tr.Sections) != 1 || len(tr.Sections[0].Items) != 2 {
			t.Fatalf("sections %+v", tr.Sections)
		}
		it := tr.Sections[0].Items
		if it[0] != (model.SectionItem{Start: 1600, End: 1700, Text: it[0].Text}) || it[1].Start != 1800 || it[1].End != 1900 || tr.Str(it[1].Text) != "s2" {
			t.Errorf("section items %+v", it)
		}
		var power *model.Plot
		for i := range tr.Plots {
			if tr.Plots[i].Type == model.PlotPower {
				power = &tr.Plots[i]
			}
		}
		if power == nil || len(power.Points) != 1 || power.Points[0].Value != 5 {
			t.Errorf("power plot %+v", power)
		}
		if len(tr.Topology) != 1 || len(tr.Topology[0].Dies[0].Cores[0].Threads) != 2 {
			t.Errorf("topology %+v", tr.Topology)
		}
		if len(tr.Messages) != 1 || tr.Messages[0].CallStack != 1 {
			t.Errorf("messages %+v", tr.Messages)
		}
		var pool *model.MemPool
		for i := range tr.MemPools {
			if s, _ := tr.PtrString(tr.MemPools[i].Name); s == "pool" {
				pool = &tr.MemPools[i]
			}
		}
		if pool == nil || len(pool.Events) != 1 || pool.Events[0].CSAlloc != 2 || pool.Events[0].Size != 48 {
			t.Errorf("pool %+v", pool)
		}
	}
	check(res.Trace)
	var file bytes.Buffer
	if err := tracefile.Write(&file, res.Trace); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	check(back)
}

// Context switches and wakeups (Linux/Windows system tracing): per-thread
// running spans, the per-CPU timeline, running time and migrations.
func TestContextSwitches(t *testing.T) {
	var refs protocol.TimeRefs
	var b []byte
	cs := func(tm int64, old, nw uint32, cpu uint8, reason, state uint8) {
		b = protocol.AppendContextSwitch(b, refs.Delta(protocol.TimeContext, tm), old, nw, cpu, reason, state, 0, 0, 0)
	}
	cs(100, 0, 10, 1, 0, 0)
	b = protocol.AppendThreadWakeup(b, refs.Delta(protocol.TimeContext, 150), 11, 0, 0, 0)
	cs(200, 10, 11, 1, 5, 2)
	cs(300, 11, 0, 1, 6, 1)
	cs(400, 0, 10, 0, 0, 0) // thread 10 migrates to CPU 0
	for _, tid := range []uint64{10, 11} {
		var err error
		if b, err = protocol.AppendExternalThreadName(b, tid, "thr"); err != nil {
			t.Fatal(err)
		}
		if b, err = protocol.AppendExternalName(b, tid, "proc"); err != nil {
			t.Fatal(err)
		}
	}
	b = protocol.AppendTerminate(b)
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	if len(tr.CtxSwitches) != 2 {
		t.Fatalf("ctx switch threads %+v", tr.CtxSwitches)
	}
	want10 := []model.CtxSwitch{
		{Wakeup: 100, Start: 100, End: 200, CPU: 1, Reason: 5, State: 2, WakeupCPU: 1},
		{Wakeup: 400, Start: 400, End: -1, CPU: 0, Reason: -1, State: -1, WakeupCPU: 0},
	}
	want11 := []model.CtxSwitch{{Wakeup: 150, Start: 200, End: 300, CPU: 1, Reason: 6, State: 1, WakeupCPU: 0}}
	for i, want := range [][]model.CtxSwitch{want10, want11} {
		got := tr.CtxSwitches[i].Events
		if len(got) != len(want) {
			t.Fatalf("thread %d: %+v", tr.CtxSwitches[i].Thread, got)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("thread %d switch %d = %+v, want %+v", tr.CtxSwitches[i].Thread, j, got[j], want[j])
			}
		}
	}
	cpu1 := tr.CPUData[1]
	if len(cpu1) != 2 || cpu1[0] != (model.CPUEntry{Start: 100, End: 200, Thread: 0}) || cpu1[1] != (model.CPUEntry{Start: 200, End: 300, Thread: 1}) {
		t.Errorf("cpu 1 %+v", cpu1)
	}
	var td10 model.CPUThreadData
	for _, d := range tr.CPUThreadData {
		if d.Thread == 10 {
			td10 = d
		}
	}
	if td10.RunningTime != 100 || td10.RunningRegions != 1 || td10.Migrations != 1 {
		t.Errorf("thread 10 cpu data %+v", td10)
	}
	if n := tr.ExtThreadNames[11]; tr.Str(n[0]) != "proc" || tr.Str(n[1]) != "thr" {
		t.Errorf("external names of 11: %q %q", tr.Str(n[0]), tr.Str(n[1]))
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len())); err != nil {
		t.Fatal(err)
	}
}

// Sampled call stacks: time order, merging of same-time samples, kernel
// sample count, context-switch samples in both lists.
func TestSamples(t *testing.T) {
	var refs protocol.TimeRefs
	var b []byte
	sample := func(tm int64, frames []uint64, ctx bool) {
		var err error
		if b, err = protocol.AppendCallstackPayloadFrames(b, 1, frames); err != nil {
			t.Fatal(err)
		}
		if ctx {
			b = refs.AppendCallstackSampleContextSwitch(b, 3, tm)
		} else {
			b = refs.AppendCallstackSample(b, 3, tm)
		}
	}
	kernel := uint64(0xFFFFFFFF81000000)
	sample(500, []uint64{kernel, 0x400}, false)
	sample(700, []uint64{0x500}, false)
	sample(700, []uint64{0x600}, false) // same time: merged into the previous
	sample(900, []uint64{0x700}, true)
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	if err == nil || res == nil {
		t.Fatalf("want the missing-Terminate error with a trace, got %v", err)
	}
	tr := res.Trace
	th := tr.Threads[0]
	if th.ID != 3 || len(th.Samples) != 3 || th.KernelSampleCnt != 1 || len(th.CtxSwitchSamples) != 1 {
		t.Fatalf("thread %+v", th)
	}
	merged := tr.CallStack(th.Samples[1].CallStack)
	if th.Samples[1].Time != 700 || len(merged) != 2 || merged[0] != 0x500 || merged[1] != 0x600 {
		t.Errorf("merged sample %+v: %#x", th.Samples[1], merged)
	}
	if th.Samples[2].Time != 900 || th.CtxSwitchSamples[0].Time != 900 {
		t.Errorf("context-switch sample %+v %+v", th.Samples[2], th.CtxSwitchSamples[0])
	}
}
