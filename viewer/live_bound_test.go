package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
)

// TestLiveWorkBounded replays a real client's stream into a capture
// watched by a live viewer and checks, from the viewer's own record of its
// builds (not from timing), that nothing on the way from a published
// trace to the page is a pass over the whole trace: only the first Server
// indexes from scratch, every later one (the final trace's included)
// extends the one before without rebuilding a thread or copying more of a
// lane's positions than a few times the zones added (Grow prepared the
// larger arrays beforehand), and no wait
// between two Servers exceeds liveMaxWait.
func TestLiveWorkBounded(t *testing.T) {
	name := "heavy1m"
	if testing.Short() {
		name = "demo"
	}
	raw, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// Every snapshot the capture publishes, then the viewer fed them one
	// by one, each served before the next is published: what a viewer
	// sees, without depending on how fast this machine replays.
	p := capture.NewPublisher(time.Millisecond)
	p.Latest() // a reader from the start
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	capDone := make(chan error, 1)
	go func() {
		_, err := capture.Replay(ctx, fixtures.Paced(raw, 8<<10, time.Millisecond), capture.WithPublisher(p), capture.WithLocalSources(false))
		capDone <- err
	}()
	var snaps []*capture.Snapshot
	for {
		ch := p.Changed()
		s := p.Latest()
		if s != nil && (len(snaps) == 0 || snaps[len(snaps)-1].Gen != s.Gen) {
			snaps = append(snaps, s)
			if s.Final {
				break
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("the capture did not end")
		}
	}
	if err := <-capDone; err != nil && !errors.Is(err, capture.ErrUnanswered) {
		t.Fatal(err)
	}
	var cur atomic.Pointer[capture.Snapshot]
	l, err := NewLive(func() LiveState {
		s := cur.Load()
		return LiveState{Trace: s.Trace, Gen: s.Gen, Final: s.Final, Zones: s.Zones, Published: s.Published}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.syncGrow = true // Grow's work is checked here, not raced against
	for _, s := range snaps {
		cur.Store(s)
		for l.Server(); l.cur.Load().state.Gen != s.Gen; l.Server() {
			time.Sleep(time.Millisecond) // the wait after the previous build
		}
	}
	log := l.BuildLog()
	if len(log) != len(snaps) || len(log) < 5 {
		t.Fatalf("%d builds of %d snapshots: nothing incremental was checked", len(log), len(snaps))
	}
	spared := 0
	for i, r := range log {
		if r.Wait > liveMaxWait {
			t.Errorf("build %d (gen %d) waited for %v, more than %v", i, r.Gen, r.Wait, liveMaxWait)
		}
		if i == 0 {
			if !r.Full {
				t.Errorf("the first build extended something")
			}
			continue
		}
		// A move that Grow did not prepare for copies less than 4 times
		// the zones added (it happens only when a step adds more than the
		// quarter of a lane that Grow leaves as a margin).
		if r.Full || r.Index.Built > 0 || r.Index.MovedEntries > 4*int64(r.Added) {
			t.Errorf("build %d (gen %d, %v, %d zones, %d new): did a pass over a whole lane: full %v, %+v", i, r.Gen, r.Cost, r.Zones, r.Added, r.Full, r.Index)
		}
		spared += r.Index.Spared
	}
	if spared == 0 {
		t.Errorf("no extension used an array Grow prepared: the check saw no growth")
	}
	if !l.cur.Load().state.Final {
		t.Error("the final trace was not served")
	}
	t.Logf("%d builds, %d threads into Grow's arrays", len(log), spared)
}

// memTrace is synthTrace(2000, 2) with a pool of n allocations (every
// third freed), as a capture that allocates would publish it.
func memTrace(n int) *model.Trace {
	tr := synthTrace(2000, 2)
	ev := make([]model.MemEvent, n)
	for i := range ev {
		ev[i] = model.MemEvent{Ptr: uint64(0x1000 + 16*i), Size: uint64(16 + i%64), TimeAlloc: int64(i), TimeFree: -1}
		if i%3 == 0 {
			ev[i].TimeFree = int64(i + 5)
		}
	}
	tr.MemPools = []model.MemPool{{Events: ev}}
	return tr
}

// TestLiveMemoryReady: a live trace's memory data is built beside the
// requests, so once the first trace's is ready no memory request waits
// for an index to be built: each is answered by the newest trace whose
// data is ready (its own count of allocations, checked against the trace
// that answered), and the newest trace answers once its own is built.
func TestLiveMemoryReady(t *testing.T) {
	var src fakeLive
	sizes := map[uint64]int{}
	set := func(n int) {
		src.set(memTrace(n), false)
		sizes[src.get().Gen] = n
	}
	set(25_000)
	l, err := NewLive(src.get, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(l.Handler())
	defer ts.Close()
	waitServed(t, ts)
	for deadline := time.Now().Add(20 * time.Second); l.memServer.Load() == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first trace's memory data was never built")
		}
	}
	answer := func() (gen uint64, allocs int) {
		t.Helper()
		resp, err := ts.Client().Get(ts.URL + "/api/v1/memory")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var pools []struct{ Allocations int }
		if err := json.NewDecoder(resp.Body).Decode(&pools); err != nil || resp.StatusCode != 200 || len(pools) != 1 {
			t.Fatalf("memory: %d, %v, %+v", resp.StatusCode, err, pools)
		}
		gen, _ = strconv.ParseUint(resp.Header.Get("X-Gotracy-Gen"), 10, 64)
		return gen, pools[0].Allocations
	}
	for i := range 6 {
		set(50_000 * (i + 2))
		li := waitServed(t, ts)
		gen, n := answer()
		if gen > li.Gen || n != sizes[gen] {
			t.Fatalf("step %d: memory answered by trace %d with %d allocations; it has %d (newest %d)", i, gen, n, sizes[gen], li.Gen)
		}
	}
	if w := l.memWaited.Load(); w != 0 {
		t.Errorf("%d memory requests waited for an index to be built", w)
	}
	// The newest trace's own data comes.
	newest := src.get().Gen
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if gen, n := answer(); gen == newest && n == sizes[newest] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("memory requests never reached the newest trace")
		}
	}
	t.Logf("%d background memory builds", l.memBuilds.Load())
}
