package capture

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/model"
)

// Publisher hands a running capture's trace to readers on other goroutines
// (the live viewer) without locking the worker's hot loop.
//
// The worker owns its trace and never waits for a reader. Between two
// transport frames (and on a timer while the client is quiet) it checks,
// with one atomic load and a clock read, whether a reader has asked within
// the last ReaderIdle and the last snapshot is older than the interval; if
// so it builds an immutable snapshot (see snapshot) and stores it with one
// atomic pointer swap. Readers load that pointer and may use the trace for
// as long as they like: nothing in it is ever written again. No reader
// means no snapshot and no cost.
//
// A snapshot shares the zones with the worker (closed zones never change
// and new ones go past the snapshot's end; see model.ZoneList.Share) and
// copies the rest: the chunks that hold an open zone (its end is still to
// come) and everything else of the trace (model.Trace.Clone), which is
// small beside the zones. The interval stretches to twenty times
// the cost of the last snapshot (its thread's CPU time), at most
// MaxPublishWait, so publishing takes at most about 5 % of the worker's
// time however large the trace grows, unless a snapshot costs more than
// 20 ms, and a reader sees new data within a bounded time.
type Publisher struct {
	interval time.Duration
	cur      atomic.Pointer[Snapshot]
	lastRead atomic.Int64 // time.Now().UnixNano() of the last Latest
	changed  atomic.Pointer[chan struct{}]
	spent    atomic.Int64 // ns the worker spent publishing, in all

	// Worker side only.
	gen        uint64
	lastPub    time.Time
	lastEvents uint64
	cost       time.Duration
}

// Snapshot is one published state of a capture. Trace is immutable: the
// worker never writes to it again. Zone indices stay valid from one
// snapshot to the next (zones only ever append), so a reader can keep a
// reference to a zone across snapshots.
type Snapshot struct {
	Trace *model.Trace
	// Gen counts the snapshots of this capture, from 1.
	Gen uint64
	// Events and Zones are what the worker had applied when it published.
	Events, Zones uint64
	// Published is when the worker made it, Cost how long it took.
	Published time.Time
	Cost      time.Duration
	// Final says the capture has ended: Trace is the finished trace (the
	// one Result holds) and no other snapshot follows.
	Final bool
	// Stop is why the capture ended (Final only).
	Stop StopReason
}

// DefaultPublishInterval is how often a capture with a reader publishes:
// the newest data is at most this old (plus the reader's own work) when a
// reader sees it.
const DefaultPublishInterval = 100 * time.Millisecond

// ReaderIdle is how long after the last Latest the worker keeps publishing.
const ReaderIdle = 10 * time.Second

// NewPublisher returns a publisher that publishes at most every interval
// (DefaultPublishInterval when interval <= 0). Pass it to a capture with
// WithPublisher.
func NewPublisher(interval time.Duration) *Publisher {
	if interval <= 0 {
		interval = DefaultPublishInterval
	}
	p := &Publisher{interval: interval}
	ch := make(chan struct{})
	p.changed.Store(&ch)
	return p
}

// WithPublisher makes the capture publish snapshots of its trace to p
// while it runs, and the finished trace when it ends.
func WithPublisher(p *Publisher) Option { return func(c *config) { c.publisher = p } }

// Latest returns the newest snapshot (nil before the handshake) and tells
// the worker a reader is watching, so it goes on publishing.
func (p *Publisher) Latest() *Snapshot {
	p.lastRead.Store(time.Now().UnixNano())
	return p.cur.Load()
}

// Spent is the worker's time spent publishing so far, in all, and the
// number of snapshots: what the readers cost the capture.
func (p *Publisher) Spent() (time.Duration, uint64) {
	var n uint64
	if s := p.cur.Load(); s != nil {
		n = s.Gen
	}
	return time.Duration(p.spent.Load()), n
}

// Changed returns a channel closed when a snapshot newer than the current
// one is published.
func (p *Publisher) Changed() <-chan struct{} { return *p.changed.Load() }

func (p *Publisher) store(s *Snapshot) {
	p.cur.Store(s)
	ch := make(chan struct{})
	old := p.changed.Swap(&ch)
	close(*old)
}

