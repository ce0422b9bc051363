package viewer

import (
	"errors"
	"math"
	"net/http"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

// spanBuf is the pooled scratch of the span endpoints.
type spanBuf struct {
	spans   []lod.Span
	buckets []lod.Bucket
}

func (s *Server) getSpanBuf() *spanBuf { return s.spanPool.Get().(*spanBuf) }

func (s *Server) putSpanBuf(b *spanBuf) {
	if cap(b.spans) <= 1<<16 && cap(b.buckets) <= 1<<16 {
		b.spans, b.buckets = b.spans[:0], b.buckets[:0]
		s.spanPool.Put(b)
	}
}

func lodError(err error) error {
	if errors.Is(err, lod.ErrBadQuery) {
		return badRequest("%s", trimLod(err))
	}
	return err
}

type frameBar struct {
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Frame     uint32 `json:"frame"` // index of the first frame of the bar in the set
	Count     uint32 `json:"count"` // frames the bar stands for
	Longest   uint32 `json:"longest"`
	LongestNs int64  `json:"longest_ns"` // duration of the longest frame: the bar's height
	Image     int32  `json:"image"`      // frame image of the first frame, -1 = none
}

func (s *Server) apiFrames(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "set", "t0", "t1", "width", "minpx"); err != nil {
		return err
	}
	p := params{r: r}
	set := int(p.int("set", 0, 0, int64(max(len(s.t.FrameSets)-1, 0))))
	q := s.window(&p, true)
	if p.err != nil {
		return p.err
	}
	if len(s.t.FrameSets) == 0 {
		return notFound("the trace has no frame sets")
	}
	b := s.getSpanBuf()
	defer s.putSpanBuf(b)
	var err error
	b.spans, err = s.ix.FrameBars(b.spans[:0], set, q)
	if err != nil {
		return lodError(err)
	}
	frames := s.t.FrameSets[set].Frames
	out := make([]frameBar, 0, len(b.spans))
	for _, sp := range b.spans {
		l := int(sp.Longest)
		out = append(out, frameBar{Start: sp.Start, End: sp.End, Frame: sp.First, Count: sp.Count, Longest: sp.Longest,
			LongestNs: lod.FrameEnd(s.t, set, l) - frames[l].Start, Image: frames[sp.First].Image})
	}
	return writeJSON(w, struct {
		Set    int        `json:"set"`
		Frames []frameBar `json:"frames"`
	}{set, out})
}

func (s *Server) apiPlot(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "id", "t0", "t1", "width"); err != nil {
		return err
	}
	p := params{r: r}
	if len(s.plots) == 0 {
		if p.need("id", 0, math.MaxInt32); p.err != nil {
			return p.err
		}
		return notFound("the trace has no plots")
	}
	id := int(p.need("id", 0, int64(len(s.plots)-1)))
	q := s.window(&p, false)
	if p.err != nil {
		return p.err
	}
	b := s.getSpanBuf()
	defer s.putSpanBuf(b)
	var err error
	b.buckets, err = s.plotIx[id].Buckets(b.buckets[:0], q)
	if err != nil {
		return lodError(err)
	}
	if b.buckets == nil {
		b.buckets = []lod.Bucket{}
	}
	return writeJSON(w, struct {
		ID      int          `json:"id"`
		Buckets []lod.Bucket `json:"buckets"`
	}{id, b.buckets})
}

// Lock states of one thread, as the lock lane draws them.
const (
	lockWait            = 1 // waiting to obtain
	lockHold            = 2 // holding it, nobody waiting
	lockContended       = 3 // holding it while another thread waits
	lockShared          = 4 // holding it shared, nobody waiting
	lockSharedContended = 5 // holding it shared while another thread waits
)

var lockStateNames = [...]string{"", "wait", "hold", "contended", "shared", "shared_contended"}

// lockRow is one thread's states on one lock: time-sorted spans that do
// not overlap.
type lockRow struct {
	start, end []int64
	state      []uint8
}

// lockRows derives every lock's per-thread states from its events once:
// a thread waits from Wait to Obtain, holds from Obtain to Release, and
// its hold is contended while any other thread of the lock waits.
func (s *Server) lockRows() [][]lockRow {
	s.lockOnce.Do(func() {
		s.lockState = make([][]lockRow, len(s.t.Locks))
		for i := range s.t.Locks {
			s.lockState[i] = buildLockRows(&s.t.Locks[i], s.t.Metadata.LastTime)
		}
	})
	return s.lockState
}

