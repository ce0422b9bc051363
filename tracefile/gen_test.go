package tracefile

import (
	"math/rand/v2"

	"github.com/gotracy/gotracy/model"
)

// genTrace builds a trace that uses every record kind the file holds, with
// nZones CPU zones spread over a few threads in random trees.
func genTrace(seed uint64, nZones int) *model.Trace {
	r := rand.New(rand.NewPCG(seed, 42))
	b := model.NewBuilder()
	t := b.Trace()
	m := &t.Metadata
	m.Resolution, m.TimerMul, m.FrameOffset, m.PID = 10, 0.33, 0, 4242
	m.SamplingPeriod = 100000
	m.CPUArch, m.CPUID = model.CPUArchX64, 0x906ea
	copy(m.CPUManufacturer[:], "GenuineIntel")
	m.CaptureName, m.CaptureProgram, m.HostInfo = "gen @ 2026-01-01 00:00:00", "gen", "OS: Linux\nCPU: test"
	m.CaptureTime, m.ExecutableTime = 1767225600, 1767225000
	t.Topology = []model.CPUPackage{{ID: 0, Dies: []model.CPUDie{{ID: 0, Cores: []model.CPUCore{{ID: 0, Threads: []uint32{0, 1}}, {ID: 1, Threads: []uint32{2, 3}}}}}}}

	// Source locations: static by pointer, dynamic by index.
	b.SetPtrString(0x5000, "zone_a")
	b.SetPtrString(0x5001, "func_a")
	b.SetPtrString(0x5002, "file.cpp")
	var slocs []model.SrcLocID
	for i := range 5 {
		slocs = append(slocs, b.AddStaticSrcLoc(0x7000+uint64(i)*0x40, model.SourceLocation{
			Name: model.PtrRef(0x5000), Function: model.PtrRef(0x5001), File: model.PtrRef(0x5002), Line: uint32(10 + i), Color: uint32(i) * 0x102030}))
	}
	slocs = append(slocs, b.AddStaticSrcLoc(0x8000, model.SourceLocation{Function: model.PtrRef(0x5001), File: model.PtrRef(0x5002), Line: 99}))
	for i := range 3 {
		slocs = append(slocs, b.AddDynSrcLoc(model.SourceLocation{
			Name: model.IdxRef(b.Intern("dyn" + string(rune('a'+i)))), Function: model.IdxRef(b.Intern("dynfn")), File: model.IdxRef(b.Intern("dyn.go")), Line: uint32(i)}))
	}

	cs1 := b.InternCallStack([]uint64{0x401000, 0x401100, 0x401200})
	cs2 := b.InternCallStack([]uint64{0x402000, 1<<62 | 7})
	t.Frames[0x401000] = model.FrameData{ImageName: b.Intern("gen"), Frames: []model.InlineFrame{
		{Name: b.Intern("main.f"), File: b.Intern("main.go"), Line: 12, SymAddr: 0x400f00},
		{Name: b.Intern("main.g"), File: b.Intern("main.go"), Line: 20, SymAddr: 0x400f00}}}
	t.Frames[0x402000] = model.FrameData{ImageName: b.Intern("libc.so")}

	// Threads with random zone trees, messages and samples.
	now := int64(1000)
	tids := []uint64{101, 102, 103}
	for ti, tid := range tids {
		b.SetThreadName(tid, "thread-"+string(rune('0'+ti)))
		th := b.Thread(tid)
		time := now
		for z := 0; z < nZones/len(tids); z++ {
			time += 1 + int64(r.IntN(50))
			if d := b.OpenDepth(th); d > 0 && (d > 6 || r.IntN(3) == 0) {
				b.EndZone(th, time)
				continue
			}
			idx := b.BeginZone(th, time, slocs[r.IntN(len(slocs))])
			switch r.IntN(20) {
			case 0:
				b.SetZoneText(th, idx, "text "+string(rune('a'+r.IntN(26))))
			case 1:
				b.SetZoneColor(th, idx, 0x123456)
				b.SetZoneCallStack(th, idx, cs1)
			case 2:
				b.SetZoneName(th, idx, "renamed")
			}
		}
		for b.OpenDepth(th) > 1 {
			time += 3
			b.EndZone(th, time)
		}
		// One zone stays open: it never ends.
		t.Threads[th].KernelSampleCnt = uint64(ti)
		t.Threads[th].GroupHint = int32(ti - 1)
		t.Threads[th].IsFiber = ti == 2
		for k := range 3 {
			t.Threads[th].Samples = append(t.Threads[th].Samples, model.Sample{Time: now + int64(k)*100, CallStack: cs2})
			t.Threads[th].CtxSwitchSamples = append(t.Threads[th].CtxSwitchSamples, model.Sample{Time: now + int64(k)*150, CallStack: cs1})
		}
	}
	for i := range 10 {
		tid := tids[i%len(tids)]
		msg := model.Message{Time: now + int64(i)*10, Color: 0xFF00FF00 | uint32(i), Severity: uint8(i % 6), Source: uint8(i % 2)}
		if i%2 == 0 {
			msg.Text = model.IdxRef(b.Intern("message " + string(rune('0'+i))))
		} else {
			msg.Text = model.PtrRef(0x5000)
			msg.CallStack = cs2
		}
		b.AddMessage(tid, msg)
	}
	// A message on a thread with no zones.
	b.AddMessage(999, model.Message{Time: now + 500, Text: model.IdxRef(b.Intern("lonely")), Color: 0xFFFFFFFF})

	// Frames: base set continuous, one discontinuous set, images.
	for i := range 5 {
		b.FrameMark(0, now+int64(i)*1000)
	}
	b.SetPtrString(0x9000, "Render")
	for i := range 3 {
		b.FrameStart(0x9000, now+int64(i)*1000+10)
		if i < 2 {
			b.FrameEnd(0x9000, now+int64(i)*1000+500)
		}
	}
	img := model.FrameImage{W: 8, H: 4, Flip: true, Data: make([]byte, 16)}
	for i := range img.Data {
		img.Data[i] = byte(r.Uint32())
	}
	b.AddFrameImage(img, 2)
	b.AddFrameImage(model.FrameImage{W: 4, H: 4, Data: make([]byte, 8)}, 3)
	t.FrameImageDict = []byte{1, 2, 3}

	// Locks.
	b.LockAnnounce(7, slocs[0], model.LockSharedLockable, now)
	b.LockName(7, "the lock")
	for i := range 6 {
		b.LockEvent(7, tids[i%2], now+int64(i)*5+1, uint8(i%6), slocs[1])
	}
	b.LockTerminate(7, now+10000)
	b.LockAnnounce(8, slocs[2], model.LockLockable, now+3)

	// Plots.
	b.SetPtrString(0x6000, "plot")
	b.PlotConfig(0x6000, model.PlotFormatMemory, true, false, 0xABCDEF)
	for i := range 20 {
		b.PlotPoint(0x6000, now+int64(i), float64(i)*1.5)
	}
	t.Plots = append(t.Plots, model.Plot{Name: 0, Type: model.PlotSysTime, Format: model.PlotFormatPercentage, Min: 1, Max: 2, Sum: 3, Points: []model.PlotPoint{{Time: now, Value: 1}, {Time: now + 1, Value: 2}}})

	// Memory: default and named pools.
	b.SetPtrString(0x6100, "pool")
	for i := range 8 {
		b.MemAlloc(0, 0x10000+uint64(i)*64, 64, now+int64(i), 1, cs1)
		b.MemAlloc(0x6100, 0x20000+uint64(i)*64, 32, now+int64(i), 2, 0)
	}
	b.MemFree(0, 0x10000, now+100, 2, cs2)
	b.MemDiscard(0x6100, now+200, 1, 0)

	// GPU.
	gz := []model.GpuZone{
		{CPUStart: 10, CPUEnd: 50, GPUStart: 20, GPUEnd: 60, SrcLoc: slocs[0], CallStack: cs1, Thread: 1, QueryID: 3, Next: 3},
		{CPUStart: 12, CPUEnd: 20, GPUStart: 25, GPUEnd: 30, SrcLoc: slocs[1], Thread: 1, Next: 2},
		{CPUStart: 22, CPUEnd: 30, GPUStart: 31, GPUEnd: -1, SrcLoc: slocs[6], Thread: 2, Next: 3},
		{CPUStart: 60, CPUEnd: 70, GPUStart: 70, GPUEnd: 80, SrcLoc: slocs[2], Thread: 1, Next: 4},
	}
	t.GpuContexts = []model.GpuContext{{Thread: 101, Calibrated: true, Count: 4, Period: 1.5, Type: model.GpuVulkan, Name: b.Intern("gpu"), Overflow: 1 << 32,
		NoteNames: []model.GpuNoteName{{ID: 1, Name: b.Intern("note")}},
		Timelines: []model.GpuTimeline{{Thread: 101, Zones: gz}},
		Notes:     []model.GpuNoteGroup{{QueryID: 3, Notes: []model.GpuNote{{ID: 1, Value: 2.5}}}}}}

	// Sections, app info, crash.
	t.Sections = []model.SectionCategory{{Category: 1, Items: []model.SectionItem{{Start: 5, End: 10, Text: b.Intern("section")}, {Start: 11, End: -3}}}}
	t.SectionDescs = []model.SectionDesc{{Category: 1, Text: b.Intern("category")}, {Category: 2}}
	t.AppInfo = []model.StringRef{model.IdxRef(b.Intern("app info line"))}
	b.SetPtrString(0xC000, "crash!")
	t.Crash = model.Crash{Thread: 101, Time: now + 9000, Message: 0xC000, CallStack: cs2}

	// Context switches, per-CPU data, processes.
	t.ExtThreadIndex = []uint64{101, 5555}
	t.ExtThreadNames[5555] = [2]model.StrID{b.Intern("otherproc"), b.Intern("otherthread")}
	t.CtxSwitches = []model.ThreadCtxSwitches{{Thread: 101, Events: []model.CtxSwitch{
		{Wakeup: 5, Start: 6, End: 9, CPU: 1, Reason: -2, State: 3, WakeupCPU: 2},
		{Wakeup: 10, Start: 11, End: -1, CPU: 0, Reason: 99, State: -1, WakeupCPU: 0, Thread: 7}}}}
	t.CPUData[0] = []model.CPUEntry{{Start: 1, End: 2, Thread: 0}, {Start: 3, End: -1, Thread: 1}}
	t.CPUData[255] = []model.CPUEntry{{Start: 7, End: 8, Thread: 1}}
	t.TidToPid[101] = 4242
	t.TidToPid[5555] = 1
	t.CPUThreadData = []model.CPUThreadData{{Thread: 101, RunningTime: 1234, RunningRegions: 5, Migrations: 1}}

	// Symbols and code.
	t.Symbols = []model.Symbol{
		{Addr: 0x400f00, Name: b.Intern("main.f"), File: b.Intern("main.go"), Line: 10, ImageName: b.Intern("gen"), Size: 0x100},
		{Addr: 0x400f40, Name: b.Intern("main.g"), File: b.Intern("main.go"), Line: 20, CallFile: b.Intern("main.go"), CallLine: 12, IsInline: true, Size: 0x10},
	}
	t.SymbolCode = []model.SymbolCode{{Addr: 0x400f00, Code: []byte{0x55, 0x48, 0x89, 0xe5, 0xc3}}}
	t.CodeSymbols = []model.CodeSymbol{{CodeAddr: 0x400f44, SymAddr: 0x400f40}}
	t.HwSamples = []model.HwSample{{Addr: 0x400f10, Times: [6][]int64{{1, 5, 9}, nil, {2}, nil, {3, 4}, nil}}}
	t.SourceCache = []model.SourceFile{{Name: "/src/main.go", Data: []byte("package main\n")}}
	t.TidToPid[102] = 4242

	return b.Finish()
}
