package viewer

import (
	"math"
	"net/http"

	"github.com/gotracy/gotracy/analysis"
)

type flameKey struct {
	samples bool
	t0, t1  int64
	thread  int
}

// flameCacheMax bounds how many graphs the server keeps: the whole trace's
// and the last few ranges, so zooming into a node of a range's graph does
// not aggregate the range again.
const flameCacheMax = 8

func (s *Server) flame(k flameKey) *analysis.Flame {
	d := s.deepCaches()
	d.flameMu.Lock()
	f := d.flameWhole[k]
	d.flameMu.Unlock()
	if f != nil {
		return f
	}
	if k.samples {
		f = analysis.SampleFlame(s.t, k.t0, k.t1, k.thread)
	} else {
		f = analysis.ZoneFlameFrom(s.t, k.t0, k.t1, k.thread, func(th, i int) []int {
			chain := s.ancestors(th, uint32(i))
			out := make([]int, len(chain))
			for j, c := range chain {
				out[j] = int(c)
			}
			return out
		})
	}
	d.flameMu.Lock()
	if d.flameWhole == nil || len(d.flameWhole) >= flameCacheMax {
		d.flameWhole = map[flameKey]*analysis.Flame{}
	}
	d.flameWhole[k] = f
	d.flameMu.Unlock()
	return f
}

type flameNodeJSON struct {
	ID int32 `json:"id"`
	analysis.FlameNode
}

type flamePathJSON struct {
	ID   int32  `json:"id"`
	Name string `json:"name"`
}

// apiFlame answers the flame graph of zones (or of call-stack samples) over
// the whole trace or [t0, t1], for all threads or one, from node root down
// (ids are stable for the same kind, range and thread).
func (s *Server) apiFlame(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "kind", "t0", "t1", "thread", "root", "minfrac"); err != nil {
		return err
	}
	p := params{r: r}
	kind := p.oneOf("kind", "zones", "samples")
	k := flameKey{samples: kind == "samples", t0: math.MinInt64, t1: math.MaxInt64}
	_, h0 := p.raw("t0")
	_, h1 := p.raw("t1")
	if h0 || h1 {
		k.t0 = p.int("t0", analysis.FirstTime(s.t), -maxTime, maxTime)
		k.t1 = p.int("t1", s.t.Metadata.LastTime, -maxTime, maxTime)
		if p.err == nil && k.t1 <= k.t0 {
			p.err = badRequest("the range must end after it starts, got t0=%d t1=%d", k.t0, k.t1)
		}
	}
	k.thread = int(p.int("thread", -1, -1, int64(len(s.t.Threads)-1)))
	root := p.int("root", -1, -1, math.MaxInt32)
	minFrac := p.float("minfrac", 0.001, 0, 1)
	if p.err != nil {
		return p.err
	}
	if k.samples && !s.hasSamples() {
		return notFound("the trace holds no call-stack samples")
	}
	f := s.flame(k)
	if root >= int64(len(f.Nodes)) {
		return badRequest("parameter root must be -1..%d (a node of this graph), got %d", len(f.Nodes)-1, root)
	}
	ids, path, total := f.View(int32(root), minFrac)
	out := struct {
		Kind     string          `json:"kind"`
		T0       *int64          `json:"t0,omitempty"`
		T1       *int64          `json:"t1,omitempty"`
		Thread   int             `json:"thread"`
		Root     int64           `json:"root"`
		Total    int64           `json:"total"`
		AllTotal int64           `json:"all_total"` // of the whole graph
		Count    uint64          `json:"count"`
		AllNodes int             `json:"all_nodes"`
		Period   int64           `json:"sampling_period,omitempty"`
		Path     []flamePathJSON `json:"path"`
		Nodes    []flameNodeJSON `json:"nodes"`
	}{Kind: kind, Thread: k.thread, Root: root, Total: total, AllTotal: f.Total, Count: f.Count, AllNodes: len(f.Nodes),
		Path: []flamePathJSON{}, Nodes: make([]flameNodeJSON, 0, len(ids))}
	if h0 || h1 {
		out.T0, out.T1 = &k.t0, &k.t1
	}
	if k.samples {
		out.Period = s.t.Metadata.SamplingPeriod
	}
	for _, id := range path {
		out.Path = append(out.Path, flamePathJSON{id, f.Nodes[id].Name})
	}
	for _, id := range ids {
		out.Nodes = append(out.Nodes, flameNodeJSON{id, f.Nodes[id]})
	}
	return writeJSON(w, out)
}

func (s *Server) hasSamples() bool {
	for i := range s.t.Threads {
		if len(s.t.Threads[i].Samples) > 0 {
			return true
		}
	}
	return false
}
