package sched_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/gotracy/gotracy/formats/gotrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
	"github.com/gotracy/gotracy/viewer/sched"
)

func load(t *testing.T) *model.Trace {
	t.Helper()
	b, err := os.ReadFile("../../formats/gotrace/testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gotrace.Import(bytes.NewReader(b), gotrace.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestWindowCounts: at a merge width that merges nothing, a full window
// holds every running span of every thread and every CPU entry, counted
// independently from the model.
func TestWindowCounts(t *testing.T) {
	tr := load(t)
	ix := sched.Build(tr)
	if !ix.Go {
		t.Error("an imported Go trace is not recognised as Go")
	}
	wantRuns := map[uint64]int{}
	for _, cs := range tr.CtxSwitches {
		for _, e := range cs.Events {
			if e.Start >= 0 && e.End >= e.Start {
				wantRuns[cs.Thread]++
			}
		}
	}
	wantCPU := 0
	for c := range tr.CPUData {
		wantCPU += len(tr.CPUData[c])
	}
	q := lod.Query{T0: -1, T1: tr.Metadata.LastTime + 1, Width: 1 << 20}
	w := ix.Window(tr, q, 1e-9, sched.Filter{})
	got := map[uint64]int{}
	for _, th := range w.Threads {
		for _, r := range th.Runs {
			got[th.Thread] += r.Count
		}
	}
	for tid, n := range wantRuns {
		if got[tid] != n {
			t.Errorf("thread %d: %d runs in the window, the model has %d", tid, got[tid], n)
		}
	}
	gotCPU := 0
	for _, c := range w.CPUs {
		for _, s := range c.Spans {
			gotCPU += s.Count
		}
	}
	if gotCPU != wantCPU {
		t.Errorf("%d CPU spans in the window, the model has %d", gotCPU, wantCPU)
	}
	// At 100 pixels everything merges into at most a span per pixel
	// gap, and the counts still add up.
	w = ix.Window(tr, lod.Query{T0: -1, T1: tr.Metadata.LastTime + 1, Width: 100}, 1, sched.Filter{})
	total, items := 0, 0
	for _, th := range w.Threads {
		items += len(th.Runs)
		for _, r := range th.Runs {
			total += r.Count
		}
	}
	want := 0
	for _, n := range wantRuns {
		want += n
	}
	if total != want || items > 100*len(w.Threads) {
		t.Errorf("merged: %d runs in %d items, want %d runs in at most %d items", total, items, want, 100*len(w.Threads))
	}
	l := ix.Lanes()
	if len(l.Reasons) == 0 || len(l.CPUs) == 0 {
		t.Errorf("lanes: %d reason names, %d CPUs", len(l.Reasons), len(l.CPUs))
	}
}
