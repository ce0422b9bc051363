package gotracetest

import (
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/goreason"
	"github.com/gotracy/gotracy/model"
)

// zoneCounts counts zones per name, walking every thread's zone list.
func zoneCounts(tr *model.Trace) map[string]int {
	n := map[string]int{}
	for i := range tr.Threads {
		zl := &tr.Threads[i].Zones
		for j := 0; j < zl.Len(); j++ {
			n[tr.ZoneName(zl.At(j))]++
		}
	}
	return n
}

// CheckWorkload checks what the known workload must produce.
func Check(t testing.TB, tr *model.Trace, wantSamples bool) {
	t.Helper()
	n := zoneCounts(tr)
	if n[RegionA] != NA || n[RegionB] != NB {
		t.Errorf("regions: %d %s and %d %s, want %d and %d", n[RegionA], RegionA, n[RegionB], RegionB, NA, NB)
	}
	if n["GC cycle"] < ForcedGCs {
		t.Errorf("%d GC cycle zones, want at least %d (zones: %v)", n["GC cycle"], ForcedGCs, n)
	}
	if n[TaskName] != 1 {
		t.Errorf("%d task zones, want 1", n[TaskName])
	}
	// Every worker goroutine ran: it has context switches, and at least
	// one of them waited on the channel.
	workers, chanWaits := 0, 0
	for _, cs := range tr.CtxSwitches {
		if !strings.HasPrefix(threadName(tr, cs.Thread), WorkerFn) {
			continue
		}
		ran := false
		for _, e := range cs.Events {
			if e.Start >= 0 && e.End > e.Start {
				ran = true
			}
			if goreason.Name(uint8(e.Reason)) == "chan receive" {
				chanWaits++
			}
		}
		if ran {
			workers++
		}
	}
	if workers != Workers {
		t.Errorf("%d worker goroutines with context switches, want %d", workers, Workers)
	}
	if chanWaits == 0 {
		t.Errorf("no worker context switch has the reason \"chan receive\"")
	}
	msgs := 0
	for _, m := range tr.Messages {
		if strings.Contains(tr.RefString(m.Text), "log message") {
			msgs++
		}
	}
	if msgs != Logs {
		t.Errorf("%d log messages, want %d", msgs, Logs)
	}
	if !wantSamples {
		return
	}
	samples, inSpin := 0, 0
	for i := range tr.Threads {
		for _, s := range tr.Threads[i].Samples {
			samples++
			for _, f := range tr.CallStack(s.CallStack) {
				fd, ok := tr.Frames[f]
				if !ok {
					continue
				}
				for _, in := range fd.Frames {
					if strings.HasSuffix(tr.Str(in.Name), SpinFunc) {
						inSpin++
					}
				}
			}
		}
	}
	if samples == 0 || inSpin == 0 {
		t.Errorf("%d CPU samples, %d frames resolving to %s: want both > 0", samples, inSpin, SpinFunc)
	}
}

// threadName is a thread's name, or the name the client gave for it as
// a context-switch thread.
func threadName(tr *model.Trace, tid uint64) string {
	if n := tr.ThreadName(tid); n != "" {
		return n
	}
	if n, ok := tr.ExtThreadNames[tid]; ok {
		return tr.Str(n[1])
	}
	return ""
}
