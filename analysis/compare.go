package analysis

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gotracy/gotracy/model"
)

// MatchRule says how Compare pairs the source locations of two traces.
// Tracy's compare window links a selection in one trace to the other by
// zone name, source file and line; when nothing has all three it falls
// back to name and file, then to the name alone. The rules below start
// that cascade at a chosen step, for builds whose lines (or files) moved.
type MatchRule uint8

const (
	// MatchLine pairs by name, file and line, then name and file, then name.
	MatchLine MatchRule = iota
	// MatchFile ignores lines: name and file, then name.
	MatchFile
	// MatchName pairs by the zone name only.
	MatchName
)

var matchNames = [...]string{"line", "file", "name"}

func (m MatchRule) String() string {
	if int(m) < len(matchNames) {
		return matchNames[m]
	}
	return fmt.Sprintf("MatchRule(%d)", m)
}

// ParseMatchRule reads "line", "file" or "name".
func ParseMatchRule(s string) (MatchRule, error) {
	for i, n := range matchNames {
		if s == n {
			return MatchRule(i), nil
		}
	}
	return 0, fmt.Errorf("match rule %q: expected line, file or name", s)
}

// CompareOptions selects and pairs the locations Compare reports.
type CompareOptions struct {
	// Filter keeps locations whose zone name contains it (as csv -f:
	// ASCII case folded unless CaseSensitive).
	Filter        string
	CaseSensitive bool
	Match         MatchRule
}

// CompareSide is one trace's figures for a source location, the numbers
// `gotracy csv` prints for it (count, total, mean = total/count as integer
// division, min, max, standard deviation) plus the median of
// analysis.Medians.
type CompareSide struct {
	SrcLoc model.SrcLocID `json:"srcloc"`
	Name   string         `json:"name"`
	File   string         `json:"src_file"`
	Line   uint32         `json:"src_line"`
	Count  uint64         `json:"counts"`
	Total  int64          `json:"total_ns"`
	Mean   int64          `json:"mean_ns"`
	Median int64          `json:"median_ns"`
	Min    int64          `json:"min_ns"`
	Max    int64          `json:"max_ns"`
	// Std is the sample standard deviation, csv's std_ns (the same float).
	Std float64 `json:"std_ns"`
}

// CompareRow is one source location of A paired with one of B. A or B is
// nil for a location only one trace has.
type CompareRow struct {
	Name string
	A, B *CompareSide
	// MatchedBy is the step of the cascade that paired them ("line",
	// "file" or "name"); "" for a location of one trace only.
	MatchedBy string
}

// Matched reports whether both traces have the location.
func (r *CompareRow) Matched() bool { return r.A != nil && r.B != nil }

// MeanDiff is B's mean minus A's (0 unless matched).
func (r *CompareRow) MeanDiff() int64 {
	if !r.Matched() {
		return 0
	}
	return r.B.Mean - r.A.Mean
}

