package viewer

import (
	"math"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// statsCache is the statistics of the whole trace, computed on the first
// request that needs them (statistics, find) and kept: they cost one pass
// over every zone and 8 bytes a counted zone.
type statsCache struct {
	st   *analysis.ZoneStats
	byID map[int16]int // srcloc -> position in st.Locations

	medOnce sync.Once
	median  []int64 // by position: median duration
	selfMed []int64 // by position: median self time

	sortMu   sync.Mutex
	refCache []refEntry           // instance lists of the last locations asked for
	sorted   map[findKey][]uint32 // instance orders already asked for
	hists    map[histKey]*histogram
}

type findKey struct {
	loc  int
	sort string
	self bool
}

func (s *Server) zoneStats() *statsCache {
	s.statsOnce.Do(func() {
		// Without KeepZones: the instance lists would cost 8 bytes a zone
		// for as long as the viewer runs (80 MB for ten million zones);
		// find builds the one it is asked for (refs).
		st := analysis.ComputeZoneStats(s.t, analysis.StatsOptions{})
		c := &statsCache{st: st, byID: make(map[int16]int, len(st.Locations)), sorted: map[findKey][]uint32{}, hists: map[histKey]*histogram{}}
		for i := range st.Locations {
			c.byID[st.Locations[i].SrcLoc] = i
		}
		s.stats = c
	})
	return s.stats
}

// selfTime is what ComputeZoneStats subtracts for a zone's self time: the
// direct children's durations, unended children counted as 0.
func selfTime(zones *model.ZoneList, i int) int64 {
	z := zones.At(i)
	self := z.End() - z.Start()
	next := zones.NextOf(z)
	for c := i + 1; c < next && c < zones.Len(); {
		cz := zones.At(c)
		self -= max(0, cz.End()-cz.Start())
		n := zones.NextOf(cz)
		if n <= c {
			break
		}
		c = n
	}
	return self
}

func (s *Server) durations(refs []analysis.ZoneRef, self bool, dst []int64) []int64 {
	for _, r := range refs {
		zl := &s.t.Threads[r.Thread].Zones
		if self {
			dst = append(dst, selfTime(zl, int(r.Index)))
		} else {
			z := zl.At(int(r.Index))
			dst = append(dst, z.End()-z.Start())
		}
	}
	return dst
}

// counted is the statistics' filter: a zone that ended and lasted > 0 ns.
func counted(z *model.Zone) bool {
	e := z.End()
	return e >= 0 && e-z.Start() > 0
}

// refs lists location k's instances (the zones statistics count), by
// thread and in each thread depth first, as ComputeZoneStats' KeepZones
// would; built on first use by one scan of the zones and kept for the
// last few locations asked for, not for all.
func (s *Server) refs(c *statsCache, k int) []analysis.ZoneRef {
	c.sortMu.Lock()
	for _, e := range c.refCache {
		if e.k == k {
			c.sortMu.Unlock()
			return e.refs
		}
	}
	c.sortMu.Unlock()
	id := c.st.Locations[k].SrcLoc
	refs := make([]analysis.ZoneRef, 0, c.st.Locations[k].Count)
	for ti := range s.t.Threads {
		for zi, z := range s.t.Threads[ti].Zones.All() {
			if z.SrcLoc == id && counted(z) {
				refs = append(refs, analysis.ZoneRef{Thread: uint32(ti), Index: uint32(zi)})
			}
		}
	}
	c.sortMu.Lock()
	c.refCache = append(c.refCache, refEntry{k, refs})
	if len(c.refCache) > refCacheLen {
		c.refCache = c.refCache[1:]
	}
	c.sortMu.Unlock()
	return refs
}

// refCacheLen is how many locations' instance lists stay cached.
const refCacheLen = 4

type refEntry struct {
	k    int
	refs []analysis.ZoneRef
}

// medians finds every location's median duration and self time, the
// element at n/2 of the sorted durations, as Tracy's statistics show it.
// One scan of the zones gathers the durations of every location at once
// (8 bytes a zone, dropped afterwards and handed back to the system: the
// viewer should not keep a heap the size of its largest question), then
// a selection finds each median without sorting.
func (s *Server) medians(c *statsCache) {
	c.medOnce.Do(func() {
		n := len(c.st.Locations)
		c.median = make([]int64, n)
		c.selfMed = make([]int64, n)
		slot := make(map[int16]int, n)
		for k := range c.st.Locations {
			slot[c.st.Locations[k].SrcLoc] = k
		}
		for pass, out := range [][]int64{c.median, c.selfMed} {
			d := make([][]int64, n)
			for k := range d {
				d[k] = make([]int64, 0, c.st.Locations[k].Count)
			}
			for ti := range s.t.Threads {
				zl := &s.t.Threads[ti].Zones
				for zi, z := range zl.All() {
					if !counted(z) {
						continue
					}
					k, ok := slot[z.SrcLoc]
					if !ok {
						continue
					}
					if pass == 0 {
						d[k] = append(d[k], z.End()-z.Start())
					} else {
						d[k] = append(d[k], selfTime(zl, zi))
					}
				}
			}
			for k := range d {
				if len(d[k]) > 0 {
					out[k] = nthElement(d[k], len(d[k])/2)
				}
			}
		}
		debug.FreeOSMemory()
	})
}

// nthElement is analysis.NthElement (one selection code for the viewer,
// diff and compare).
func nthElement(d []int64, i int) int64 { return analysis.NthElement(d, i) }

// statRow is one row of `gotracy csv` (tracy-csvexport), plus the srcloc
// id, the median and the other time (self time for a full-duration row).
type statRow struct {
	SrcLoc    int16   `json:"srcloc"`
	Name      string  `json:"name"`
	SrcFile   string  `json:"src_file"`
	SrcLine   uint32  `json:"src_line"`
	TotalNs   int64   `json:"total_ns"`
	TotalPerc float64 `json:"total_perc"`
	Counts    uint64  `json:"counts"`
	MeanNs    int64   `json:"mean_ns"`
	MinNs     int64   `json:"min_ns"`
	MaxNs     int64   `json:"max_ns"`
	StdNs     float64 `json:"std_ns"`
	MedianNs  int64   `json:"median_ns"`
	// SelfNs is the total self time (durations minus direct children's);
	// with self=1, where total_ns already is self time, it is the total
	// of the full durations instead, so both are always there.
	SelfNs            int64  `json:"self_ns"`
	NonReentrantCount uint64 `json:"nonreentrant_counts"`
	NonReentrantNs    int64  `json:"nonreentrant_total_ns"`
}

// tracyStr resolves a reference as tracy-csvexport prints it ("???" for
// none), so names equal the csv's.
func tracyStr(t *model.Trace, r model.StringRef) string {
	if r.Flags&model.RefActive == 0 {
		return "???"
	}
	return t.RefString(r)
}

func (s *Server) apiStatistics(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "self"); err != nil {
		return err
	}
	p := params{r: r}
	self := p.bool("self")
	if p.err != nil {
		return p.err
	}
	c := s.zoneStats()
	s.medians(c)
	t := s.t
	last := float64(t.Metadata.LastTime)
	rows := make([]statRow, 0, len(c.st.Locations))
	for k := range c.st.Locations {
		l := &c.st.Locations[k]
		if l.Count == 0 {
			continue // tracy-csvexport leaves these out
		}
		sl, _ := t.SrcLoc(l.SrcLoc)
		name := tracyStr(t, sl.Function)
		if sl.Name.Flags&model.RefActive != 0 {
			name = tracyStr(t, sl.Name)
		}
		row := statRow{SrcLoc: l.SrcLoc, Name: name, SrcFile: tracyStr(t, sl.File), SrcLine: sl.Line, Counts: l.Count,
			NonReentrantCount: l.NonReentrantCount, NonReentrantNs: l.NonReentrantTotal}
		if self {
			row.TotalNs, row.MinNs, row.MaxNs, row.MedianNs, row.SelfNs = l.SelfTotal, l.SelfMin, l.SelfMax, c.selfMed[k], l.Total
		} else {
			row.TotalNs, row.MinNs, row.MaxNs, row.MedianNs, row.SelfNs = l.Total, l.Min, l.Max, c.median[k], l.SelfTotal
		}
		row.TotalPerc = 100 * float64(row.TotalNs) / last
		row.MeanNs = int64(uint64(row.TotalNs) / l.Count)
		row.StdNs = csvStdDev(l.SumSq, l.Total, row.TotalNs, l.Count)
		rows = append(rows, row)
	}
	return writeJSON(w, rows)
}

// csvStdDev is tracy-csvexport's standard deviation, quirk included: with
// self times the mean subtracted is the self mean while the squares are of
// full durations (analysis reproduces the same formula for the csv).
func csvStdDev(sumSq float64, total, avgOf int64, n uint64) float64 {
	if n <= 1 {
		return 0
	}
	avg := uint64(avgOf) / n
	ss := sumSq - 2.*float64(total)*float64(avg) + float64(avg*avg*n)
	return math.Sqrt(ss / float64(n-1))
}
