package viewer

import (
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fixtures"
)

// chunkReader hands out raw piece bytes at a time, pausing before each,
// so a capture publishes many snapshots of one stream.
type chunkReader struct {
	raw   []byte
	piece int
	pause time.Duration
}

func (r *chunkReader) Read(b []byte) (int, error) {
	if len(r.raw) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.pause)
	n := copy(b[:min(len(b), r.piece)], r.raw)
	r.raw = r.raw[n:]
	return n, nil
}

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
		_, err := capture.Replay(ctx, &chunkReader{raw: raw, piece: 8 << 10, pause: time.Millisecond}, capture.WithPublisher(p), capture.WithLocalSources(false))
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