// MeanRatio is B's mean over A's: above 1, B is slower. NaN unless
// matched; +Inf when A's mean is 0 ns (the integer mean of zones that
// total fewer ns than their count) and B's is not.
func (r *CompareRow) MeanRatio() float64 {
	if !r.Matched() {
		return math.NaN()
	}
	if r.A.Mean == 0 {
		if r.B.Mean == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return float64(r.B.Mean) / float64(r.A.Mean)
}

// TotalDiff is B's total minus A's, counting a missing side as 0.
func (r *CompareRow) TotalDiff() int64 {
	var a, b int64
	if r.A != nil {
		a = r.A.Total
	}
	if r.B != nil {
		b = r.B.Total
	}
	return b - a
}

// SlowerThan reports whether B's mean exceeds A's by more than pct percent
// of A's (exactly, in integers: no rounding decides a CI run). Rows with
// fewer than minCount zones on either side never count.
func (r *CompareRow) SlowerThan(pct float64, minCount uint64) bool {
	if !r.Matched() || r.A.Count < minCount || r.B.Count < minCount {
		return false
	}
	// (B-A)/A*100 > pct  <=>  (B-A)*100 > pct*A; float64 holds the
	// products exactly up to 2^53 ns (104 days).
	return float64(r.B.Mean-r.A.Mean)*100 > pct*float64(r.A.Mean)
}

type compareRowJSON struct {
	Name      string       `json:"name"`
	A         *CompareSide `json:"a"`
	B         *CompareSide `json:"b"`
	MatchedBy string       `json:"matched_by"`
	MeanDiff  *int64       `json:"mean_diff_ns"`
	MeanRatio *float64     `json:"mean_ratio"`
	TotalDiff int64        `json:"total_diff_ns"`
}

// MarshalJSON writes the row with its derived figures; a figure that does
// not exist (unmatched, or a ratio over a 0 ns mean) is null.
func (r CompareRow) MarshalJSON() ([]byte, error) {
	j := compareRowJSON{Name: r.Name, A: r.A, B: r.B, MatchedBy: r.MatchedBy, TotalDiff: r.TotalDiff()}
	if r.Matched() {
		d := r.MeanDiff()
		j.MeanDiff = &d
		if q := r.MeanRatio(); !math.IsInf(q, 0) && !math.IsNaN(q) {
			j.MeanRatio = &q
		}
	}
	return json.Marshal(j)
}

// Comparison is every selected source location of two traces.
type Comparison struct {
	// Rows: A's locations in tracy-csvexport's row order (matched or
	// not), then B's unmatched ones in B's order.
	Rows []CompareRow
	// Zones counted in each trace (all locations, not only the selected).
	ZonesA, ZonesB uint64
	Match          MatchRule
}

// Compare computes, for every source location with counted zones in a or
// b, both traces' figures, paired by o.Match. The figures come from
// ComputeZoneStats and Medians, so each side equals `gotracy csv` of its
// file. Locations are paired one to one: each step of the cascade pairs
// the still unpaired locations with equal keys, in each trace's row order
// (two locations of A with one key take B's first two with that key).
func Compare(a, b *model.Trace, o CompareOptions) *Comparison {
	// The two profiles are independent passes over independent traces:
	// side by side they take the time of one on two cores.
	var pa *CompareProfile
	done := make(chan struct{})
	go func() {
		defer close(done)
		pa = NewCompareProfile(a)
	}()
	pb := NewCompareProfile(b)
	<-done
	return CompareProfiles(pa, pb, o)
}

// CompareProfile is one trace's figures per source location, computed
// once (one statistics pass and one median pass over the zones) so a
// viewer can compare under several options without walking the zones
// again. It is read-only once made.
type CompareProfile struct {
	rows  []CompareSide // locations with counted zones, in csv row order
	zones uint64
}

// NewCompareProfile computes t's figures for CompareProfiles.
func NewCompareProfile(t *model.Trace) *CompareProfile {
	st := ComputeZoneStats(t, StatsOptions{})
	med := Medians(t, st)
	p := &CompareProfile{zones: st.Zones}
	for k := range st.Locations {
		l := &st.Locations[k]
		if l.Count == 0 {
			continue // csv leaves these out
		}
		sl := tracySrcLoc(t, l.SrcLoc)
		p.rows = append(p.rows, CompareSide{SrcLoc: l.SrcLoc, Name: srclocNameOf(t, sl), File: tracyRefString(t, sl.File), Line: sl.Line,
			Count: l.Count, Total: l.Total, Mean: l.Mean(), Median: med[k], Min: l.Min, Max: l.Max, Std: l.StdDev()})
	}
	return p
}

// Side returns the figures of location id, if it has counted zones.
func (p *CompareProfile) Side(id model.SrcLocID) (*CompareSide, bool) {
	for i := range p.rows {
		if p.rows[i].SrcLoc == id {
			return &p.rows[i], true
		}
	}
	return nil, false
}

// selected lists the positions of p's rows that pass o's filter.
func (p *CompareProfile) selected(o CompareOptions) []*CompareSide {
	filter := o.Filter
	if !o.CaseSensitive {
		filter = asciiLower(filter)
	}
	out := make([]*CompareSide, 0, len(p.rows))
	for i := range p.rows {
		n := p.rows[i].Name
		if filter != "" {
			if !o.CaseSensitive {
				n = asciiLower(n)
			}
			if !strings.Contains(n, filter) {
				continue
			}
		}
		out = append(out, &p.rows[i])
	}
	return out
}

// CompareProfiles is Compare over profiles made before. The rows point
// into the profiles' figures: do not change them.
func CompareProfiles(pa, pb *CompareProfile, o CompareOptions) *Comparison {
	sideA, sideB := pa.selected(o), pb.selected(o)
	c := &Comparison{Match: o.Match, ZonesA: pa.zones, ZonesB: pb.zones}
	pairOf := make([]int, len(sideA)) // A row -> B row, -1 none
	for i := range pairOf {
		pairOf[i] = -1
	}
	how := make([]string, len(sideA))
	takenB := make([]bool, len(sideB))
	for step := o.Match; step <= MatchName; step++ {
		key := func(s *CompareSide) string {
			switch step {
			case MatchLine:
				return fmt.Sprintf("%s\x00%s\x00%d", s.Name, s.File, s.Line)
			case MatchFile:
				return s.Name + "\x00" + s.File
			}
			return s.Name
		}
		free := map[string][]int{} // key -> B rows still unpaired, in order
		for j := range sideB {
			if !takenB[j] {
				k := key(sideB[j])
				free[k] = append(free[k], j)
			}
		}
		for i := range sideA {
			if pairOf[i] >= 0 {
				continue
			}
			k := key(sideA[i])
			if js := free[k]; len(js) > 0 {
				pairOf[i], how[i], takenB[js[0]] = js[0], step.String(), true
				free[k] = js[1:]
			}
		}
	}
	c.Rows = make([]CompareRow, 0, len(sideA)+len(sideB))
	for i := range sideA {
		r := CompareRow{Name: sideA[i].Name, A: sideA[i], MatchedBy: how[i]}
		if j := pairOf[i]; j >= 0 {
			r.B = sideB[j]
		}
		c.Rows = append(c.Rows, r)
	}
	for j := range sideB {
		if !takenB[j] {
			c.Rows = append(c.Rows, CompareRow{Name: sideB[j].Name, B: sideB[j]})
		}
	}
	return c
}

// CompareSortKeys are the orders SortCompareRows knows.
var CompareSortKeys = []string{"ratio", "diff", "total-diff", "name", "count-a", "count-b", "total-a", "total-b", "mean-a", "mean-b", "median-a", "median-b"}

// SortCompareRows orders rows by key (one of CompareSortKeys), ties by
// name then A's row order. Rows without the key's figure (a ratio of an
// unmatched row, B's count of a row only A has) always go last, in either
// direction, so the table starts with what both traces have.
func SortCompareRows(rows []CompareRow, key string, desc bool) error {
	side := func(r *CompareRow, b bool) *CompareSide {
		if b {
			return r.B
		}
		return r.A
	}
	var val func(r *CompareRow) (float64, bool)
	num := func(b bool, f func(s *CompareSide) float64) func(r *CompareRow) (float64, bool) {
		return func(r *CompareRow) (float64, bool) {
			if s := side(r, b); s != nil {
				return f(s), true
			}
			return 0, false
		}
	}
	switch key {
	case "ratio":
		val = func(r *CompareRow) (float64, bool) { return r.MeanRatio(), r.Matched() }
	case "diff":
		val = func(r *CompareRow) (float64, bool) { return float64(r.MeanDiff()), r.Matched() }
	case "total-diff":
		val = func(r *CompareRow) (float64, bool) { return float64(r.TotalDiff()), true }
	case "count-a", "count-b":
		val = num(key == "count-b", func(s *CompareSide) float64 { return float64(s.Count) })
	case "total-a", "total-b":
		val = num(key == "total-b", func(s *CompareSide) float64 { return float64(s.Total) })
	case "mean-a", "mean-b":
		val = num(key == "mean-b", func(s *CompareSide) float64 { return float64(s.Mean) })
	case "median-a", "median-b":
		val = num(key == "median-b", func(s *CompareSide) float64 { return float64(s.Median) })
	case "name":
	default:
		return fmt.Errorf("sort key %q: expected one of %s", key, strings.Join(CompareSortKeys, ", "))
	}
	slices.SortStableFunc(rows, func(x, y CompareRow) int {
		if val != nil {
			vx, okx := val(&x)
			vy, oky := val(&y)
			switch {
			case okx && !oky:
				return -1
			case !okx && oky:
				return 1
			case okx && oky && vx != vy:
				if desc {
					return cmp.Compare(vy, vx)
				}
				return cmp.Compare(vx, vy)
			}
			return strings.Compare(x.Name, y.Name)
		}
		c := strings.Compare(x.Name, y.Name)
		if desc {
			c = -c
		}
		return c
	})
	return nil
}

// CompareHistogram is the overlaid duration histogram of one location in
// both traces, over the range both share (Tracy's compare window bins
// both traces over min..max of the two), so bars at one position mean the
// same durations.
type CompareHistogram struct {
	Log     bool      `json:"log"`
	Min     int64     `json:"min_ns"`
	Max     int64     `json:"max_ns"`
	Edges   []float64 `json:"edges_ns"` // bins+1 bin boundaries
	CountsA []uint64  `json:"counts_a"`
	CountsB []uint64  `json:"counts_b"`
	TimeA   []int64   `json:"time_a_ns"` // total duration per bin
	TimeB   []int64   `json:"time_b_ns"`
	ZonesA  uint64    `json:"zones_a"`
	ZonesB  uint64    `json:"zones_b"`
	Bins    int       `json:"bins"`
}

// Durations lists the durations of id's counted zones in t (threads in
// file order, each depth first, as the statistics walk them).
func Durations(t *model.Trace, id model.SrcLocID) []int64 {
	var d []int64
	for ti := range t.Threads {
		for _, z := range t.Threads[ti].Zones.All() {
			if z.SrcLoc != id {
				continue
			}
			e := z.End()
			if span := e - z.Start(); e >= 0 && span > 0 {
				d = append(d, span)
			}
		}
	}
	return d
}

// CompareHist bins durations a and b (either may be empty) into bins bins
// over the range of both, linear or logarithmic in time. A duration at the
// range's maximum falls in the last bin.
func CompareHist(a, b []int64, bins int, logTime bool) *CompareHistogram {
	bins = max(bins, 1)
	h := &CompareHistogram{Log: logTime, Bins: bins, Edges: make([]float64, bins+1),
		CountsA: make([]uint64, bins), CountsB: make([]uint64, bins), TimeA: make([]int64, bins), TimeB: make([]int64, bins),
		ZonesA: uint64(len(a)), ZonesB: uint64(len(b))}
	if len(a)+len(b) > 0 {
		h.Min, h.Max = math.MaxInt64, math.MinInt64
		for _, d := range [][]int64{a, b} {
			if len(d) > 0 {
				h.Min = min(h.Min, slices.Min(d))
				h.Max = max(h.Max, slices.Max(d))
			}
		}
	}
	lo, hi := float64(h.Min), float64(h.Max)
	if logTime {
		lo = max(lo, 1)
		hi = max(hi, lo)
	}
	for i := range h.Edges {
		f := float64(i) / float64(bins)
		if logTime {
			h.Edges[i] = lo * math.Pow(hi/lo, f)
		} else {
			h.Edges[i] = lo + (hi-lo)*f
		}
	}
	h.Edges[bins] = hi
	var scale, base float64
	span := hi - lo
	base = lo
	if logTime {
		base = math.Log(lo)
		span = math.Log(hi) - base
	}
	if span > 0 {
		scale = float64(bins) / span
	}
	bin := func(v int64) int {
		x := float64(v)
		if logTime {
			x = math.Log(max(x, 1))
		}
		return min(max(int((x-base)*scale), 0), bins-1)
	}
	for _, v := range a {
		k := bin(v)
		h.CountsA[k]++
		h.TimeA[k] += v
	}
	for _, v := range b {
		k := bin(v)
		h.CountsB[k]++
		h.TimeB[k] += v
	}
	return h
}
