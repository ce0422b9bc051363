package viewer

import (
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// deepState holds the lazily built indexes of the memory, flame-graph,
// locks and source views. Everything in it is derived from the trace
// alone, so a new snapshot gets a fresh deepState (dropDeepCaches).
type deepState struct {
	memOnce  sync.Once
	mem      *analysis.MemIndex
	memReady atomic.Bool // mem and its sort orders are built

	flameMu    sync.Mutex
	flameWhole map[flameKey]*analysis.Flame

	lockOnce  sync.Once
	lockStats []lockStat

	srcOnce sync.Once
	src     *sourceIndex
}

// deepCaches is the current deepState, made on first use.
func (s *Server) deepCaches() *deepState {
	if d := s.deep.Load(); d != nil {
		return d
	}
	s.deep.CompareAndSwap(nil, new(deepState))
	return s.deep.Load()
}

// dropDeepCaches forgets every deep index, for a server whose trace grew
// (a live capture's new snapshot): the next request rebuilds what it needs
// while requests already running finish on the old state.
func (s *Server) dropDeepCaches() { s.deep.Store(nil) }

// hasMemEvents reports whether t has any memory event.
func hasMemEvents(t *model.Trace) bool {
	for i := range t.MemPools {
		if len(t.MemPools[i].Events) > 0 {
			return true
		}
	}
	return false
}

// prepareMemory builds the memory index and its sort orders now, so that
// no memory request of this Server waits for them (a live viewer does it
// beside the requests, answering memory requests from an older trace
// meanwhile).
func (s *Server) prepareMemory() {
	s.memIndex().PrepareOrders()
	s.deepCaches().memReady.Store(true)
}

// memoryReady reports whether prepareMemory has finished.
func (s *Server) memoryReady() bool { return s.deepCaches().memReady.Load() }

func (s *Server) memIndex() *analysis.MemIndex {
	d := s.deepCaches()
	d.memOnce.Do(func() {
		d.mem = analysis.NewMemIndex(s.t)
		// The sort orders are a second each at 10M allocations: build them
		// while the page shows the first answers, not on the first click.
		go d.mem.PrepareOrders()
	})
	return d.mem
}

type memPoolJSON struct {
	Pool        int                `json:"pool"`
	Name        string             `json:"name"`
	Allocations int                `json:"allocations"`
	Frees       int                `json:"frees"`
	Leaks       int                `json:"leaks"` // never freed
	LeakBytes   uint64             `json:"leak_bytes"`
	TotalBytes  uint64             `json:"total_bytes"` // sum of all allocation sizes
	Peak        float64            `json:"peak"`        // highest usage (bytes), from the pool's memory plot
	Plot        int                `json:"plot"`        // id of the pool's memory plot for /api/v1/plot, -1 = none
	First       int64              `json:"first"`       // first allocation
	Last        int64              `json:"last"`        // last allocation or free
	Low         uint64             `json:"low"`
	High        uint64             `json:"high"`
	At          *analysis.MemUsage `json:"at,omitempty"` // the pool at ?t=
}

// apiMemory lists the memory pools, and each pool's state at t when given.
func (s *Server) apiMemory(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "t"); err != nil {
		return err
	}
	p := params{r: r}
	_, hasT := p.raw("t")
	at := p.int("t", 0, -maxTime, maxTime)
	if p.err != nil {
		return p.err
	}
	mi := s.memIndex()
	out := []memPoolJSON{}
	for _, x := range mi.Pools {
		pool := &s.t.MemPools[x.Pool]
		leaks, lb := x.Leaks()
		j := memPoolJSON{Pool: x.Pool, Name: x.Name, Allocations: x.Len(), Frees: x.Len() - leaks, Leaks: leaks, LeakBytes: lb,
			TotalBytes: x.TotalBytes(), Plot: -1, Low: pool.Low, High: pool.High}
		j.First, j.Last = x.Span()
		if j.Low > j.High {
			j.Low = 0
		}
		for i := range s.plots {
			if s.plots[i].Type == model.PlotMemory && s.plots[i].Name == pool.Name {
				j.Plot, j.Peak = i, s.plots[i].Max
				break
			}
		}
		if hasT {
			u := x.UsageAt(at)
			j.At = &u
		}
		out = append(out, j)
	}
	return writeJSON(w, out)
}

