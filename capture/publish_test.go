package capture

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// readSnapshots reads every snapshot p publishes until the final one, as a
// live viewer would: it walks each snapshot's zones, computes its
// statistics and writes it as a .tracy (the viewer's Save), so the race
// detector sees any write of the worker to memory a reader holds. It
// returns the zone counts seen, in order, and the final snapshot.
func readSnapshots(t *testing.T, p *Publisher) (counts []int, final *Snapshot) {
	t.Helper()
	var gen uint64
	for {
		ch := p.Changed()
		s := p.Latest()
		if s != nil && s.Gen != gen {
			if s.Gen < gen {
				t.Errorf("snapshot generation went back from %d to %d", gen, s.Gen)
			}
			gen = s.Gen
			n := checkSnapshot(t, s.Trace)
			if len(counts) > 0 && n < counts[len(counts)-1] {
				t.Errorf("snapshot %d has %d zones, fewer than the %d before", s.Gen, n, counts[len(counts)-1])
			}
			counts = append(counts, n)
			analysis.ComputeZoneStats(s.Trace, analysis.StatsOptions{})
			analysis.Summarize(s.Trace)
			if !s.Final || len(counts)%4 == 0 {
				var b bytes.Buffer
				if err := tracefile.Write(&b, s.Trace); err != nil {
					t.Errorf("snapshot %d cannot be saved: %v", s.Gen, err)
				} else if back, err := tracefile.Read(bytes.NewReader(b.Bytes()), int64(b.Len())); err != nil {
					t.Errorf("snapshot %d saved, does not load: %v", s.Gen, err)
				} else if back.ZoneCount() != n {
					t.Errorf("snapshot %d saved %d zones, holds %d", s.Gen, back.ZoneCount(), n)
				}
			}
			if s.Final {
				return counts, s
			}
		}
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("no snapshot for 10 s")
		}
	}
}

// checkSnapshot checks the zone tree of every thread (subtree ends inside
// the list, ends after starts unless open) and returns the zone count.
func checkSnapshot(t *testing.T, tr *model.Trace) int {
	n := 0
	for ti := range tr.Threads {
		zl := &tr.Threads[ti].Zones
		l := zl.Len()
		for i, z := range zl.All() {
			if nx := int(z.Next()); nx <= i || nx > l {
				t.Fatalf("thread %d zone %d: subtree end %d outside (%d, %d]", ti, i, nx, i, l)
			}
			if e := z.End(); e != -1 && e < z.Start() {
				t.Fatalf("thread %d zone %d ends at %d before its start %d", ti, i, e, z.Start())
			}
		}
		n += l
	}
	return n
}

// TestPublishReplay replays real recordings with a reader taking every
// snapshot: under -race this is the proof that publishing needs no lock.
func TestPublishReplay(t *testing.T) {
	for _, name := range []string{"demo", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			if name == "heavy1m" && testing.Short() {
				t.Skip("-short")
			}
			raw, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
			if err != nil {
				t.Fatal(err)
			}
			p := NewPublisher(time.Millisecond)
			p.Latest() // a reader is watching from the start
			var wg sync.WaitGroup
			var counts []int
			var final *Snapshot
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts, final = readSnapshots(t, p)
			}()
			res, err := Replay(context.Background(), bytes.NewReader(raw), WithPublisher(p))
			if err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if final == nil {
				t.Fatal("no final snapshot")
			}
			if final.Trace != res.Trace || final.Stop != res.Stop {
				t.Error("the final snapshot is not the capture's result")
			}
			if got, want := counts[len(counts)-1], res.Trace.ZoneCount(); got != want {
				t.Errorf("final snapshot has %d zones, the capture %d", got, want)
			}
			t.Logf("%d snapshots, zone counts %d .. %d", len(counts), counts[0], counts[len(counts)-1])
			if len(counts) < 3 {
				t.Errorf("only %d snapshots of a replay of %d bytes", len(counts), len(raw))
			}
		})
	}
}

