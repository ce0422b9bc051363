package viewer

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
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

// apiSched: GET /api/v1/sched?t0=&t1=&width=[&minpx=][&threads=ID,...][&cpus=0|1],
// each thread's running spans and sample groups and each CPU's spans in
// the window, merged below minpx pixels; threads and cpus select (the page
// asks for the lanes on screen: a trace of hundreds of goroutines would
// otherwise answer megabytes per window).
func (s *Server) apiSched(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "t0", "t1", "width", "minpx", "threads", "cpus"); err != nil {
		return err
	}
	p := params{r: r}
	q := s.window(&p, true)
	if p.err != nil {
		return p.err
	}
	minPx := q.MinPx
	if minPx == 0 {
		minPx = lod.DefaultMinPx
	}
	var f sched.Filter
	if v, ok := p.raw("threads"); ok {
		f.Threads = map[uint64]bool{}
		for _, x := range strings.Split(v, ",") {
			if x == "" {
				continue
			}
			id, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				return badRequest("parameter threads must be thread ids separated by commas, got %q", x)
			}
			f.Threads[id] = true
		}
	}
	if v, ok := p.raw("cpus"); ok {
		switch v {
		case "0":
			f.NoCPUs = true
		case "1":
		default:
			return badRequest("parameter cpus must be 0 or 1, got %q", v)
		}
	}
	return writeJSON(w, s.schedIndex().Window(s.t, q, minPx, f))
}