// memPool reads the pool parameter (default 0).
func (s *Server) memPool(p *params) *analysis.MemPoolIndex {
	mi := s.memIndex()
	if len(mi.Pools) == 0 {
		if p.int("pool", 0, 0, math.MaxInt32); p.err == nil {
			p.err = notFound("the trace has no memory pools")
		}
		return nil
	}
	i := int(p.int("pool", 0, 0, int64(len(mi.Pools)-1)))
	if p.err != nil {
		return nil
	}
	return mi.Pools[i]
}

var memFilterNames = [...]string{"all", "active", "leaks", "range"}

// memFilter reads filter (all, active, leaks, range) and the times they
// need: t for active, t0 and t1 for range.
func memFilter(p *params) analysis.MemSelect {
	f, err := analysis.ParseMemFilter(p.oneOf("filter", memFilterNames[:]...))
	if p.err == nil && err != nil {
		p.err = badRequest("%v", err)
	}
	sel := analysis.MemSelect{Filter: f}
	_, hasT := p.raw("t")
	t := p.int("t", 0, -maxTime, maxTime)
	_, h0 := p.raw("t0")
	_, h1 := p.raw("t1")
	t0 := p.int("t0", 0, -maxTime, maxTime)
	t1 := p.int("t1", 0, -maxTime, maxTime)
	if p.err != nil {
		return sel
	}
	switch f {
	case analysis.MemActive:
		if !hasT {
			p.err = badRequest("filter=active needs t, the time (ns) to list the live allocations at")
		}
		sel.Time = t
	case analysis.MemRange:
		if !h0 || !h1 || t1 < t0 {
			p.err = badRequest("filter=range needs t0 <= t1, the range (ns) the allocations were made in, got t0=%d t1=%d", t0, t1)
		}
		sel.Time, sel.End = t0, t1
	}
	return sel
}

type memRow struct {
	Index       uint32   `json:"index"` // position in the pool's allocation order
	Ptr         uint64   `json:"ptr"`
	Size        uint64   `json:"size"`
	Alloc       int64    `json:"alloc"`
	Free        int64    `json:"free"`     // -1 = never freed
	Lifetime    int64    `json:"lifetime"` // -1 = never freed
	Thread      uint64   `json:"thread"`   // id of the allocating thread
	ThreadName  string   `json:"thread_name"`
	FreeThread  uint64   `json:"free_thread"`
	CallStack   uint32   `json:"callstack"` // allocation call stack for /api/v1/callstack, 0 = none
	FreeStack   uint32   `json:"free_callstack"`
	TopFunction string   `json:"top_function,omitempty"` // innermost resolved function of the allocation's stack
	Zone        *memZone `json:"zone,omitempty"`         // the innermost zone of the allocating thread at the allocation
}

// memZone names a zone for /api/v1/zone?thread=&index=.
type memZone struct {
	Thread int    `json:"thread"`
	Index  uint32 `json:"index"`
	Name   string `json:"name"`
}

// zoneAt is the innermost zone of thread th covering t. Starts never
// decrease in pre-order, so the last zone starting at or before t is the
// innermost candidate; if it ended before t, the answer is its innermost
// ancestor still running at t.
func (s *Server) zoneAt(th int, t int64) *memZone {
	if th < 0 {
		return nil
	}
	zl := &s.t.Threads[th].Zones
	lo, hi := 0, zl.Len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if zl.At(m).Start() <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	j := lo - 1
	if j < 0 {
		return nil
	}
	covers := func(i int) bool {
		e, _ := s.zoneEnd(zl.At(i))
		return e >= t
	}
	if !covers(j) {
		chain := s.ancestors(th, uint32(j))
		j = -1
		for k := len(chain) - 1; k >= 0; k-- {
			if covers(int(chain[k])) {
				j = int(chain[k])
				break
			}
		}
		if j < 0 {
			return nil
		}
	}
	return &memZone{Thread: th, Index: uint32(j), Name: s.t.ZoneName(zl.At(j))}
}

const memPageMax = 1000

