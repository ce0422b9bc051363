package analysis

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/model"
)

// CSVOptions are tracy-csvexport's switches.
type CSVOptions struct {
	Filter        string // keep source locations whose name contains this ("" = all)
	Separator     string // column separator ("" means ",")
	CaseSensitive bool   // match Filter case-sensitively (default: ASCII case folded)
	SelfTime      bool   // -e: self times instead of full durations
	Unwrap        bool   // -u: one row per zone
	GPU           bool   // -g: one row per GPU zone
	Messages      bool   // -m: only the messages
	Plots         bool   // -p: with Unwrap, every plot point after the zones
	// TruncatedMean, 1..99, adds the TruncatedMean-th percentile and the
	// mean of the durations at or below it; 0 leaves the columns out.
	TruncatedMean int
}

// WriteCSV writes what tracy-csvexport 0.14.0 prints for t with options o,
// byte for byte: the same columns, number formats, row order (Tracy's hash
// map order) and quirks (see the package documentation).
func WriteCSV(w io.Writer, t *model.Trace, o CSVOptions) error {
	return WriteCSVStats(w, t, o, nil)
}

// CountsOnlyCSV reports whether WriteCSV with o needs only the statistics
// ZoneCounts computes (the zone summary without -e, -u or -t), so that a
// caller may compute them while the trace loads and hand them to
// WriteCSVStats.
func CountsOnlyCSV(o CSVOptions) bool {
	return !o.Messages && !o.GPU && !o.SelfTime && !o.Unwrap && o.TruncatedMean == 0
}