func buildLockRows(l *model.Lock, last int64) []lockRow {
	n := len(l.Threads)
	for _, e := range l.Events {
		n = max(n, int(e.Thread)+1)
	}
	rows := make([]lockRow, n)
	waiting := make([]bool, n)
	holding := make([]uint8, n) // 0 none, 1 exclusive, 2+ shared holds
	cur := make([]uint8, n)     // state shown now
	since := make([]int64, n)
	waiters := 0
	stateOf := func(k int) uint8 {
		others := waiters
		if waiting[k] {
			others--
		}
		switch {
		case holding[k] == 1:
			if others > 0 {
				return lockContended
			}
			return lockHold
		case holding[k] > 1:
			if others > 0 {
				return lockSharedContended
			}
			return lockShared
		case waiting[k]:
			return lockWait
		}
		return 0
	}
	flush := func(t int64) {
		for k := range rows {
			st := stateOf(k)
			if st == cur[k] {
				continue
			}
			if cur[k] != 0 && t > since[k] {
				r := &rows[k]
				r.start, r.end, r.state = append(r.start, since[k]), append(r.end, t), append(r.state, cur[k])
			}
			cur[k], since[k] = st, t
		}
	}
	for _, e := range l.Events {
		k := int(e.Thread)
		switch e.Type {
		case model.LockWait, model.LockWaitShared:
			if !waiting[k] {
				waiting[k] = true
				waiters++
			}
		case model.LockObtain:
			if waiting[k] {
				waiting[k] = false
				waiters--
			}
			holding[k] = 1
		case model.LockObtainShared:
			if waiting[k] {
				waiting[k] = false
				waiters--
			}
			if holding[k] == 0 {
				holding[k] = 1
			}
			holding[k]++ // shared holds count from 2
		case model.LockRelease:
			holding[k] = 0
		case model.LockReleaseShared:
			if holding[k] > 2 {
				holding[k]--
			} else {
				holding[k] = 0
			}
		}
		flush(e.Time)
	}
	end := last
	if l.TimeTerminate > 0 {
		end = max(l.TimeTerminate, 0)
	}
	for k := range rows {
		if cur[k] != 0 && end > since[k] {
			r := &rows[k]
			r.start, r.end, r.state = append(r.start, since[k]), append(r.end, end), append(r.state, cur[k])
		}
	}
	return rows
}

type lockSpan struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	State string `json:"state"` // of the span, or for a merged group of its longest span
	Count uint32 `json:"count"`
}

type lockThreadRow struct {
	Thread     int        `json:"thread"`      // index into the trace's threads (-1: a thread without zones)
	LockThread int        `json:"lock_thread"` // position in the lock's own thread list
	Spans      []lockSpan `json:"spans"`
}

type lockLane struct {
	Lock    int             `json:"lock"`
	Threads []lockThreadRow `json:"threads"`
}

// spanWindow reads the window of a span row's request (locks, message
// ticks) and its merge width, lod's default when none is given.
func (s *Server) spanWindow(r *http.Request) (lod.Query, float64, error) {
	if err := checkParams(r, "t0", "t1", "width", "minpx"); err != nil {
		return lod.Query{}, 0, err
	}
	p := params{r: r}
	q := s.window(&p, true)
	if p.err != nil {
		return lod.Query{}, 0, p.err
	}
	minPx := q.MinPx
	if minPx == 0 {
		minPx = lod.DefaultMinPx
	}
	return q, minPx, nil
}

func (s *Server) apiLocks(w http.ResponseWriter, r *http.Request) error {
	q, minPx, err := s.spanWindow(r)
	if err != nil {
		return err
	}
	b := s.getSpanBuf()
	defer s.putSpanBuf(b)
	out := make([]lockLane, 0, len(s.t.Locks))
	for li, rows := range s.lockRows() {
		l := &s.t.Locks[li]
		lane := lockLane{Lock: li, Threads: []lockThreadRow{}}
		for k := range rows {
			row := &rows[k]
			b.spans = lod.MergeSpans(b.spans[:0], len(row.start), func(i int) int64 { return row.start[i] },
				func(i int) int64 { return row.end[i] }, q, minPx)
			if len(b.spans) == 0 {
				continue
			}
			tr := lockThreadRow{Thread: -1, LockThread: k, Spans: make([]lockSpan, 0, len(b.spans))}
			if k < len(l.Threads) {
				tr.Thread = s.threadOfID(l.Threads[k])
			}
			for _, sp := range b.spans {
				tr.Spans = append(tr.Spans, lockSpan{Start: sp.Start, End: sp.End, State: lockStateNames[row.state[sp.Longest]], Count: sp.Count})
			}
			lane.Threads = append(lane.Threads, tr)
		}
		out = append(out, lane)
	}
	return writeJSON(w, out)
}

type msgTick struct {
	Time  int64  `json:"time"`  // first message of the tick
	End   int64  `json:"end"`   // last message of the tick
	First uint32 `json:"first"` // index of the first message in messagelist's numbering (the trace's message order)
	Count uint32 `json:"count"`
}

type msgLane struct {
	Thread int       `json:"thread"`
	Ticks  []msgTick `json:"ticks"`
}

func (s *Server) apiMessages(w http.ResponseWriter, r *http.Request) error {
	q, minPx, err := s.spanWindow(r)
	if err != nil {
		return err
	}
	b := s.getSpanBuf()
	defer s.putSpanBuf(b)
	msgs := s.t.Messages
	out := []msgLane{}
	for ti := range s.t.Threads {
		idx := s.t.Threads[ti].Messages
		at := func(i int) int64 { return msgs[idx[i]].Time }
		b.spans = lod.MergeSpans(b.spans[:0], len(idx), at, at, q, minPx)
		if len(b.spans) == 0 {
			continue
		}
		lane := msgLane{Thread: ti, Ticks: make([]msgTick, 0, len(b.spans))}
		for _, sp := range b.spans {
			lane.Ticks = append(lane.Ticks, msgTick{Time: sp.Start, End: sp.End, First: idx[sp.First], Count: sp.Count})
		}
		out = append(out, lane)
	}
	return writeJSON(w, out)
}
