//go:build notracy

package tracy

import (
	"context"
	"testing"
)

// TestNotracyNoops: with the notracy tag everything compiles and does
// nothing.
func TestNotracyNoops(t *testing.T) {
	if err := Start(); err != nil {
		t.Fatal(err)
	}
	loc := NewLoc("x")
	z := Begin(loc)
	z.Text("t")
	z.End()
	if z.Active() || Connected() || Port() != 0 {
		t.Error("notracy build reports activity")
	}
	if err := WaitConnected(context.Background()); err != ErrDisabled {
		t.Errorf("WaitConnected = %v", err)
	}
	var mu Mutex
	mu.Lock()
	mu.Unlock()
	if a := testing.AllocsPerRun(100, func() { Begin(loc).End() }); a != 0 {
		t.Errorf("allocs %v", a)
	}
	Stop()
}

func BenchmarkZoneNotracy(b *testing.B) {
	loc := NewLoc("x")
	for i := 0; i < b.N; i++ {
		Begin(loc).End()
	}
}
