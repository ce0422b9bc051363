package main

import (
	"flag"
	"strconv"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/progress"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "csv",
		summary: "export zone statistics, zones, messages or plots as CSV, like tracy-csvexport",
		usage:   "csv [-f FILTER] [-s SEP] [-c] [-e] [-u] [-g] [-m] [-p] [-t[=PERCENT]] FILE",
		setup:   setupCSV,
	})
}

// percentFlag is tracy-csvexport's --truncated_mean: an optional argument
// ("-t" alone means 90, "-t=N" sets N, clamped to 1..99 as the real tool).
type percentFlag struct{ v *int }

func (p percentFlag) String() string {
	if p.v == nil || *p.v == 0 {
		return ""
	}
	return strconv.Itoa(*p.v)
}

func (p percentFlag) Set(s string) error {
	switch s {
	case "true":
		*p.v = 90
	case "false":
		*p.v = 0
	default:
		*p.v = min(max(atoi(s), 1), 99)
	}
	return nil
}

func (p percentFlag) IsBoolFlag() bool { return true }

// atoi is C's atoi: optional sign, leading digits, anything else ignored.
func atoi(s string) int {
	i, neg, n := 0, false, 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31 {
			n = 1 << 31
		}
	}
	if neg {
		return -n
	}
	return n
}

func setupCSV(fs *flag.FlagSet) func(*env, []string) error {
	var o analysis.CSVOptions
	// Both of tracy-csvexport's spellings are accepted: -f and --filter, ...
	for _, n := range []string{"f", "filter"} {
		fs.StringVar(&o.Filter, n, "", "keep only zones whose name contains `FILTER`")
	}
	for _, n := range []string{"s", "sep"} {
		fs.StringVar(&o.Separator, n, ",", "CSV column `SEP`arator")
	}
	boolFlag := func(p *bool, short, long, usage string) {
		fs.BoolVar(p, short, false, usage)
		fs.BoolVar(p, long, false, usage+" (same as -"+short+")")
	}
	boolFlag(&o.CaseSensitive, "c", "case", "case-sensitive filter")
	boolFlag(&o.SelfTime, "e", "self", "self times (zone time minus its children's)")
	boolFlag(&o.Unwrap, "u", "unwrap", "one row per zone")
	boolFlag(&o.GPU, "g", "gpu", "one row per GPU zone")
	boolFlag(&o.Messages, "m", "messages", "only the messages")
	boolFlag(&o.Plots, "p", "plot", "with -u, every plot point after the zones")
	for _, n := range []string{"t", "truncated_mean"} {
		fs.Var(percentFlag{&o.TruncatedMean}, n, "-t=N adds the N-th percentile and the mean of the zones at or below it (-t alone: N=90)")
	}
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usagef("csv needs exactly one trace file")
		}
		t, _, err := loadTrace(e, args[0])
		if err != nil {
			return err
		}
		return analysis.WriteCSV(e.stdout, t, o)
	}
}

// loadTrace is how csv and info load their file; tests swap in a cache so
// one load serves every flag combination they check.
var loadTrace = loadTraceReport

// loadTraceReport loads a .tracy file for a command, showing progress on
// stderr once a load has taken more than a second.
func loadTraceReport(e *env, path string) (*model.Trace, *tracefile.Report, error) {
	var rep tracefile.Report
	line, update := progressLine(e, "loading "+path)
	t, err := tracefile.ReadFile(path, tracefile.WithReport(&rep), tracefile.WithProgress(update))
	line.Done()
	if err != nil {
		return nil, nil, err
	}
	return t, &rep, nil
}

// progressLine is the one progress display of the commands that load or save
// traces: a terminal line on stderr that appears only for operations over a
// second (see internal/progress).
func progressLine(e *env, label string) (*progress.Line, func(tracefile.Progress)) {
	line := progress.New(e.stderr, label)
	return line, func(p tracefile.Progress) { line.Update(p.Done, p.Total) }
}
