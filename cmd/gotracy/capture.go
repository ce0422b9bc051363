package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbols"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "capture",
		summary: "capture a running Tracy client into a .tracy file, like tracy-capture",
		usage: "capture -o FILE.tracy|s3://BUCKET/KEY [-a ADDR] [-p PORT] [-f] [-s SECONDS] [-m PERCENT] [--wait SECONDS]\n" +
			"               [--handshake-timeout SECONDS] [--idle-timeout SECONDS] [--record RAW]\n" +
			"               [--symbols client|server|none] [--symbol-path DIRS] [--http ADDR]\n" +
			"               [--keep DURATION | --keep-frames N] [--keep-slow MS] [--s3-endpoint URL] [--spool DIR]",
		setup:    setupCapture,
		graceful: true,
		help: "Stopping: the client's exit, -s, -m, --idle-timeout, or SIGINT, SIGTERM or SIGHUP end the\n" +
			"capture and save what was received (exit 0 when saved). A second signal abandons the save:\n" +
			"nothing is written. The output (and --record) is written to a temporary file beside it and\n" +
			"renamed when complete, so an interrupted or failed capture leaves no file behind, and never\n" +
			"one that blocks the next run. SIGUSR1 saves a snapshot (FILE_snapshot_TIME.tracy beside the output)\n" +
			"without stopping: the flight recorder's window with --keep or --keep-frames, else all so far.\n" +
			"With -o s3://BUCKET/KEY.tracy (or a prefix ending in /) the trace is saved in --spool, uploaded,\n" +
			"and removed from the spool once the store confirmed it; a failed upload keeps it and says where.\n" +
			"--http serves the live viewer of gotracy view -a beside the capture (its Save button writes the\n" +
			"-o file, or with an s3:// output a local PROGRAM-TIME.tracy); it stops when the capture has been saved.",
	})
}

// seconds converts a flag given in (fractional) seconds.
func seconds(name string, v float64) (time.Duration, error) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > 1e9 {
		return 0, usagef("--%s %v: want a number of seconds, 0 or more", name, v)
	}
	return time.Duration(v * float64(time.Second)), nil
}