func (s *Server) apiMemList(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "pool", "filter", "t", "t0", "t1", "sort", "desc", "offset", "limit"); err != nil {
		return err
	}
	p := params{r: r}
	x := s.memPool(&p)
	sel := memFilter(&p)
	sortName := p.oneOf("sort", "time", "size", "lifetime", "address", "free")
	desc := p.bool("desc")
	offset := int(p.int("offset", 0, 0, math.MaxInt32))
	limit := int(p.int("limit", 100, 1, memPageMax))
	if p.err != nil {
		return p.err
	}
	key, _ := analysis.ParseMemSort(sortName)
	page := x.List(analysis.MemListQuery{MemSelect: sel, Sort: key, Desc: desc, Offset: offset, Limit: limit})
	rows := make([]memRow, 0, len(page.Events))
	for _, i := range page.Events {
		e := &x.Events[i]
		row := memRow{Index: i, Ptr: e.Ptr, Size: e.Size, Alloc: e.TimeAlloc, Free: e.TimeFree, Lifetime: -1,
			Thread: s.t.LocalThread(e.ThreadAlloc), CallStack: e.CSAlloc, FreeStack: e.CSFree}
		row.ThreadName = s.t.ThreadName(row.Thread)
		if e.TimeFree >= 0 {
			row.Lifetime = e.TimeFree - e.TimeAlloc
			row.FreeThread = s.t.LocalThread(e.ThreadFree)
		}
		row.TopFunction = s.topFunction(e.CSAlloc)
		row.Zone = s.zoneAt(s.threadOfID(row.Thread), e.TimeAlloc)
		rows = append(rows, row)
	}
	return writeJSON(w, struct {
		Pool   int      `json:"pool"`
		Filter string   `json:"filter"`
		Sort   string   `json:"sort"`
		Desc   bool     `json:"desc"`
		Offset int      `json:"offset"`
		Total  int      `json:"total"`
		Rows   []memRow `json:"rows"`
	}{x.Pool, memFilterNames[sel.Filter], sortName, desc, offset, page.Total, rows})
}

// topFunction is the innermost function of a call stack that is not
// Tracy's own (the allocator hooks show up innermost, as in Tracy's list).
func (s *Server) topFunction(cs uint32) string {
	for _, id := range s.t.CallStack(cs) {
		fd, ok := s.t.Frames[id]
		if !ok || len(fd.Frames) == 0 {
			continue
		}
		name := s.t.Str(fd.Frames[len(fd.Frames)-1].Name)
		if name != "" && !isTracyFrame(s.t.Str(fd.Frames[len(fd.Frames)-1].File)) {
			return name
		}
	}
	return ""
}

func isTracyFrame(file string) bool {
	for i := 0; i+len("/tracy/") <= len(file); i++ {
		if file[i:i+len("/tracy/")] == "/tracy/" {
			return true
		}
	}
	return false
}

const memTreeMax = 5000

func (s *Server) apiMemTree(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "pool", "filter", "t", "t0", "t1", "dir", "max"); err != nil {
		return err
	}
	p := params{r: r}
	x := s.memPool(&p)
	sel := memFilter(&p)
	dir := p.oneOf("dir", "topdown", "bottomup")
	maxNodes := int(p.int("max", 2000, 1, memTreeMax))
	if p.err != nil {
		return p.err
	}
	tr := s.memIndex().Tree(x, sel, dir == "bottomup")
	nodes := tr.Pruned(maxNodes)
	return writeJSON(w, struct {
		Pool     int                    `json:"pool"`
		Filter   string                 `json:"filter"`
		Dir      string                 `json:"dir"`
		Count    uint64                 `json:"count"`
		Bytes    uint64                 `json:"bytes"`
		AllNodes int                    `json:"all_nodes"`
		Nodes    []analysis.MemTreeNode `json:"nodes"`
	}{x.Pool, memFilterNames[sel.Filter], dir, tr.Count, tr.Bytes, len(tr.Nodes), nodes})
}

// PrepareMemory builds the memory view's index and its sort orders now, on
// the caller's time. `gotracy view` calls it before it prints the address,
// so the page (which cannot ask before) never waits for them: on a trace
// of 10M allocations they cost seconds, a first memory question about 1 ms.
// A live server does not: every snapshot would pay it.
func (s *Server) PrepareMemory() {
	if hasMemEvents(s.t) {
		s.memIndex().PrepareOrders()
	}
}

// MemoryEvents is the number of allocations in the served trace.
func (s *Server) MemoryEvents() int {
	n := 0
	for i := range s.t.MemPools {
		n += len(s.t.MemPools[i].Events)
	}
	return n
}

// isMemoryPath says whether an API path asks the memory index.
func isMemoryPath(p string) bool {
	switch strings.TrimPrefix(p, "/api/v1/") {
	case "memory", "memlist", "memtree":
		return true
	}
	return false
}