// due reports whether the worker should publish now: a reader asked
// recently, something changed and the interval has passed.
func (p *Publisher) due(w *worker, now time.Time) bool {
	if w.events == p.lastEvents && p.gen > 0 {
		return false
	}
	if now.UnixNano()-p.lastRead.Load() > int64(ReaderIdle) && p.gen > 0 {
		return false
	}
	return now.Sub(p.lastPub) >= p.wait()
}

// wait is the least time between two snapshots: the interval, stretched
// to twenty times the cost of the last snapshot so that publishing takes
// at most about 5 % of the worker, but never past MaxPublishWait, so that
// what the client sent reaches a reader in bounded time whatever a
// snapshot cost. The cost is the worker thread's CPU time where the
// system has that clock: a snapshot whose thread the machine set aside for
// a while (a loaded machine, a GC pause) did not cost that while, and
// stretching the next wait by twenty times it is what made the worst
// latencies of a loaded machine seconds long.
func (p *Publisher) wait() time.Duration {
	return max(p.interval, min(20*p.cost, MaxPublishWait))
}

// MaxPublishWait bounds the wait between two snapshots (see
// Publisher.wait): past it the data is at most this old plus the
// snapshot's own cost when published, even when a snapshot costs more
// than a twentieth of it (a trace of millions of memory events, which a
// snapshot copies whole) and publishing then takes more than 5 % of the
// worker.
const MaxPublishWait = 400 * time.Millisecond

// publish stores a snapshot of w's trace. It runs on the worker goroutine.
func (p *Publisher) publish(w *worker, now time.Time) {
	cpu0, cpuOK := threadCPU()
	t := w.snapshot()
	cpu1, _ := threadCPU()
	p.gen++
	p.lastPub, p.lastEvents = now, w.events
	end := time.Now()
	wall := end.Sub(now)
	p.cost = wall
	if c := cpu1 - cpu0; cpuOK && c >= 0 && c < wall {
		p.cost = c // the same thread throughout (a goroutine may move)
	}
	p.spent.Add(int64(wall))
	p.store(&Snapshot{Trace: t, Gen: p.gen, Events: w.events, Zones: w.zones, Published: end, Cost: wall})
}

// publishFinal stores the finished trace.
func (p *Publisher) publishFinal(w *worker, stop StopReason) {
	p.gen++
	p.store(&Snapshot{Trace: w.t, Gen: p.gen, Events: w.events, Zones: w.zones, Published: time.Now(), Final: true, Stop: stop})
}

// snapshot returns a copy of the trace so far that the worker will never
// write to, completed as finish completes the saved trace: open zones end
// their subtree at the thread's last zone (their end stays -1, "not ended
// yet", as in a file saved mid-zone) and messages are in time order.
// Frame images of the client's image list and symbols still being
// resolved join at the end, as in a saved trace.
func (w *worker) snapshot() *model.Trace {
	s := w.t.Clone()
	var private []int
	for _, td := range w.threads {
		if td.zones.Len() == 0 {
			continue
		}
		private = private[:0]
		for _, zi := range td.stack {
			if c := td.zones.ChunkOf(int(zi)); !slices.Contains(private, c) {
				private = append(private, c)
			}
		}
		zl := td.zones.Share(private...)
		n := zl.Len()
		for _, zi := range td.stack {
			zl.SetNextOf(zl.At(int(zi)), n)
		}
		s.Threads[td.idx].Zones = zl
	}
	for _, g := range w.gpu {
		if g == nil {
			continue
		}
		for _, tl := range g.timelines {
			zs := s.GpuContexts[g.idx].Timelines[tl.idx].Zones
			for _, zi := range tl.stack {
				zs[zi].Next = uint32(len(zs))
			}
		}
	}
	if w.msgUnsorted {
		sortMessagesOf(s, w)
	}
	s.Metadata.LastTime = w.lastTime
	if w.flight != nil {
		// Frame numbers stay the client's, as in a final save.
		s.Metadata.FrameOffset += w.flight.dropped
	}
	return s
}
