package lod

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gotracy/gotracy/model"
)

// Batch is what a decoder reports of one thread's zones while it reads
// them (tracefile.WithThreadZones): Stream indexes them as they come.
type Batch struct {
	Thread int            // index into Trace.Threads
	Chunks [][]model.Zone // holds the thread's first Len zones; the table is the Stream's to keep
	Len    int
	// Open lists, in increasing order, the zones of the Len whose end and
	// Next are still to come; every other one is final and never written
	// again. A zone open in an earlier batch and missing here has closed.
	Open     []uint32
	Want     int   // how many zones the thread is expected to hold (a hint)
	LastTime int64 // the trace's Metadata.LastTime
	Done     bool  // the thread's zones are complete (Open is empty)
}

// Stream builds the CPU threads' part of an Index while the trace is still
// being read, on a goroutine of its own: on two cores the decoder and the
// index walk overlap, so the index is ready soon after the load instead of
// a whole build after it. Feed it with Add (from the decoder's goroutine),
// then call Index with the loaded trace, or Abort when the load failed.
// What Index returns is exactly Build's index of the trace: a thread the
// stream did not see whole, or saw with other chunks than the trace holds,
// is built afresh.
type Stream struct {
	mu      sync.Mutex
	cond    sync.Cond
	pending map[int]*Batch // newest batch per thread, not taken yet
	stop    bool           // Index or Abort was called
	abort   bool
	done    chan struct{}
	poison  map[int]bool     // threads fed a batch that does not hold what it claims
	res     map[int]streamed // finished threads (worker's until done closes)
	bad     map[int]bool     // threads fed inconsistently (worker's)
	used    int              // threads whose streamed levels Index took (tests)
}

// streamed is a thread indexed by the stream, with what it was built from.
type streamed struct {
	lv     levels
	chunks [][]model.Zone
	n      int
	last   int64
}

// NewStream starts a stream's worker.
func NewStream() *Stream {
	s := &Stream{pending: map[int]*Batch{}, done: make(chan struct{}), poison: map[int]bool{}, res: map[int]streamed{}, bad: map[int]bool{}}
	s.cond.L = &s.mu
	go s.run()
	return s
}

// Add hands the stream a thread's zones so far. It never waits for the
// indexing: a batch the worker has not taken yet is replaced by a newer
// one of the same thread (batches are cumulative). Batches that do not
// hold what they claim are dropped and their thread built afresh by Index.
func (s *Stream) Add(b Batch) {
	ok := b.Thread >= 0 && b.Len >= 0
	have := 0
	for _, c := range b.Chunks {
		have += len(c)
	}
	ok = ok && have >= b.Len
	for i, z := range b.Open {
		ok = ok && int(z) < b.Len && (i == 0 || z > b.Open[i-1])
	}
	ok = ok && !(b.Done && len(b.Open) > 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop || s.poison[b.Thread] {
		return
	}
	if !ok {
		s.poison[b.Thread] = true
		delete(s.pending, b.Thread)
		return
	}
	s.pending[b.Thread] = &b
	s.cond.Signal()
}

// Abort stops the worker and drops what it built (the load failed).
func (s *Stream) Abort() {
	s.mu.Lock()
	s.stop, s.abort = true, true
	s.cond.Signal()
	s.mu.Unlock()
	<-s.done
}

// Index waits for the stream's work and returns the index of t, the trace
// the stream was fed from: the streamed threads as they were built, every
// other thread and the GPU timelines built now. After Index the stream
// takes no more batches.
func (s *Stream) Index(t *model.Trace) *Index {
	s.mu.Lock()
	s.stop = true
	s.cond.Signal()
	s.mu.Unlock()
	<-s.done
	var used atomic.Int64
	defer func() { s.used = int(used.Load()) }()
	return index(t, func(ix *Index, k int) (levels, how) {
		zl := &t.Threads[k].Zones
		if r, ok := s.res[k]; ok && !s.poison[k] && r.n == zl.Len() && r.last == ix.last && zl.Origin() == 0 && sameChunks(r.chunks, zl.Chunks()) {
			used.Add(1)
			return r.lv, how{kind: built}
		}
		return buildCPULevels(zl, ix.last), how{kind: built}
	})
}

// sameChunks reports whether two chunk tables hold the same zones, in the
// same memory.
func sameChunks(a, b [][]model.Zone) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || unsafe.SliceData(a[i]) != unsafe.SliceData(b[i]) {
			return false
		}
	}
	return true
}

// run is the worker: it takes the lowest thread with a new batch (a
// decoder reads threads in order, so the one it finished first), walks
// what is new, and finishes a thread whose zones are complete.
func (s *Stream) run() {
	defer close(s.done)
	builders := map[int]*cpuBuilder{}
	for {
		s.mu.Lock()
		for len(s.pending) == 0 && !s.stop {
			s.cond.Wait()
		}
		if s.abort || len(s.pending) == 0 {
			s.mu.Unlock()
			if s.abort {
				s.res = nil
			}
			return
		}
		th := -1
		for k := range s.pending {
			if th < 0 || k < th {
				th = k
			}
		}
		b := s.pending[th]
		delete(s.pending, th)
		s.mu.Unlock()

		if s.bad[th] {
			continue
		}
		if _, finished := s.res[th]; finished {
			s.bad[th] = true // a batch after the last one
			delete(s.res, th)
			continue
		}
		c := builders[th]
		if c != nil && (b.Len < c.n || b.LastTime != c.last) {
			s.bad[th] = true
			delete(builders, th)
			continue
		}
		if c == nil {
			c = newCPUBuilder(max(b.Want, b.Len), 0, b.LastTime)
			if !b.Done && b.Want >= b.Len {
				// A thread decoded in batches: lay out its positions
				// while the decoder goes on, not after.
				c.preallocate(b.Want)
			}
			builders[th] = c
		}
		c.walk(b.Chunks, b.Len, b.Open)
		if b.Done {
			lv := levels{}
			if c.n > 0 {
				lv = c.finish()
			}
			s.res[th] = streamed{lv: lv, chunks: b.Chunks, n: b.Len, last: b.LastTime}
			delete(builders, th)
		}
	}
}
