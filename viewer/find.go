package viewer

import (
	"github.com/gotracy/gotracy/analysis"
	"math"
	"net/http"
	"slices"
)

type findInstance struct {
	Thread   uint32 `json:"thread"` // index into the trace's threads (lanes' "index")
	Index    uint32 `json:"index"`  // the zone's index in its thread: GET zone?thread=&index=
	Start    int64  `json:"start"`
	Duration int64  `json:"duration"` // ns; self time with self=1
}

type findAnswer struct {
	SrcLoc    int16          `json:"srcloc"`
	Name      string         `json:"name"`
	Total     int            `json:"total"` // instances (zones that ended and lasted > 0 ns, as statistics counts)
	Self      bool           `json:"self"`
	Min       int64          `json:"min"`
	Max       int64          `json:"max"`
	Log       bool           `json:"log"`
	Edges     []float64      `json:"edges"`  // bins+1 bin edges, ns; bin i holds edges[i] <= d < edges[i+1] (the last also d == max)
	Counts    []uint64       `json:"counts"` // instances per bin
	TotalNs   []int64        `json:"total_ns"`
	Sort      string         `json:"sort"`
	Offset    int            `json:"offset"`
	Instances []findInstance `json:"instances"`
}

func (s *Server) apiFind(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "srcloc", "bins", "log", "self", "sort", "offset", "limit"); err != nil {
		return err
	}
	p := params{r: r}
	id := int16(p.need("srcloc", math.MinInt16, math.MaxInt16))
	bins := int(p.int("bins", 100, 1, 10000))
	logBins := p.bool("log")
	self := p.bool("self")
	order := p.oneOf("sort", "time", "duration", "-duration")
	offset := int(p.int("offset", 0, 0, math.MaxInt32))
	limit := int(p.int("limit", 100, 0, 10000))
	if p.err != nil {
		return p.err
	}
	c := s.zoneStats()
	k, ok := c.byID[id]
	if !ok {
		return notFound("no source location %d in this trace (GET /api/v1/srclocs lists them)", id)
	}
	refs := s.refs(c, k)
	// Durations are read from the zones when a histogram or an order is
	// first asked for, not kept: for ten million instances they would be
	// 80 MB held for one view.
	var d []int64
	durs := func() []int64 {
		if d == nil {
			d = s.durations(refs, self, make([]int64, 0, len(refs)))
		}
		return d
	}
	h := s.findHistogram(c, histKey{k, self, bins, logBins}, durs)
	a := findAnswer{SrcLoc: id, Name: s.srcLoc(id).Name, Total: len(refs), Self: self, Log: logBins, Sort: order, Offset: offset,
		Min: h.min, Max: h.max, Edges: h.edges, Counts: h.counts, TotalNs: h.total, Instances: []findInstance{}}
	if offset < len(refs) && limit > 0 {
		idx := s.findOrder(c, k, refs, order, self, durs)
		end := min(len(refs), offset+limit)
		for j := offset; j < end; j++ {
			i := uint32(j)
			if idx != nil {
				i = idx[j]
			}
			ref := refs[i]
			zl := &s.t.Threads[ref.Thread].Zones
			z := zl.At(int(ref.Index))
			dur := z.End() - z.Start()
			if self {
				dur = selfTime(zl, int(ref.Index))
			}
			a.Instances = append(a.Instances, findInstance{Thread: ref.Thread, Index: ref.Index, Start: z.Start(), Duration: dur})
		}
	}
	return writeJSON(w, &a)
}

type histKey struct {
	loc  int
	self bool
	bins int
	log  bool
}

type histogram struct {
	min, max int64
	edges    []float64
	counts   []uint64
	total    []int64
}

