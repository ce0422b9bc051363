package model

import (
	"slices"
	"testing"
	"unsafe"
)

func TestZoneSize(t *testing.T) {
	if s := unsafe.Sizeof(Zone{}); s != 22 {
		t.Fatalf("Zone is %d bytes, want 22 (Tracy's ZoneEvent)", s)
	}
}

func TestZoneFields(t *testing.T) {
	for _, v := range []int64{0, 1, -1, MaxTime, MinTime, 123456789012} {
		z := MakeZone(v, -v/2, -5, 0xFFFFFFFF, 0x12345678)
		if z.Start() != v || z.End() != -v/2 || z.SrcLoc != -5 || z.Extra() != 0xFFFFFFFF || z.Next() != 0x12345678 {
			t.Fatalf("round trip of %d: %d %d %d %x %x", v, z.Start(), z.End(), z.SrcLoc, z.Extra(), z.Next())
		}
	}
}

func TestBuilderZoneTree(t *testing.T) {
	b := NewBuilder()
	sl := b.AddStaticSrcLoc(0x1000, SourceLocation{Name: PtrRef(0x2000), Line: 7})
	if sl != 1 {
		t.Fatalf("first static srcloc = %d, want 1", sl)
	}
	b.SetPtrString(0x2000, "outer")
	th := b.Thread(42)
	b.BeginZone(th, 10, sl) // 0
	b.BeginZone(th, 11, sl) // 1
	b.BeginZone(th, 12, sl) // 2
	b.EndZone(th, 13)
	b.EndZone(th, 14)
	b.BeginZone(th, 15, sl) // 3
	b.SetZoneText(th, 3, "hello")
	b.EndZone(th, 16)
	b.EndZone(th, 20)
	b.BeginZone(th, 30, sl) // 4, never ends
	tr := b.Finish()
	z := &tr.Threads[th].Zones
	if got := slices.Collect(Roots(z)); !slices.Equal(got, []int{0, 4}) {
		t.Fatalf("roots %v", got)
	}
	if got := slices.Collect(Children(z, 0)); !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("children of 0: %v", got)
	}
	if st := SelfTime(z, 0); st != 10-3-1 {
		t.Fatalf("self time %d", st)
	}
	if z.At(4).End() != -1 || tr.Metadata.LastTime != 30 {
		t.Fatalf("open zone end %d, last time %d", z.At(4).End(), tr.Metadata.LastTime)
	}
	if tr.ZoneName(z.At(0)) != "outer" || tr.Str(tr.ZoneExtras[z.At(3).Extra()].Text) != "hello" {
		t.Fatalf("names: %q", tr.ZoneName(z.At(0)))
	}
	var depths []int
	Walk(z, func(i, d int) bool { depths = append(depths, d); return true })
	if !slices.Equal(depths, []int{0, 1, 2, 1, 0}) {
		t.Fatalf("depths %v", depths)
	}
}

func TestInternCallStack(t *testing.T) {
	b := NewBuilder()
	a := b.InternCallStack([]uint64{1, 2, 3})
	c := b.InternCallStack([]uint64{1, 2})
	if a != 1 || c != 2 || b.InternCallStack([]uint64{1, 2, 3}) != 1 || b.InternCallStack(nil) != 0 {
		t.Fatal("call stack dedup")
	}
	if !slices.Equal(b.Trace().CallStack(2), []uint64{1, 2}) || b.Trace().CallStack(3) != nil {
		t.Fatal("call stack lookup")
	}
	b2 := BuilderFor(b.Trace())
	if b2.InternCallStack([]uint64{1, 2}) != 2 {
		t.Fatal("BuilderFor lost call stacks")
	}
}

func TestMemory(t *testing.T) {
	b := NewBuilder()
	b.MemAlloc(0, 0x100, 16, 1, 1, 0)
	b.MemAlloc(0, 0x200, 32, 2, 1, 0)
	if b.MemAlloc(0, 0x100, 1, 3, 1, 0) {
		t.Fatal("double alloc accepted")
	}
	if !b.MemFree(0, 0x100, 4, 1, 0) || b.MemFree(0, 0x100, 5, 1, 0) {
		t.Fatal("free")
	}
	if n := b.MemDiscard(0, 6, 1, 0); n != 1 {
		t.Fatalf("discard freed %d", n)
	}
	p := b.Trace().MemPools[0]
	if p.Usage != 0 || p.High != 0x220 || p.Low != 0x100 || p.Events[0].TimeFree != 4 || p.Events[1].TimeFree != 6 {
		t.Fatalf("pool %+v", p)
	}
}