// TestPublishOpenZones publishes while zones are open (a long root zone
// and a nested one spanning a chunk boundary), then ends them: snapshots
// show them open with their subtree so far, and never see the later ends.
func TestPublishOpenZones(t *testing.T) {
	tr := model.New()
	w := newWorker(tr, newQueryQueue(0, true))
	w.timerMul = 1
	td := w.newThread(7, false, 0)
	w.threadCtx, w.ctxData = 7, td
	w.newZone(10, 0) // the root, open all along
	for i := range model.ZoneChunkLen + 10 {
		w.newZone(int64(20+2*i), 0)
		w.zoneEnd(int64(21 + 2*i))
	}
	w.newZone(int64(1e7), 0) // open, in the second chunk
	s := w.snapshot()
	zl := &s.Threads[0].Zones
	n := zl.Len()
	if n != model.ZoneChunkLen+12 {
		t.Fatalf("snapshot has %d zones, want %d", n, model.ZoneChunkLen+12)
	}
	if z := zl.At(0); z.End() != -1 || int(z.Next()) != n {
		t.Errorf("open root: end %d next %d, want -1 and %d", z.End(), z.Next(), n)
	}
	if z := zl.At(n - 1); z.End() != -1 || int(z.Next()) != n {
		t.Errorf("open leaf: end %d next %d", z.End(), z.Next())
	}
	if z := zl.At(5); z.End() != int64(20+2*4+1) {
		t.Errorf("closed zone 5 ends at %d", z.End())
	}
	w.zoneEnd(int64(2e7))
	w.zoneEnd(int64(3e7))
	if zl.At(0).End() != -1 || zl.At(n-1).End() != -1 {
		t.Error("ends written after the snapshot show in it")
	}
	if got := checkSnapshot(t, s); got != n {
		t.Errorf("checkSnapshot counted %d", got)
	}
}

// TestPublishWaitBounded: however much a snapshot costs, the next one is
// due within MaxPublishWait (a snapshot of a trace with millions of
// memory events costs tens of ms; a loaded machine once made a 0.2 ms
// snapshot look 200 ms long and held the next back 4 s), and the wait
// follows the snapshot's own CPU cost, not the wall time around it.
func TestPublishWaitBounded(t *testing.T) {
	tr := model.New()
	w := newWorker(tr, newQueryQueue(0, true))
	w.timerMul = 1
	// A trace whose snapshot costs something: a pool of 2M allocations,
	// which a snapshot copies whole.
	tr.MemPools = []model.MemPool{{Events: make([]model.MemEvent, 2_000_000)}}
	p := NewPublisher(0)
	p.Latest()
	start := time.Now()
	p.publish(w, start)
	if wall := p.cur.Load().Cost; p.cost > wall {
		t.Errorf("throttling cost %v is more than the snapshot's wall time %v", p.cost, wall)
	}
	if p.wait() < p.interval || p.wait() > max(p.interval, 20*p.cost) {
		t.Errorf("wait %v after a snapshot of cost %v", p.wait(), p.cost)
	}
	for _, c := range []time.Duration{0, time.Millisecond, 30 * time.Millisecond, 10 * time.Second} {
		p.cost = c
		if got := p.wait(); got > MaxPublishWait || got < p.interval {
			t.Errorf("cost %v: wait %v, want %v..%v", c, got, p.interval, MaxPublishWait)
		}
	}
	// due says so: with something new, the next snapshot is due once
	// MaxPublishWait has passed, even after a snapshot that cost seconds.
	p.cost = 10 * time.Second
	w.events++
	if !p.due(w, p.lastPub.Add(MaxPublishWait)) {
		t.Error("a snapshot is not due MaxPublishWait after one that cost 10 s")
	}
	if p.due(w, p.lastPub.Add(p.interval/2)) {
		t.Error("a snapshot is due before the interval")
	}
}