func setupCapture(fs *flag.FlagSet) func(*env, []string) error {
	addr := fs.String("a", "127.0.0.1", "client `address`")
	port := fs.Int("p", capture.DefaultPort, "client data `port`")
	out := fs.String("o", "", "output `file` (required)")
	force := fs.Bool("f", false, "overwrite the output files if they exist")
	secs := fs.Int("s", -1, "stop after `seconds` of capture, counted from the client's welcome (-1: until the client exits)")
	mem := fs.Int("m", 0, "stop when memory use exceeds `percent` of physical memory (1..999; 0: no limit)")
	wait := fs.Float64("wait", 0, "give up (exit 1) when no client accepts a connection within `seconds` (0: wait until interrupted, as tracy-capture)")
	hsTimeout := fs.Float64("handshake-timeout", capture.DefaultHandshakeTimeout.Seconds(), "give up when a connected peer has not sent its whole welcome within `seconds`")
	idle := fs.Float64("idle-timeout", capture.DefaultIdleTimeout.Seconds(), "stop and save when the client sends nothing for `seconds` (Tracy clients send a keepalive every 5 s; 0: never)")
	record := fs.String("record", "", "also keep the raw client-to-server bytes in `file` (for gotracy replay, or a bug report)")
	sym := addSymbolFlags(fs)
	fl := addFlightFlags(fs)
	s3 := addS3Flags(fs)
	s3.addSpool(fs)
	httpAddr := fs.String("http", "", "also serve the live viewer on `host:port` (as gotracy view -a; an empty host is 127.0.0.1)")
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
		waitD, err := seconds("wait", *wait)
		if err != nil {
			return err
		}
		hsD, err := seconds("handshake-timeout", *hsTimeout)
		if err != nil {
			return err
		}
		if hsD == 0 {
			return usagef("--handshake-timeout must be more than 0 seconds: a handshake without a deadline can hang forever")
		}
		idleD, err := seconds("idle-timeout", *idle)
		if err != nil {
			return err
		}
		symOpt, closeSym, err := sym.option()
		if err != nil {
			return err
		}
		defer closeSym()
		flight, err := fl.option()
		if err != nil {
			return err
		}
		up, err := newCaptureUpload(e, *out, *force, s3)
		if err != nil {
			return err
		}
		// Refuse a bad output before minutes of capture go into it (as
		// tracy-capture does), without creating anything yet.
		if up == nil {
			if err := fileio.CheckOutput(*out, *force); err != nil {
				return err
			}
		}
		opts := []capture.Option{symOpt, capture.WithConnectTimeout(waitD), capture.WithHandshakeTimeout(hsD), capture.WithIdleTimeout(idleD)}
		if flight != nil {
			opts = append(opts, flight)
		}
		snapDir, snapBase := filepath.Dir(*out), strings.TrimSuffix(filepath.Base(*out), ".tracy")
		if up != nil {
			snapDir, snapBase = up.spool, "capture"
		}
		snaps := newSnapshotHub()
		opts = append(opts, snaps.option(out, snapDir, func() string {
			return snapBase + "_snapshot_" + time.Now().UTC().Format("20060102T150405.000") + ".tracy"
		}, up.sink(), e))
		stopSnaps := snaps.watchSignal(e.context())
		defer stopSnaps()
		if *secs >= 0 {
			// -s 0 stops right after the welcome (WithTimeLimit(0) is none).
			opts = append(opts, capture.WithTimeLimit(max(time.Duration(*secs)*time.Second, time.Nanosecond)))
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
		var rec *recordFile
		if *record != "" {
			if rec, err = createRecord(e, *record, *force); err != nil {
				return err
			}
			defer rec.abort()
			opts = append(opts, capture.WithRecord(rec.buf))
		}

		var lv *liveViewer
		if *httpAddr != "" {
			liveOut := *out
			if up != nil {
				liveOut = "" // the Save button names a local file; the final save goes to the store
			}
			if lv, err = startLiveViewer(*httpAddr, liveOut, *force); err != nil {
				return err
			}
			defer lv.close()
			lv.warnPublic(e, "capture")
			fmt.Fprintf(e.stderr, "gotracy capture: live viewer at %s\n", lv.url)
			opts = append(opts, capture.WithPublisher(lv.pub))
			lv.target = capture.JoinAddr(*addr, *port)
		}

		target := capture.JoinAddr(*addr, *port)
		fmt.Fprintf(e.stdout, "Connecting to %s...", target)
		status := newStatusLine(e.stderr, memLimit)
		opts = append(opts,
			capture.WithConnected(func(w protocol.Welcome) {
				fmt.Fprintf(e.stdout, "\nTimer resolution: %s\n", analysis.FormatTime(int64(float64(w.Resolution)*w.TimerMul)))
			}),
			capture.WithProgress(100*time.Millisecond, status.update))

		res, err := capture.Connect(e.context(), target, opts...)
		status.clear()
		if res == nil || res.Trace == nil {
			fmt.Fprintln(e.stdout)
			if in := signalCause(e); in != nil {
				return fmt.Errorf("%w before a client connected", in)
			}
			return err
		}
		if rec != nil {
			if rerr := rec.commit(); rerr != nil && err == nil {
				err = rerr
			}
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "\ngotracy capture: %s\n", describeError(err))
		}
		if res.Symbols != nil {
			fmt.Fprintln(e.stdout)
			printSymbolizeReport(e, res.Symbols, false)
		}
		// The capture cannot be repeated: only a second signal abandons
		// its save.
		stopSnaps()
		local := *out
		if up != nil {
			local = up.local(res, target)
		}
		if lv != nil && up == nil {
			// Replaces the file the viewer's Save button may have written.
			if serr := lv.finalSave(e, e.abortContext(), res); serr != nil {
				return serr
			}
		} else if serr := saveCapture(e, e.abortContext(), res, local, *force); serr != nil {
			return serr
		}
		if up != nil {
			if uerr := up.upload(e, res, local); uerr != nil {
				return uerr
			}
		}
		if err != nil {
			return &reportedError{err}
		}
		return nil
	}
}

// recordFile is capture's --record output: written as the bytes arrive,
// renamed into place when the capture ends (a recording of a cut session
// is still a complete record of what was received), removed when nothing
// was received or the save was abandoned.
type recordFile struct {
	f   *fileio.File
	buf *bufio.Writer
}

func createRecord(e *env, path string, force bool) (*recordFile, error) {
	f, err := fileio.Create(e.abortContext(), path, force)
	if err != nil {
		return nil, err
	}
	var w io.Writer = f
	if outputFault != nil {
		w = outputFault(w)
	}
	return &recordFile{f: f, buf: bufio.NewWriterSize(w, 1<<20)}, nil
}

func (r *recordFile) commit() error {
	if err := r.buf.Flush(); err != nil {
		r.f.Abort()
		return fmt.Errorf("--record %s: %w (the recording was not kept)", r.f.Name(), err)
	}
	if err := r.f.Commit(); err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	return nil
}

func (r *recordFile) abort() { r.f.Abort() }

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
			return "the trace was saved, but the session ended with the error above"
		}
		return ""
	})
}

// saveCapture prints tracy-capture's summary and writes the trace; ctx
// ending abandons the save and removes the partial file.
func saveCapture(e *env, ctx context.Context, res *capture.Result, out string, force bool) error {
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
	if err := saveTrace(ctx, out, force, t, tracefile.WithReport(&rep)); err != nil {
		fmt.Fprintln(e.stdout, " failed!")
		return err
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
