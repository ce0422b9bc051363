//go:build !notracy

package tracy

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestGoroutineChurnMemoryFlat: states of goroutines that ended are retired,
// so a program that starts goroutines forever does not grow; a goroutine
// that comes back after retirement keeps its thread and nesting.
func TestGoroutineChurnMemoryFlat(t *testing.T) {
	oldI, oldG := retireInterval, retireGrace
	retireInterval, retireGrace = 10*time.Millisecond, int64(50*time.Millisecond)
	defer func() { retireInterval, retireGrace = oldI, oldG }()

	ts := startWithServer(t)
	base := ReadStats().Goroutines
	loc := NewLoc("short")
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 500; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				Begin(loc).End()
			}()
		}
		wg.Wait()
	}
	// a long-lived goroutine that sleeps through its retirement
	back := make(chan struct{})
	done := make(chan struct{})
	go func() {
		SetThreadName("sleeper")
		Begin(loc).End()
		<-back
		z := Begin(loc)
		Begin(locInner).End()
		z.End()
		close(done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for ReadStats().Goroutines > base+1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := ReadStats().Goroutines; n > base+1 {
		t.Fatalf("%d goroutine states alive after churn (base %d)", n, base)
	}
	time.Sleep(300 * time.Millisecond) // retired and dropped
	close(back)
	<-done
	c := stopAndCollect(t, ts)
	total := 0
	for tid, th := range c.threads {
		total += len(th.roots)
		if c.threadNames[tid] == "sleeper" {
			if len(th.roots) != 2 || len(th.roots[1].children) != 1 {
				t.Errorf("sleeper zones %d", len(th.roots))
			}
		}
	}
	if total != 1502 {
		t.Errorf("zones %d, want 1502", total)
	}
	_ = fmt.Sprint()
}
