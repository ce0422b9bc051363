package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gotracy/gotracy/analysis"
)

func init() {
	register(&command{
		name:    "diff",
		summary: "compare two .tracy files per source location (count, total, mean, median, change); fail CI on a slowdown",
		usage:   "diff [-f FILTER] [-c] [--match RULE] [--frames] [--sort KEY] [--fail-above PCT] [--min-count N] [--json | --csv] A.tracy B.tracy",
		help: "A is the baseline, B the new run: a ratio above 1 means B is slower. Locations pair as in\n" +
			"Tracy's compare window: by zone name, source file and line, then name and file, then the\n" +
			"name alone (--match file starts without lines, --match name with names only). Every\n" +
			"figure of a side is what `gotracy csv` prints for its file. --frames compares frame sets\n" +
			"(frame times, paired by set name, as Tracy's compare window in Frames mode) instead.\n\n" +
			"Exit status: 0, or 1 when --fail-above is given and some paired location's mean is slower\n" +
			"by more than PCT percent (the line on stderr names them; ties at exactly PCT pass);\n" +
			"1 also for an unreadable file; 2 wrong usage.",
		setup: setupDiff,
	})
}

func setupDiff(fs *flag.FlagSet) func(*env, []string) error {
	var o analysis.CompareOptions
	fs.StringVar(&o.Filter, "f", "", "keep only zones whose name contains `FILTER` (ASCII case folded, as csv -f)")
	alias(fs, "f", "filter")
	fs.BoolVar(&o.CaseSensitive, "c", false, "case-sensitive filter")
	alias(fs, "c", "case")
	match := fs.String("match", "line", "pair locations by `RULE`: line (name, file and line, falling back to name and file, then name), file (ignore lines), name")
	sortKey := fs.String("sort", "ratio", "order rows by `KEY`: "+strings.Join(analysis.CompareSortKeys, ", ")+" (numbers largest first, name A to Z)")
	failAbove := -1.0
	fs.Func("fail-above", "exit 1 when a paired zone's mean is more than `PCT` percent slower in B", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("expected a percentage of 0 or more, got %q", s)
		}
		failAbove = v
		return nil
	})
	minCount := fs.Uint64("min-count", 1, "with --fail-above, ignore locations with fewer than `N` zones in either trace (noise)")
	frames := fs.Bool("frames", false, "compare frame sets' frame times (paired by name) instead of zones")
	asJSON := fs.Bool("json", false, "print JSON (rows with both sides' figures, the change, the slower zones)")
	asCSV := fs.Bool("csv", false, "print CSV (one row per location, times in ns)")
	return func(e *env, args []string) error {
		if len(args) != 2 {
			return usagef("diff needs two trace files (A, the baseline, and B), got %d argument%s", len(args), plural(len(args)))
		}
		rule, err := analysis.ParseMatchRule(*match)
		if err != nil {
			return usagef("--match: %v", err)
		}
		o.Match = rule
		if *asJSON && *asCSV {
			return usagef("--json and --csv exclude each other")
		}
		if !validSortKey(*sortKey) {
			return usagef("--sort %q: expected one of %s", *sortKey, strings.Join(analysis.CompareSortKeys, ", "))
		}
		a, _, err := loadTrace(e, args[0])
		if err != nil {
			return err
		}
		b, _, err := loadTrace(e, args[1])
		if err != nil {
			return err
		}
		var c *analysis.Comparison
		if *frames {
			c = analysis.CompareFrames(a, b, o)
		} else {
			c = analysis.Compare(a, b, o)
		}
		if err := analysis.SortCompareRows(c.Rows, *sortKey, *sortKey != "name"); err != nil {
			return err
		}
		var slower []*analysis.CompareRow
		if failAbove >= 0 {
			for i := range c.Rows {
				if c.Rows[i].SlowerThan(failAbove, *minCount) {
					slower = append(slower, &c.Rows[i])
				}
			}
		}
		d := diffReport{c: c, nameA: filepath.Base(args[0]), nameB: filepath.Base(args[1]), failAbove: failAbove, slower: slower, frames: *frames}
		switch {
		case *asJSON:
			err = d.writeJSON(e.stdout)
		case *asCSV:
			err = d.writeCSV(e.stdout)
		default:
			err = d.writeText(e.stdout)
		}
		if err != nil {
			return err
		}
		if len(slower) > 0 {
			return d.slowerError()
		}
		return nil
	}
}

