package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbols"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "capture",
		summary: "capture a running Tracy client into a .tracy file, like tracy-capture",
		usage:   "capture -o FILE.tracy [-a ADDR] [-p PORT] [-f] [-s SECONDS] [-m MEMORY_PCT] [--record RAW] [--symbols client|server|none] [--symbol-path DIRS]",
		setup:   setupCapture,
	})
}

func setupCapture(fs *flag.FlagSet) func(*env, []string) error {
	addr := fs.String("a", "127.0.0.1", "client `address`")
	port := fs.Int("p", capture.DefaultPort, "client data `port`")
	out := fs.String("o", "", "output `file` (required)")
	force := fs.Bool("f", false, "overwrite the output file if it exists")
	secs := fs.Int("s", -1, "stop after `seconds` of capture (-1: until the client exits)")
	mem := fs.Int("m", 0, "stop when memory use exceeds `percent` of physical memory (1..999; 0: no limit)")
	record := fs.String("record", "", "also keep the raw client-to-server bytes in `file` (for gotracy replay, or a bug report)")
	sym := addSymbolFlags(fs)
	return func(e *env, args []string) error {
		if len(args) != 0 {
			return usagef("capture takes no positional arguments (got %q)", args[0])
		}
		if *out == "" {
			return usagef("capture needs an output file: -o FILE.tracy")
		}
		if *port <= 0 || *port > 65535 {
			return usagef("-p %d is not a TCP port", *port)
		}
		symOpt, closeSym, err := sym.option()
		if err != nil {
			return err
		}
		defer closeSym()
		if err := checkOutput(*out, *force); err != nil {
			return err
		}
		opts := []capture.Option{symOpt}
		if *secs >= 0 {
			opts = append(opts, capture.WithTimeLimit(time.Duration(*secs)*time.Second))
		}
		var memLimit uint64
		if *mem != 0 {
			n, err := capture.MemoryLimitPercent(*mem)
			if err != nil {
				return fmt.Errorf("-m %d: %w", *mem, err)
			}
			memLimit = n
			opts = append(opts, capture.WithMemoryLimit(n))
		}
		var recFile *os.File
		var recBuf *bufio.Writer
		if *record != "" {
			if err := checkOutput(*record, *force); err != nil {
				return err
			}
			f, err := os.Create(*record)
			if err != nil {
				return fmt.Errorf("--record: %w", err)
			}
			recFile, recBuf = f, bufio.NewWriterSize(f, 1<<20)
			opts = append(opts, capture.WithRecord(recBuf))
		}

		target := capture.JoinAddr(*addr, *port)
		fmt.Fprintf(e.stdout, "Connecting to %s...", target)
		status := newStatusLine(e.stderr, memLimit)
		opts = append(opts,
			capture.WithConnected(func(w protocol.Welcome) {
				fmt.Fprintf(e.stdout, "\nTimer resolution: %s\n", analysis.FormatTime(int64(float64(w.Resolution)*w.TimerMul)))
			}),
			capture.WithProgress(100*time.Millisecond, status.update))

		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		res, err := capture.Connect(ctx, target, opts...)
		status.clear()
		if recBuf != nil {
			if ferr := recBuf.Flush(); ferr != nil && err == nil {
				err = fmt.Errorf("--record: %w", ferr)
			}
			recFile.Close()
		}
		if res == nil || res.Trace == nil {
			fmt.Fprintln(e.stdout)
			return err
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "\ngotracy capture: %s\n", describeError(err))
		}
		if res.Symbols != nil {
			fmt.Fprintln(e.stdout)
			printSymbolizeReport(e, res.Symbols, false)
		}
		if serr := saveCapture(e, res, *out); serr != nil {
			return serr
		}
		if err != nil {
			return &reportedError{err}
		}
		return nil
	}
}

// symbolFlags are the flags of capture and replay that choose where
// call-stack frames are resolved.
type symbolFlags struct {
	mode, path *string
}

func addSymbolFlags(fs *flag.FlagSet) *symbolFlags {
	return &symbolFlags{
		mode: fs.String("symbols", "client", "where call-stack frames are resolved: `client` (as sent), server (resolve on this machine the frames the client left unresolved, TRACY_SYMBOL_OFFLINE_RESOLVE) or none"),
		path: fs.String("symbol-path", "", "with --symbols=server: `directories` to search for images and debug files, separated by '"+string(filepath.ListSeparator)+"'"),
	}
}

