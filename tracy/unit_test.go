//go:build !notracy

package tracy

import (
	"sync"
	"testing"
	"time"
)

// TestGoidMatchesRuntime: the fast goroutine id read agrees with the id the
// runtime prints, in many goroutines.
func TestGoidMatchesRuntime(t *testing.T) {
	if hasAsm && goidOff == 0 {
		t.Fatal("goroutine id offset not discovered")
	}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a, b := goid(), slowGoid(); a != b || a == 0 {
				t.Errorf("goid %d, runtime says %d", a, b)
			}
		}()
	}
	wg.Wait()
}

// TestClockCalibration: ticks times the multiplier is wall time.
func TestClockCalibration(t *testing.T) {
	c := newCalibration()
	mul := c.timerMul()
	t0, n0 := now(), nanotime()
	time.Sleep(20 * time.Millisecond)
	t1, n1 := now(), nanotime()
	got := float64(t1-t0) * mul
	want := float64(n1 - n0)
	if got < want*0.99 || got > want*1.01 {
		t.Errorf("ticks*mul = %.0f ns, clock says %.0f ns (mul %g, tsc %v)", got, want, mul, useTSC)
	}
	if resolution() == 0 {
		t.Error("zero resolution")
	}
}

// TestRecordSizes: every record the producers write is parsed back at the
// size it was written.
func TestRecordSizes(t *testing.T) {
	s := &gstate{cur: &chunk{buf: make([]byte, 1<<16)}}
	s.head = s.cur
	var sizes []int
	mark := func() { sizes = append(sizes, s.w) }
	mark()
	s.markEpoch(1)
	mark()
	s.writeText(rZoneText, "hello")
	mark()
	s.writeMessage("text", 0, 0xFF, true, []uintptr{1, 2, 3})
	mark()
	s.writeMessage("", 7, 0, false, nil)
	mark()
	s.writePlot(rPlotFloat, 3, 0, 4)
	mark()
	s.writePlot(rPlotInt, 3, 0, 8)
	mark()
	b := s.cur.buf[:s.w]
	for i := 0; i+1 < len(sizes); i++ {
		if n := recSize(b[sizes[i]:]); n != sizes[i+1]-sizes[i] {
			t.Errorf("record %d (kind %d): parsed %d bytes, wrote %d", i, b[sizes[i]], n, sizes[i+1]-sizes[i])
		}
	}
}

// TestDynamicNameBudget: past the budget of distinct names, zones share one
// location and carry their name, and no new location or memory is used.
func TestDynamicNameBudget(t *testing.T) {
	saved := nDyn.Load()
	nDyn.Store(maxDynamicNames)
	defer nDyn.Store(saved)
	l, overflow := locForName("never-seen-before-name", 0)
	if !overflow || l != overflowLoc {
		t.Fatal("name past the budget got its own location")
	}
	if _, ok := dynLocs.Load("never-seen-before-name"); ok {
		t.Error("name past the budget was stored")
	}
}