func validSortKey(k string) bool {
	for _, s := range analysis.CompareSortKeys {
		if k == s {
			return true
		}
	}
	return false
}

type diffReport struct {
	c            *analysis.Comparison
	nameA, nameB string
	failAbove    float64 // < 0: not asked
	slower       []*analysis.CompareRow
	frames       bool // rows are frame sets
}

func (d *diffReport) unit() string {
	if d.frames {
		return "frame"
	}
	return "zone"
}

// slowerError is the one line that explains exit status 1.
func (d *diffReport) slowerError() error {
	// The worst first, whatever order the table was asked for.
	worst := slices.Clone(d.slower)
	slices.SortStableFunc(worst, func(x, y *analysis.CompareRow) int { return cmp.Compare(y.MeanRatio(), x.MeanRatio()) })
	var parts []string
	for i, r := range worst {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(d.slower)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s -> %s)", r.Name, changePct(r), analysis.FormatTime(r.A.Mean), analysis.FormatTime(r.B.Mean)))
	}
	zones := d.unit() + "'s mean is"
	if d.frames {
		zones = "frame set's mean frame time is"
	}
	if len(d.slower) > 1 {
		zones = d.unit() + "s' means are"
		if d.frames {
			zones = "frame sets' mean frame times are"
		}
	}
	return fmt.Errorf("%d %s more than %s%% slower in %s than in %s: %s", len(d.slower), zones,
		strconv.FormatFloat(d.failAbove, 'f', -1, 64), d.nameB, d.nameA, strings.Join(parts, ", "))
}

// changePct is the mean's change as a signed percentage of A's.
func changePct(r *analysis.CompareRow) string {
	q := r.MeanRatio()
	switch {
	case math.IsNaN(q):
		return ""
	case math.IsInf(q, 1):
		return "+inf%"
	}
	return fmt.Sprintf("%+.1f%%", (q-1)*100)
}

func signedTime(ns int64) string {
	if ns > 0 {
		return "+" + analysis.FormatTime(ns)
	}
	return analysis.FormatTime(ns)
}

func location(s *analysis.CompareSide) string {
	if s.Line == 0 {
		return s.File
	}
	return s.File + ":" + strconv.FormatUint(uint64(s.Line), 10)
}

// rowLocation names A's location, and B's where it differs (a pair made
// without lines or files).
func rowLocation(r *analysis.CompareRow) string {
	switch {
	case r.A == nil:
		return location(r.B)
	case r.B == nil:
		return location(r.A)
	case r.A.File == r.B.File && r.A.Line == r.B.Line:
		return location(r.A)
	case r.A.File == r.B.File:
		return location(r.A) + " -> " + strconv.FormatUint(uint64(r.B.Line), 10)
	}
	return location(r.A) + " -> " + location(r.B)
}

func (d *diffReport) counts() (pairs, onlyA, onlyB int) {
	for i := range d.c.Rows {
		r := &d.c.Rows[i]
		switch {
		case r.Matched():
			pairs++
		case r.A != nil:
			onlyA++
		default:
			onlyB++
		}
	}
	return
}

var matchWords = map[analysis.MatchRule]string{
	analysis.MatchLine: "name, file and line, then name and file, then name",
	analysis.MatchFile: "name and file, then name",
	analysis.MatchName: "name",
}

