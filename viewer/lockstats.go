package viewer

import (
	"net/http"
	"slices"

	"github.com/gotracy/gotracy/model"
)

// lockThreadStat is one thread's use of a lock.
type lockThreadStat struct {
	Thread       int    `json:"thread"` // index into the trace's threads, -1 = a thread without zones
	ThreadID     uint64 `json:"thread_id"`
	Name         string `json:"name"`
	Acquisitions int    `json:"acquisitions"`
	HeldNs       int64  `json:"held_ns"`
	WaitNs       int64  `json:"wait_ns"`
	ContendedNs  int64  `json:"contended_ns"` // held while another thread waited
}

// lockWaitJSON is one wait: a thread from asking for the lock to getting it.
type lockWaitJSON struct {
	Thread     int    `json:"thread"`
	ThreadID   uint64 `json:"thread_id"`
	LockThread int    `json:"lock_thread"`
	Start      int64  `json:"start"`
	End        int64  `json:"end"`
	Duration   int64  `json:"duration"`
}

// lockStat sums a lock's states (the same states the lock lanes draw).
type lockStat struct {
	Lock         int              `json:"lock"`
	ID           uint32           `json:"id"`
	Name         string           `json:"name"`
	File         string           `json:"file"`
	Line         uint32           `json:"line"`
	Shared       bool             `json:"shared"`
	Acquisitions int              `json:"acquisitions"` // obtains, exclusive and shared
	HeldNs       int64            `json:"held_ns"`      // summed over threads (shared holds overlap)
	WaitNs       int64            `json:"wait_ns"`
	ContendedNs  int64            `json:"contended_ns"`
	Contended    float64          `json:"contended"` // contended_ns / held_ns, 0..1
	Waits        int              `json:"waits"`     // waits of any length
	MaxWaitNs    int64            `json:"max_wait_ns"`
	Threads      []lockThreadStat `json:"threads"`
	Worst        []lockWaitJSON   `json:"worst"` // the longest waits, longest first
}

const lockWorstMax = 20

func (s *Server) lockStatList() []lockStat {
	d := s.deepCaches()
	d.lockOnce.Do(func() {
		rows := s.lockRows()
		out := make([]lockStat, 0, len(s.t.Locks))
		for li := range s.t.Locks {
			out = append(out, s.buildLockStat(li, rows[li]))
		}
		d.lockStats = out
	})
	return d.lockStats
}

func (s *Server) buildLockStat(li int, rows []lockRow) lockStat {
	l := &s.t.Locks[li]
	st := lockStat{Lock: li, ID: l.ID, Shared: l.Type == model.LockSharedLockable, Threads: []lockThreadStat{}, Worst: []lockWaitJSON{}}
	st.Name = s.t.Str(l.CustomName)
	if sl, ok := s.t.SrcLoc(l.SrcLoc); ok {
		if st.Name == "" {
			st.Name = s.t.SrcLocName(sl)
		}
		st.File, st.Line = s.t.RefString(sl.File), sl.Line
	}
	ts := make([]lockThreadStat, len(rows))
	for k := range ts {
		ts[k].Thread = -1
		if k < len(l.Threads) {
			ts[k].ThreadID = l.Threads[k]
			ts[k].Thread = s.threadOfID(l.Threads[k])
			ts[k].Name = s.t.ThreadName(l.Threads[k])
		}
	}
	for _, e := range l.Events {
		if (e.Type == model.LockObtain || e.Type == model.LockObtainShared) && int(e.Thread) < len(ts) {
			ts[e.Thread].Acquisitions++
			st.Acquisitions++
		}
	}
	var worst []lockWaitJSON
	for k := range rows {
		row := &rows[k]
		for i := range row.start {
			d := row.end[i] - row.start[i]
			switch row.state[i] {
			case lockWait:
				ts[k].WaitNs += d
				st.Waits++
				worst = append(worst, lockWaitJSON{Thread: ts[k].Thread, ThreadID: ts[k].ThreadID, LockThread: k, Start: row.start[i], End: row.end[i], Duration: d})
			case lockHold, lockShared:
				ts[k].HeldNs += d
			case lockContended, lockSharedContended:
				ts[k].HeldNs += d
				ts[k].ContendedNs += d
			}
		}
	}
	slices.SortFunc(worst, func(a, b lockWaitJSON) int {
		if a.Duration != b.Duration {
			return cmp64(b.Duration, a.Duration)
		}
		return cmp64(a.Start, b.Start)
	})
	if len(worst) > 0 {
		st.MaxWaitNs = worst[0].Duration
	}
	st.Worst = append(st.Worst, worst[:min(len(worst), lockWorstMax)]...)
	for _, t := range ts {
		st.HeldNs += t.HeldNs
		st.WaitNs += t.WaitNs
		st.ContendedNs += t.ContendedNs
		if t.Acquisitions > 0 || t.WaitNs > 0 || t.HeldNs > 0 {
			st.Threads = append(st.Threads, t)
		}
	}
	if st.HeldNs > 0 {
		st.Contended = float64(st.ContendedNs) / float64(st.HeldNs)
	}
	return st
}

// apiLockStats answers, per lock, its acquisitions, time held and waited,
// the contended share of the held time, the threads and the worst waits.
func (s *Server) apiLockStats(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, s.lockStatList())
}