// findHistogram bins d, keeping the last histograms asked for.
func (s *Server) findHistogram(c *statsCache, key histKey, durs func() []int64) *histogram {
	c.sortMu.Lock()
	h, ok := c.hists[key]
	c.sortMu.Unlock()
	if ok {
		return h
	}
	d := durs()
	bins := key.bins
	h = &histogram{counts: make([]uint64, bins), total: make([]int64, bins), edges: make([]float64, bins+1)}
	if len(d) > 0 {
		h.min, h.max = slices.Min(d), slices.Max(d)
	}
	// Self times may be 0 (a zone filled by its children): a log scale
	// starts at 1 ns then.
	lo, hi := float64(h.min), float64(h.max)
	if key.log {
		lo = max(lo, 1)
		hi = max(hi, lo)
	}
	for i := range h.edges {
		f := float64(i) / float64(bins)
		if key.log {
			h.edges[i] = lo * math.Pow(hi/lo, f)
		} else {
			h.edges[i] = lo + (hi-lo)*f
		}
	}
	h.edges[bins] = hi
	bn := newBinner(lo, hi, bins, key.log)
	for _, v := range d {
		b := bn.bin(float64(v))
		h.counts[b]++
		h.total[b] += v
	}
	c.sortMu.Lock()
	if len(c.hists) >= 64 {
		clear(c.hists) // a page flips between a few; bound the rest
	}
	c.hists[key] = h
	c.sortMu.Unlock()
	return h
}

// binner maps a duration to its bin with one multiplication (and, on a
// log scale, one logarithm): it runs once per instance, ten million times
// for a big location.
type binner struct {
	lo, scale float64
	bins      int
	log       bool
}

func newBinner(lo, hi float64, bins int, logBins bool) binner {
	bn := binner{bins: bins, log: logBins, lo: lo}
	span := hi - lo
	if logBins {
		bn.lo = math.Log(lo)
		span = math.Log(hi) - bn.lo
	}
	if span > 0 {
		bn.scale = float64(bins) / span
	}
	return bn
}

func (bn binner) bin(v float64) int {
	if bn.log {
		v = math.Log(max(v, 1))
	}
	return min(max(int((v-bn.lo)*bn.scale), 0), bn.bins-1)
}

// findOrder is the order of a location's instances for one sort (nil:
// the order they are listed in), computed on first use and kept, so
// paging through a million instances sorts once.
func (s *Server) findOrder(c *statsCache, k int, refs []analysis.ZoneRef, order string, self bool, durs func() []int64) []uint32 {
	start := func(i uint32) int64 {
		r := refs[i]
		return s.t.Threads[r.Thread].Zones.At(int(r.Index)).Start()
	}
	key := findKey{k, order, self && order != "time"}
	c.sortMu.Lock()
	idx, ok := c.sorted[key]
	c.sortMu.Unlock()
	if ok {
		return idx
	}
	if order == "time" {
		// The list is by thread, each thread's zones depth first, which
		// is start order: one thread's list needs no sorting at all.
		sorted := true
		for i := 1; i < len(refs); i++ {
			if start(uint32(i)) < start(uint32(i-1)) {
				sorted = false
				break
			}
		}
		if sorted {
			c.sortMu.Lock()
			c.sorted[key] = nil
			c.sortMu.Unlock()
			return nil
		}
	}
	idx = make([]uint32, len(refs))
	for i := range idx {
		idx[i] = uint32(i)
	}
	switch order {
	case "time":
		slices.SortStableFunc(idx, func(a, b uint32) int { return cmp64(start(a), start(b)) })
	case "duration":
		d := durs()
		slices.SortStableFunc(idx, func(a, b uint32) int { return cmp64(d[a], d[b]) })
	case "-duration":
		d := durs()
		slices.SortStableFunc(idx, func(a, b uint32) int { return cmp64(d[b], d[a]) })
	}
	c.sortMu.Lock()
	// Orders of a few views stay cached (paging needs them); an order of
	// ten million instances is 40 MB, so not every one ever asked for.
	for old := range c.sorted {
		if len(c.sorted) < sortedCacheLen {
			break
		}
		delete(c.sorted, old)
	}
	c.sorted[key] = idx
	c.sortMu.Unlock()
	return idx
}

// sortedCacheLen is how many instance orders stay cached.
const sortedCacheLen = 4

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