func (d *diffReport) writeText(w io.Writer) error {
	pairs, onlyA, onlyB := d.counts()
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s (%d %ss)\nB: %s (%d %ss)\n", d.nameA, d.c.ZonesA, d.unit(), d.nameB, d.c.ZonesB, d.unit())
	if d.frames {
		fmt.Fprintf(&b, "%d frame sets paired by name; %d only in A, %d only in B\n", pairs, onlyA, onlyB)
	} else {
		fmt.Fprintf(&b, "%d locations paired by %s; %d only in A, %d only in B\n", pairs, matchWords[d.c.Match], onlyA, onlyB)
	}
	if d.failAbove >= 0 {
		fmt.Fprintf(&b, "%d slower than --fail-above %s%%\n", len(d.slower), strconv.FormatFloat(d.failAbove, 'f', -1, 64))
	}
	b.WriteByte('\n')
	head := []string{d.unit(), "location", "count A", "count B", "total A", "total B", "mean A", "mean B", "median A", "median B", "Δ mean", "ratio", "change"}
	left := 2 // the first two columns are text
	rows := [][]string{head}
	side := func(s *analysis.CompareSide) []string {
		if s == nil {
			return []string{"-", "-", "-", "-"}
		}
		return []string{strconv.FormatUint(s.Count, 10), analysis.FormatTime(s.Total), analysis.FormatTime(s.Mean), analysis.FormatTime(s.Median)}
	}
	for i := range d.c.Rows {
		r := &d.c.Rows[i]
		sa, sb := side(r.A), side(r.B)
		ratio, change, diff := "only A", "", ""
		if r.A == nil {
			ratio = "only B"
		}
		if r.Matched() {
			diff, change = signedTime(r.MeanDiff()), changePct(r)
			ratio = "inf"
			if q := r.MeanRatio(); !math.IsInf(q, 0) {
				ratio = strconv.FormatFloat(q, 'f', 3, 64)
			}
		}
		rows = append(rows, []string{r.Name, rowLocation(r), sa[0], sb[0], sa[1], sb[1], sa[2], sb[2], sa[3], sb[3], diff, ratio, change})
	}
	if d.frames { // frame sets have no location
		head[0] = "frame set"
		for i := range rows {
			rows[i] = append(rows[i][:1], rows[i][2:]...)
		}
		left = 1
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if i < left {
				line.WriteString(c)
				if i < len(r)-1 {
					line.WriteString(pad)
				}
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type diffJSON struct {
	Kind         string                `json:"kind"` // "zones" or "frames"
	A            diffTraceJSON         `json:"a"`
	B            diffTraceJSON         `json:"b"`
	Match        string                `json:"match"`
	FailAbovePct *float64              `json:"fail_above_pct"`
	Rows         []analysis.CompareRow `json:"rows"`
	Slower       []string              `json:"slower"`
}

type diffTraceJSON struct {
	File string `json:"file"`
	// Zones counted (or frames, for kind frames).
	Zones uint64 `json:"zones"`
}

func (d *diffReport) writeJSON(w io.Writer) error {
	j := diffJSON{Kind: d.unit() + "s", A: diffTraceJSON{d.nameA, d.c.ZonesA}, B: diffTraceJSON{d.nameB, d.c.ZonesB}, Match: d.c.Match.String(),
		Rows: d.c.Rows, Slower: []string{}}
	if j.Rows == nil {
		j.Rows = []analysis.CompareRow{}
	}
	if d.failAbove >= 0 {
		j.FailAbovePct = &d.failAbove
	}
	for _, r := range d.slower {
		j.Slower = append(j.Slower, r.Name+" "+rowLocation(r))
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (d *diffReport) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "a_src_file", "a_src_line", "b_src_file", "b_src_line", "matched_by", "a_counts", "b_counts",
		"a_total_ns", "b_total_ns", "a_mean_ns", "b_mean_ns", "a_median_ns", "b_median_ns", "a_min_ns", "b_min_ns",
		"a_max_ns", "b_max_ns", "a_std_ns", "b_std_ns", "mean_diff_ns", "mean_ratio"})
	side := func(s *analysis.CompareSide) (file, line, n, total, mean, median, mn, mx, std string) {
		if s == nil {
			return
		}
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		return s.File, strconv.FormatUint(uint64(s.Line), 10), strconv.FormatUint(s.Count, 10), i(s.Total), i(s.Mean), i(s.Median), i(s.Min), i(s.Max),
			strconv.FormatFloat(s.Std, 'f', 6, 64)
	}
	for i := range d.c.Rows {
		r := &d.c.Rows[i]
		fa, la, na, ta, ma, mda, mna, mxa, sa := side(r.A)
		fb, lb, nb, tb, mb, mdb, mnb, mxb, sb := side(r.B)
		diff, ratio := "", ""
		if r.Matched() {
			diff = strconv.FormatInt(r.MeanDiff(), 10)
			if q := r.MeanRatio(); !math.IsInf(q, 0) {
				ratio = strconv.FormatFloat(q, 'f', 6, 64)
			}
		}
		cw.Write([]string{r.Name, fa, la, fb, lb, r.MatchedBy, na, nb, ta, tb, ma, mb, mda, mdb, mna, mnb, mxa, mxb, sa, sb, diff, ratio})
	}
	cw.Flush()
	return cw.Error()
}