func TestBuilderEvents(t *testing.T) {
	b := NewBuilder()
	b.PlotPoint(0x10, 5, 3)
	b.PlotPoint(0x10, 6, -1)
	b.PlotConfig(0x10, PlotFormatMemory, true, true, 0x1FFFFFF)
	b.Plot(0x11) // no points
	if b.FrameEnd(0x20, 1) {
		t.Fatal("FrameEnd of an unknown set succeeded")
	}
	b.FrameMark(0, 10)
	b.FrameMark(0, 20)
	b.FrameStart(0x20, 11)
	if !b.FrameEnd(0x20, 15) || b.FrameEnd(0x20, 16) {
		t.Fatal("discontinuous frame end")
	}
	if img := b.AddFrameImage(FrameImage{W: 4, H: 4, Data: make([]byte, 8)}, 1); img != 0 {
		t.Fatalf("image index %d", img)
	}
	b.LockAnnounce(3, 1, LockLockable, 2)
	for i := range 65 {
		ok := b.LockEvent(3, uint64(100+i), int64(30+i), LockWait, 1)
		if ok != (i < 64) {
			t.Fatalf("lock thread %d accepted=%v", i, ok)
		}
	}
	mi := b.AddMessage(77, Message{Time: 40, Text: IdxRef(b.Intern("hi"))})
	tr := b.Finish()
	p := tr.Plots[0]
	if p.Min != -1 || p.Max != 3 || p.Sum != 2 || p.Color != 0xFFFFFF || !p.Fill || tr.Plots[1].Min != 0 || tr.Plots[1].Max != 0 {
		t.Fatalf("plot %+v / %+v", p, tr.Plots[1])
	}
	if fs := tr.FrameSets; len(fs) != 2 || len(fs[0].Frames) != 2 || fs[0].Frames[1].Image != 0 || fs[1].Continuous || fs[1].Frames[0].End != 15 {
		t.Fatalf("frame sets %+v", fs)
	}
	if l := tr.Locks[0]; len(l.Threads) != 64 || len(l.Events) != 64 || !l.Valid || l.TimeAnnounce != 2 {
		t.Fatalf("lock: %d threads %d events", len(l.Threads), len(l.Events))
	}
	m := tr.Messages[mi]
	th := tr.Threads[b.Thread(77)]
	if tr.LocalThread(m.Thread) != 77 || len(th.Messages) != 1 || th.Messages[0] != uint32(mi) || tr.RefString(m.Text) != "hi" {
		t.Fatalf("message %+v", m)
	}
	if tr.Metadata.LastTime != 93 { // the rejected 65th lock event does not count
		t.Fatalf("last time %d", tr.Metadata.LastTime)
	}
	if s, ok := tr.PtrString(0); !ok || s != "Frame" || tr.RefString(PtrRef(0x999)) != "???" || tr.RefString(StringRef{}) != "" {
		t.Fatal("string resolution")
	}
}

func TestSrcLocTable(t *testing.T) {
	b := NewBuilder()
	s1 := b.AddStaticSrcLoc(0x10, SourceLocation{Line: 1})
	d1 := b.AddDynSrcLoc(SourceLocation{Line: 2})
	tr := b.Trace()
	tr.SrcLocIndex = append(tr.SrcLocIndex, 0x99) // indexed but never defined
	st := NewSrcLocTable(tr)
	for _, id := range []SrcLocID{0, s1, d1, 2, -2, EmptySrcLoc, 100} {
		a, aok := tr.SrcLoc(id)
		g, gok := st.Get(id)
		if a != g || aok != gok {
			t.Errorf("srcloc %d: table %v/%v, trace %v/%v", id, g, gok, a, aok)
		}
	}
	if sl, ok := st.Get(d1); !ok || sl.Line != 2 {
		t.Fatal("dynamic lookup")
	}
}