// option returns the capture option and a function closing the resolver.
func (f *symbolFlags) option() (capture.Option, func(), error) {
	mode, err := capture.ParseSymbolMode(*f.mode)
	if err != nil {
		return nil, nil, usagef("--symbols %q: want client, server or none", *f.mode)
	}
	if *f.path != "" && mode != capture.SymbolsServer {
		return nil, nil, usagef("--symbol-path needs --symbols=server")
	}
	if mode != capture.SymbolsServer {
		return capture.WithSymbols(mode, nil), func() {}, nil
	}
	r, err := symbols.New(symbols.WithSearchPath(splitList(*f.path)...))
	if err != nil {
		return nil, nil, err
	}
	return capture.WithSymbols(mode, r), func() { r.Close() }, nil
}

// reportedError is a failure already printed in full; run only sets the
// exit status.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

func init() {
	errorDescribers = append(errorDescribers, func(err error) string {
		var re *reportedError
		if errors.As(err, &re) {
			return "the capture was saved, but ended with the error above"
		}
		return ""
	})
}

// checkOutput refuses to overwrite without -f and checks that the file can
// be written before minutes of capture go into it (as tracy-capture does).
func checkOutput(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("output file %s already exists; use -f to overwrite it", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open output file %s for writing: %w", path, err)
	}
	f.Close()
	return nil
}

// saveCapture prints tracy-capture's summary and writes the trace.
func saveCapture(e *env, res *capture.Result, out string) error {
	t := res.Trace
	first := int64(0)
	if base := t.FrameSets[0].Frames; t.Metadata.OnDemand && len(base) > 2 {
		first = base[2].Start
	}
	reason := ""
	if res.Stop != capture.StopClientExit && res.Stop != 0 {
		reason = " (" + res.Stop.String() + ")"
	}
	fmt.Fprintf(e.stdout, "\nFrames: %d\nTime span: %s\nZones: %s\nElapsed time: %s%s\nSaving trace...",
		len(t.FrameSets[0].Frames), analysis.FormatTime(t.Metadata.LastTime-first), commas(uint64(t.ZoneCount())),
		analysis.FormatTime(res.Stats.Elapsed.Nanoseconds()), reason)
	var rep tracefile.Report
	if err := tracefile.WriteFile(out, t, tracefile.WithReport(&rep)); err != nil {
		fmt.Fprintln(e.stdout, " failed!")
		return fmt.Errorf("saving %s: %w", out, err)
	}
	fmt.Fprintf(e.stdout, " done!\nTrace size %s (%.2f%% ratio)\n", memSize(rep.FileBytes),
		100*float64(rep.FileBytes)/float64(max(rep.PayloadBytes, 1)))
	return nil
}

// statusLine is the live one-line status of a capture, redrawn in place
// when the output is a terminal (Tracy's capture prints nothing there
// otherwise).
type statusLine struct {
	w        io.Writer
	tty      bool
	memLimit uint64
	last     capture.Stats
	shown    bool
}

func newStatusLine(w io.Writer, memLimit uint64) *statusLine {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &statusLine{w: w, tty: tty, memLimit: memLimit}
}

func (s *statusLine) update(st capture.Stats) {
	defer func() { s.last = st }()
	if !s.tty {
		return
	}
	dt := (st.Elapsed - s.last.Elapsed).Seconds()
	if dt <= 0 {
		return
	}
	mbps := float64(st.BytesIn-s.last.BytesIn) * 8 / 1e6 / dt
	ratio := 100.0
	if st.BytesDecoded > 0 {
		ratio = 100 * float64(st.BytesIn) / float64(st.BytesDecoded)
	}
	evs := float64(st.Events-s.last.Events) / dt
	mem := memSize(int64(st.Memory))
	if s.memLimit > 0 {
		mem += " / " + memSize(int64(s.memLimit))
	}
	fmt.Fprintf(s.w, "\r\x1b[2K%s | %s received | %7.2f Mbps | %5.1f%% | %s events/s | %s zones | %s | %d query backlog",
		analysis.FormatTime(st.Elapsed.Nanoseconds()), memSize(st.BytesIn), mbps, ratio,
		commas(uint64(evs)), commas(uint64(st.Zones)), mem, st.QueryBacklog)
	s.shown = true
}

func (s *statusLine) clear() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[2K")
	}
}

// commas prints n with thousands separators, as Tracy's RealToString.
func commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// memSize prints a byte count as Tracy's MemSizeToString.
func memSize(n int64) string {
	f := float64(n)
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " bytes"
	case n < 1<<20:
		return strconv.FormatFloat(f/(1<<10), 'f', 2, 64) + " KB"
	case n < 1<<30:
		return strconv.FormatFloat(f/(1<<20), 'f', 2, 64) + " MB"
	default:
		return strconv.FormatFloat(f/(1<<30), 'f', 2, 64) + " GB"
	}
}
