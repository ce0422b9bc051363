//go:build !notracy

package tracy

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/race"
)

// TestDynamicNamesMemoryFlat: 10 million zones with 100 distinct run-time
// names use 100 source locations and keep client memory flat (fewer zones
// under -race).
func TestDynamicNamesMemoryFlat(t *testing.T) {
	total := 10_000_000
	if race.Enabled || testing.Short() || goidOff == 0 { // -race, or ids read the slow way
		total = 500_000
	}
	if err := Start(WithPort(0), WithBroadcast(false), WithShutdownTimeout(60*time.Second)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port()).counting()
	ts.maxWait = 5 * time.Minute
	ts.serve()
	if err := WaitConnected(context.Background()); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("dynamic-%03d", i)
	}
	regMu.Lock()
	locsBefore := len(locs)
	regMu.Unlock()

	heap := func() uint64 {
		// The live heap after full collections, not HeapInuse: on a busy
		// machine the GC runs late and HeapInuse holds whatever garbage
		// it has not reclaimed yet (9.8 -> 32.7 MB was seen on a loaded
		// 2-core machine). Queue memory, in the queues or pooled for
		// reuse, rises and falls with the sender's timing and is bounded
		// by the memory limit; what must not grow is the rest.
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		queues := uint64(chunkBytes.Load()) + uint64(len(freeChunks))*chunkSize
		return m.HeapAlloc - min(queues, m.HeapAlloc)
	}
	var samples []uint64
	var maxQueue int64
	step := total / 10
	for i := 0; i < total; i++ {
		BeginNamed(names[i%100]).End()
		if (i+1)%step == 0 {
			if q := chunkBytes.Load(); q > maxQueue {
				maxQueue = q
			}
			samples = append(samples, heap())
		}
	}
	regMu.Lock()
	newLocs := len(locs) - locsBefore
	regMu.Unlock()
	c := stopAndCollect(t, ts)
	_ = c
	if newLocs > 100 {
		t.Errorf("%d new source locations for 100 names", newLocs)
	}
	sum := 0
	for _, n := range ts.locCounts {
		sum += n
	}
	if sum != total {
		t.Errorf("server counted %d zones, want %d", sum, total)
	}
	// Flat: the heap after the last tenth is no more than 16 MiB above the
	// heap after the second tenth (queues are bounded, names interned).
	first, last := samples[1], samples[len(samples)-1]
	t.Logf("zones %d; heap in use outside the event queues after each tenth (MiB): %v; max queue memory %.1f MiB",
		total, mib(samples), float64(maxQueue)/(1<<20))
	if last > first+16<<20 {
		t.Errorf("client memory grew from %d to %d bytes", first, last)
	}
}

func mib(s []uint64) []string {
	var out []string
	for _, v := range s {
		out = append(out, fmt.Sprintf("%.1f", float64(v)/(1<<20)))
	}
	return out
}
