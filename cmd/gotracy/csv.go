package main

import (
	"errors"
	"flag"
	"strconv"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/internal/progress"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "csv",
		summary: "export zone statistics, zones, messages or plots as CSV, like tracy-csvexport",
		usage:   "csv [-f FILTER] [-s SEP] [-c] [-e] [-u] [-g] [-m] [-p] [-t [PERCENT]] FILE   (CSV on standard output)",
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

func (p percentFlag) optionalValue() {}

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
	// tracy-csvexport's flags, short and long (-f, --filter, ...).
	fs.StringVar(&o.Filter, "f", "", "keep only zones whose name contains `FILTER`")
	alias(fs, "f", "filter")
	fs.StringVar(&o.Separator, "s", ",", "CSV column `SEP`arator")
	alias(fs, "s", "sep")
	boolFlag := func(p *bool, short, long, usage string) {
		fs.BoolVar(p, short, false, usage)
		alias(fs, short, long)
	}
	boolFlag(&o.CaseSensitive, "c", "case", "case-sensitive filter")
	boolFlag(&o.SelfTime, "e", "self", "self times (zone time minus its children's)")
	boolFlag(&o.Unwrap, "u", "unwrap", "one row per zone")
	boolFlag(&o.GPU, "g", "gpu", "one row per GPU zone")
	boolFlag(&o.Messages, "m", "messages", "only the messages")
	boolFlag(&o.Plots, "p", "plot", "with -u, every plot point after the zones")
	fs.Var(percentFlag{&o.TruncatedMean}, "t", "add the `PERCENT`-th percentile and the mean of the zones at or below it (-t alone: 90; -t 50 and -t=50 alike)")
	alias(fs, "t", "truncated-mean")
	hiddenAlias(fs, "t", "truncated_mean") // the old spelling
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usagef("csv needs exactly one trace file, got %d arguments", len(args))
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
func loadTraceReport(e *env, path string, opts ...tracefile.Option) (*model.Trace, *tracefile.Report, error) {
	// A FIFO or device would block or never end: refuse it at once.
	if _, err := fileio.CheckInput(path); err != nil {
		return nil, nil, err
	}
	var rep tracefile.Report
	line, update := progressLine(e, "loading "+path)
	t, err := tracefile.ReadFile(path, append([]tracefile.Option{tracefile.WithReport(&rep), tracefile.WithProgress(update)}, opts...)...)
	line.Done()
	if err != nil {
		if errors.Is(err, tracefile.ErrNotTrace) && sniff(path) == kindRecording {
			return nil, nil, &wrongKindError{path: path, is: "a recorded Tracy client stream", want: "a .tracy trace file",
				hint: "turn it into a trace with 'gotracy replay " + path + " -o TRACE.tracy', or decode it with 'gotracy dump'"}
		}
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
