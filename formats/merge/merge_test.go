package merge

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gotracy/gotracy/formats/internal/tracyimport"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func small(program string, pid uint64, base int64) *model.Trace {
	b := model.NewBuilder()
	t := b.Trace()
	t.Metadata.PID = pid
	t.Metadata.CaptureProgram = program
	a := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("a")), File: model.IdxRef(b.Intern("a.c")), Line: 1})
	c := b.AddStaticSrcLoc(2, model.SourceLocation{Name: model.IdxRef(b.Intern("c")), File: model.IdxRef(b.Intern("a.c")), Line: 2})
	th := b.Thread(5)
	b.SetThreadName(5, "main")
	// Parent and child begin together: the merge must keep them nested.
	z := b.BeginZone(th, base, a)
	b.SetZoneText(th, z, "t")
	b.BeginZone(th, base, c)
	b.EndZone(th, base+10)
	b.EndZone(th, base+100)
	b.AddMessage(6, model.Message{Time: base + 50, Text: model.IdxRef(b.Intern("hi"))})
	b.SetPtrString(9, "load")
	b.PlotPoint(9, base+1, 2)
	return b.Finish()
}

type nameStat struct {
	count int
	total int64
	depth int
}

func byName(t *model.Trace) map[string]nameStat {
	m := map[string]nameStat{}
	for i := range t.Threads {
		zs := &t.Threads[i].Zones
		model.Walk(zs, func(j, depth int) bool {
			z := zs.At(j)
			n := t.ZoneName(z)
			s := m[n]
			s.count++
			s.total += z.Duration()
			s.depth += depth
			m[n] = s
			return true
		})
	}
	return m
}

func TestMergeBuilt(t *testing.T) {
	m := New()
	if err := m.Add(small("prog", 0, 1000), 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(small("prog", 0, 1000), 500); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(small("other", 42, 0), 0); err != nil {
		t.Fatal(err)
	}
	out, err := m.Finish()
	if err != nil {
		t.Fatal(err)
	}
	got := byName(out)
	// Three copies of a (depth 0) and c (depth 1: still inside a).
	if got["a"] != (nameStat{3, 300, 0}) || got["c"] != (nameStat{3, 30, 3}) {
		t.Errorf("zones by name %v", got)
	}
	names := map[string]bool{}
	for _, th := range out.Threads {
		names[out.ThreadName(th.ID)] = true
	}
	// Two inputs both "prog" with a "main" thread: the pid tells them
	// apart (0xFFFE0000|index stands in for a missing pid).
	for _, n := range []string{
		"(PID 4294836224 TID 5) prog[4294836224]/main",
		"(PID 4294836225 TID 5) prog[4294836225]/main",
		"(PID 42 TID 5) other/main",
		"(PID 42 TID 6) other/6",
	} {
		if !names[n] {
			t.Errorf("no thread %q in %v", n, names)
		}
	}
	if len(out.Messages) != 3 || len(out.Plots) != 3 {
		t.Errorf("%d messages, %d plots; want 3, 3", len(out.Messages), len(out.Plots))
	}
	// The offset input's zones start 500 ns later.
	var starts []int64
	for _, th := range out.Threads {
		if th.Zones.Len() > 0 {
			starts = append(starts, th.Zones.At(0).Start())
		}
	}
	if len(starts) != 3 || starts[0] != 0 || starts[1] != 1000 || starts[2] != 1500 {
		t.Errorf("first zone starts %v, want [0 1000 1500] (times kept, offset applied)", starts)
	}
	if out.Metadata.CaptureProgram != "prog (merged)" {
		t.Errorf("program %q", out.Metadata.CaptureProgram)
	}
	var buf bytes.Buffer
	if err := tracefile.Write(&buf, out); err != nil {
		t.Fatal(err)
	}
	if err := New().Add(small("x", 1, 0), -10); err == nil {
		t.Error("an offset making times negative was accepted")
	}
	far := New()
	if err := far.Add(small("x", 1, 0), 1<<47); err != nil {
		t.Fatal(err)
	}
	if _, err := far.Finish(); !errors.Is(err, tracyimport.ErrTimeRange) {
		t.Errorf("zone times past 2^47 ns: error %v, want ErrTimeRange", err)
	}
}

func TestMergeFixtures(t *testing.T) {
	var ins []*model.Trace
	for _, n := range []string{"demo", "demo-ondemand"} {
		tr, err := tracefile.ReadFile(fixtures.Path(t, n+".tracy"))
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, tr)
	}
	m := New()
	for i, tr := range ins {
		if err := m.Add(tr, int64(i)*1_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	out, err := m.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]nameStat{}
	for _, tr := range ins {
		for k, v := range byName(tr) {
			w := want[k]
			w.count += v.count
			w.total += v.total
			w.depth += v.depth
			want[k] = w
		}
	}
	got := byName(out)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: merged %+v, inputs %+v", k, got[k], w)
		}
	}
	if out.ZoneCount() != ins[0].ZoneCount()+ins[1].ZoneCount() {
		t.Errorf("%d zones, want %d", out.ZoneCount(), ins[0].ZoneCount()+ins[1].ZoneCount())
	}
	if len(out.Threads) != len(ins[0].Threads)+len(ins[1].Threads) {
		t.Errorf("%d threads, want %d", len(out.Threads), len(ins[0].Threads)+len(ins[1].Threads))
	}
}
