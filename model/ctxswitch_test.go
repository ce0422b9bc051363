package model

import "testing"

// TestCtxSwitchBuilder runs one thread through wake-up, run, block, a
// wake-up while running and a migration, and a stray switch out that only
// a lenient builder ignores.
func TestCtxSwitchBuilder(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		tr := &Trace{}
		b := NewCtxSwitchBuilder(tr, lenient)
		b.Wakeup(10, 7, 0)          // woken before it runs
		b.Switch(20, 0, 7, 0, 0, 0) // runs on CPU 0
		b.Wakeup(25, 7, 1)          // woken again while running: held
		b.Switch(30, 7, 0, 0, 3, 1) // blocks
		b.Switch(40, 0, 7, 1, 0, 0) // runs on CPU 1: a migration
		b.Switch(50, 7, 0, 1, 5, 2)
		b.Switch(60, 7, 0, 1, 9, 9) // a switch out of an ended span
		evs := tr.CtxSwitches[0].Events
		if len(evs) != 2 {
			t.Fatalf("lenient=%v: %d spans, want 2: %+v", lenient, len(evs), evs)
		}
		if e := evs[0]; e.Wakeup != 10 || e.Start != 20 || e.End != 30 || e.CPU != 0 || e.Reason != 3 || e.State != 1 {
			t.Errorf("lenient=%v: first span %+v", lenient, e)
		}
		wantEnd, wantReason := int64(60), int8(9) // Tracy's server rewrites the last span
		if lenient {
			wantEnd, wantReason = 50, 5
		}
		if e := evs[1]; e.Wakeup != 25 || e.WakeupCPU != 1 || e.Start != 40 || e.End != wantEnd || e.Reason != wantReason || e.CPU != 1 {
			t.Errorf("lenient=%v: second span %+v, want wake-up 25 on CPU 1, end %d reason %d", lenient, e, wantEnd, wantReason)
		}
		ct := b.CPUThread(7)
		if ct.Migrations != 1 {
			t.Errorf("lenient=%v: %d migrations, want 1", lenient, ct.Migrations)
		}
		if len(tr.CPUData[0]) != 1 || tr.CPUData[0][0].Start != 20 || tr.CPUData[0][0].End != 30 {
			t.Errorf("lenient=%v: CPU 0 timeline %+v", lenient, tr.CPUData[0])
		}
		if len(tr.ExtThreadIndex) != 1 || tr.ExtThreadIndex[0] != 7 {
			t.Errorf("lenient=%v: external threads %v", lenient, tr.ExtThreadIndex)
		}
	}
}
