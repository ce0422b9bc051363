package viewer

import (
	"net/http"
	"sync"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/sched"
)

// schedIndexes caches the scheduling index per trace: keyed by the trace,
// so a new live snapshot gets its own without the Server knowing, and
// bounded, so snapshots do not pile up.
var schedIndexes struct {
	sync.Mutex
	m     map[*model.Trace]*sched.Index
	order []*model.Trace
}

func (s *Server) schedIndex() *sched.Index {
	t := s.t
	schedIndexes.Lock()
	defer schedIndexes.Unlock()
	if ix, ok := schedIndexes.m[t]; ok {
		return ix
	}
	if schedIndexes.m == nil {
		schedIndexes.m = map[*model.Trace]*sched.Index{}
	}
	if len(schedIndexes.order) >= 4 {
		delete(schedIndexes.m, schedIndexes.order[0])
		schedIndexes.order = schedIndexes.order[1:]
	}
	ix := sched.Build(t)
	schedIndexes.m[t] = ix
	schedIndexes.order = append(schedIndexes.order, t)
	return ix
}

// apiSchedLanes: GET /api/v1/schedlanes, the threads and CPUs that have
// context switches or samples, and the names of the wait codes.
func (s *Server) apiSchedLanes(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, s.schedIndex().Lanes())
}

// apiSched: GET /api/v1/sched?t0=&t1=&width=[&minpx=], each thread's
// running spans and sample groups and each CPU's spans in the window,
// merged below minpx pixels.
func (s *Server) apiSched(w http.ResponseWriter, r *http.Request) error {
	q, minPx, err := s.spanWindow(r)
	if err != nil {
		return err
	}
	return writeJSON(w, s.schedIndex().Window(s.t, q, minPx))
}