// WriteCSVStats is WriteCSV with the zone statistics of t already computed:
// st is what ZoneCounts gives once every thread of t has been added, and is
// used only when CountsOnlyCSV(o); nil (or any other o) computes them here.
func WriteCSVStats(w io.Writer, t *model.Trace, o CSVOptions, st *ZoneStats) error {
	if o.Separator == "" {
		o.Separator = ","
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	c := &csvWriter{w: bw, t: t, o: o}
	if CountsOnlyCSV(o) {
		c.st = st
	}
	switch {
	case o.Messages:
		c.messages()
	case o.GPU:
		c.gpu()
	default:
		c.zones()
	}
	if c.err != nil {
		return c.err
	}
	return bw.Flush()
}

type csvWriter struct {
	w   *bufio.Writer
	t   *model.Trace
	o   CSVOptions
	buf []byte
	err error
	st  *ZoneStats // precomputed zone statistics, or nil
}

// field appends one column, preceded by the separator unless it is first.
func (c *csvWriter) sep() { c.buf = append(c.buf, c.o.Separator...) }

func (c *csvWriter) endRow() {
	c.buf = append(c.buf, '\n')
	if len(c.buf) >= 64<<10 {
		c.flushBuf()
	}
}

func (c *csvWriter) flushBuf() {
	if c.err == nil && len(c.buf) > 0 {
		_, c.err = c.w.Write(c.buf)
	}
	c.buf = c.buf[:0]
}

func (c *csvWriter) header(cols ...string) {
	c.buf = append(c.buf, strings.Join(cols, c.o.Separator)...)
	c.endRow()
}

func (c *csvWriter) messages() {
	t := c.t
	if len(t.Messages) == 0 {
		c.buf = append(c.buf, "There are currently no messages!\n"...)
		c.flushBuf()
		return
	}
	c.header("MessageName", "total_ns")
	for i := range t.Messages {
		m := &t.Messages[i]
		c.buf = append(c.buf, tracyRefString(t, m.Text)...)
		c.sep()
		c.buf = strconv.AppendInt(c.buf, m.Time, 10)
		c.endRow()
	}
	c.flushBuf()
}

// selected reports whether a source location passes the name filter.
func (c *csvWriter) selected(id model.SrcLocID) bool {
	if c.o.Filter == "" {
		return true
	}
	name := srclocName(c.t, id)
	if c.o.CaseSensitive {
		return strings.Contains(name, c.o.Filter)
	}
	return strings.Contains(asciiLower(name), asciiLower(c.o.Filter))
}

func (c *csvWriter) gpu() {
	t := c.t
	st := ComputeGpuZoneStats(t)
	c.header("name", "src_file", "Time from start of program", "GPU execution time")
	for i := range st.Locations {
		s := &st.Locations[i]
		if s.Total == 0 || !c.selected(s.SrcLoc) {
			continue
		}
		sl := tracySrcLoc(t, s.SrcLoc)
		name, file := srclocNameOf(t, sl), tracyRefString(t, sl.File)
		for _, r := range s.Zones {
			z := &t.GpuContexts[r.Context].Timelines[r.Timeline].Zones[r.Index]
			c.buf = append(c.buf, name...)
			c.sep()
			c.buf = append(c.buf, file...)
			c.sep()
			c.buf = strconv.AppendInt(c.buf, z.GPUStart, 10)
			c.sep()
			c.buf = strconv.AppendInt(c.buf, z.GPUEnd-z.GPUStart, 10)
			c.endRow()
		}
	}
	c.flushBuf()
}

func (c *csvWriter) zones() {
	t, o := c.t, c.o
	st := c.st
	if st == nil {
		st = ComputeZoneStats(t, StatsOptions{KeepZones: o.Unwrap || o.TruncatedMean > 0, CountsOnly: !o.SelfTime})
	}
	if o.Unwrap {
		c.header("name", "src_file", "src_line", "ns_since_start", "exec_time_ns", "thread", "value")
	} else {
		cols := []string{"name", "src_file", "src_line", "total_ns", "total_perc",
			"counts", "mean_ns", "min_ns", "max_ns", "std_ns"}
		if o.TruncatedMean > 0 {
			cols = append(cols, "percentile_ns", "truncated_mean_ns")
		}
		c.header(cols...)
	}
	threadIdx := threadIndexOf(t)
	lastTime := t.Metadata.LastTime
	var samples []int64
	for i := range st.Locations {
		s := &st.Locations[i]
		if s.Total == 0 || !c.selected(s.SrcLoc) {
			continue
		}
		sl := tracySrcLoc(t, s.SrcLoc)
		// The three leading columns are the same on every row of a location.
		lead := append([]byte(nil), srclocNameOf(t, sl)...)
		lead = append(lead, o.Separator...)
		lead = append(lead, tracyRefString(t, sl.File)...)
		lead = append(lead, o.Separator...)
		lead = strconv.AppendUint(lead, uint64(sl.Line), 10)
		if o.Unwrap {
			// tracy-csvexport reuses one row buffer per source location and
			// only overwrites the value column for zones that have text, so a
			// zone without text repeats the text of the previous one.
			var value string
			for _, r := range s.Zones {
				th := &t.Threads[r.Thread]
				z := th.Zones.At(int(r.Index))
				span := z.End() - z.Start()
				if o.SelfTime {
					span -= childTimeFast(&th.Zones, int(r.Index))
				}
				if e := z.Extra(); e != 0 && int(e) < len(t.ZoneExtras) {
					if tx := t.ZoneExtras[e].Text; tx != model.NoString {
						value = t.Str(tx)
					}
				}
				c.buf = append(c.buf, lead...)
				c.sep()
				c.buf = strconv.AppendInt(c.buf, z.Start(), 10)
				c.sep()
				c.buf = strconv.AppendInt(c.buf, span, 10)
				c.sep()
				c.buf = strconv.AppendUint(c.buf, uint64(threadIdx[th.ID]), 10)
				c.sep()
				c.buf = append(c.buf, value...)
				c.endRow()
			}
			continue
		}
		total, tmin, tmax := s.Total, s.Min, s.Max
		if o.SelfTime {
			total, tmin, tmax = s.SelfTotal, s.SelfMin, s.SelfMax
		}
		c.buf = append(c.buf, lead...)
		c.sep()
		c.buf = strconv.AppendInt(c.buf, total, 10)
		c.sep()
		c.buf = appendCFloat(c.buf, 100.*float64(total)/float64(lastTime))
		c.sep()
		c.buf = strconv.AppendUint(c.buf, s.Count, 10)
		c.sep()
		c.buf = strconv.AppendUint(c.buf, uint64(total)/s.Count, 10)
		c.sep()
		c.buf = strconv.AppendInt(c.buf, tmin, 10)
		c.sep()
		c.buf = strconv.AppendInt(c.buf, tmax, 10)
		c.sep()
		c.buf = appendCFloat(c.buf, stdDev(s.SumSq, s.Total, total, s.Count))
		if o.TruncatedMean > 0 {
			samples = samples[:0]
			for _, r := range s.Zones {
				th := &t.Threads[r.Thread]
				z := th.Zones.At(int(r.Index))
				span := z.End() - z.Start()
				if o.SelfTime {
					span -= childTimeFast(&th.Zones, int(r.Index))
				}
				samples = append(samples, span)
			}
			p, m := PercentileTruncatedMean(samples, float64(o.TruncatedMean)/100.0)
			c.sep()
			c.buf = strconv.AppendInt(c.buf, p, 10)
			c.sep()
			c.buf = strconv.AppendInt(c.buf, m, 10)
		}
		c.endRow()
	}
	if o.Plots && o.Unwrap {
		for _, p := range PlotsInTracyOrder(t) {
			name := tracyPtrString(t, p.Name)
			for _, v := range p.Points {
				c.buf = append(c.buf, name...)
				c.sep()
				c.sep()
				c.sep()
				c.buf = strconv.AppendInt(c.buf, v.Time, 10)
				c.sep()
				c.sep()
				c.sep()
				c.buf = appendCFloat(c.buf, v.Value)
				c.endRow()
			}
		}
	}
	c.flushBuf()
}

// PercentileTruncatedMean sorts data and returns its p-quantile (0 <= p <=
// 1, linear interpolation, rounded half away from zero) and the integer mean
// of the values at or below the unrounded quantile, as tracy-csvexport -t.
func PercentileTruncatedMean(data []int64, p float64) (percentile, truncatedMean int64) {
	if len(data) == 0 {
		return 0, 0
	}
	slices.Sort(data)
	n := len(data)
	idx := p * (float64(n) - 1)
	lo := int(math.Floor(idx))
	lo = min(max(lo, 0), n-1)
	hi := min(lo+1, n-1)
	frac := idx - float64(lo)
	low, high := float64(data[lo]), float64(data[hi])
	pval := low + (high-low)*frac
	percentile = int64(math.Round(pval))
	var sum int64
	var count uint64
	for _, v := range data {
		if float64(v) > pval {
			break
		}
		sum += v
		count++
	}
	if count == 0 {
		return percentile, 0
	}
	// int64 / size_t in C++: the division is unsigned.
	return percentile, int64(uint64(sum) / count)
}

// threadIndexOf maps thread ids to their local thread index, the number
// tracy-csvexport prints in the thread column. Tracy's loader starts from
// the file's local thread table and, as it reads each thread, appends the
// thread's id if the table lacks it (real files omit threads that only
// have zones: heavy1m's), so such threads get the next free indices in
// thread order.
func threadIndexOf(t *model.Trace) map[uint64]uint16 {
	m := make(map[uint64]uint16, len(t.ThreadIndex)+len(t.Threads))
	n := 0
	add := func(tid uint64) {
		if _, ok := m[tid]; !ok {
			m[tid] = uint16(n)
		}
		n++
	}
	for _, tid := range t.ThreadIndex {
		add(tid)
	}
	for i := range t.Threads {
		if _, ok := m[t.Threads[i].ID]; !ok {
			add(t.Threads[i].ID)
		}
	}
	return m
}

// appendCFloat formats like C's printf("%f") (std::to_string(double)):
// six decimals, and inf/nan spelled as glibc does.
func appendCFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case math.IsInf(v, 1):
		return append(b, "inf"...)
	case math.IsInf(v, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, v, 'f', 6, 64)
}

// asciiLower folds A-Z only, like std::tolower in the C locale.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// tracyRefString resolves a string reference as Tracy's Worker::GetString:
// an inactive or unresolvable reference reads "???".
func tracyRefString(t *model.Trace, r model.StringRef) string {
	if r.Flags&model.RefActive == 0 {
		return "???"
	}
	return t.RefString(r)
}

// tracyPtrString resolves a client pointer key ("???" when unknown).
func tracyPtrString(t *model.Trace, key uint64) string {
	if s, ok := t.PtrString(key); ok {
		return s
	}
	return "???"
}

// tracySrcLoc returns the source location id names; an unknown id (Tracy
// would assert) reads as an empty location, printed "???".
func tracySrcLoc(t *model.Trace, id model.SrcLocID) model.SourceLocation {
	sl, _ := t.SrcLoc(id)
	return sl
}

func srclocNameOf(t *model.Trace, sl model.SourceLocation) string {
	if sl.Name.Flags&model.RefActive != 0 {
		return tracyRefString(t, sl.Name)
	}
	return tracyRefString(t, sl.Function)
}

func srclocName(t *model.Trace, id model.SrcLocID) string {
	return srclocNameOf(t, tracySrcLoc(t, id))
}
