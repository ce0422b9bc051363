package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/daemon"
	"github.com/gotracy/gotracy/objstore"
)

func init() {
	register(&command{
		name:    "daemon",
		summary: "capture every Tracy client that announces itself, each into its own file, like tracy-capture-daemon",
		usage: "daemon -o DIR|s3://BUCKET/PREFIX/ [-p PORT] [-m PERCENT] [--filter-name TEXT] [--filter-port PORT]\n" +
			"               [--remote] [--idle-timeout SECONDS] [--keep DURATION | --keep-frames N] [--keep-slow MS]\n" +
			"               [--s3-endpoint URL] [--spool DIR]",
		setup:    setupDaemon,
		graceful: true,
		help: "Clients are found by the UDP announcement a waiting Tracy client sends every 3 s (versions 0-3\n" +
			"of the datagram), by default only this machine's clients (--remote: any). Each capture is saved as\n" +
			"<program>_<ip>_<port>.tracy, with _1, _2, ... for a client captured again after it reconnected\n" +
			"(or when the name is taken). SIGINT, SIGTERM or SIGHUP stop every capture and save each; a second\n" +
			"signal abandons the saves in progress. SIGUSR1 saves a snapshot of every flight-recorder window\n" +
			"(--keep, --keep-frames) without stopping. With -o s3:// each trace waits in --spool until the\n" +
			"store confirmed it; what an earlier run could not upload is uploaded at start.",
	})
}

func setupDaemon(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("o", "", "output `directory`, or s3://BUCKET/PREFIX/ (required)")
	port := fs.Int("p", 8086, "UDP `port` the announcements arrive on")
	mem := fs.Int("m", 0, "stop a client's capture when its share of memory exceeds `percent` of physical memory (0: no limit)")
	filterName := fs.String("filter-name", "", "capture only programs whose name contains `text`")
	filterPort := fs.Int("filter-port", 0, "capture only clients listening on this data `port`")
	remote := fs.Bool("remote", false, "also capture clients on other machines (announcements from any address)")
	idle := fs.Float64("idle-timeout", capture.DefaultIdleTimeout.Seconds(), "stop and save a capture whose client sends nothing for `seconds` (0: never)")
	fl := addFlightFlags(fs)
	s3 := addS3Flags(fs)
	s3.addSpool(fs)
	return func(e *env, args []string) error {
		if len(args) != 0 {
			return usagef("daemon takes no positional arguments (got %q)", args[0])
		}
		if *out == "" {
			return usagef("daemon needs an output: -o DIR or -o s3://BUCKET/PREFIX/")
		}
		if *port <= 0 || *port > 65535 {
			return usagef("-p %d is not a UDP port", *port)
		}
		if *filterPort < 0 || *filterPort > 65535 {
			return usagef("--filter-port %d is not a TCP port", *filterPort)
		}
		idleD, err := seconds("idle-timeout", *idle)
		if err != nil {
			return err
		}
		flight, err := fl.option()
		if err != nil {
			return err
		}
		var memLimit uint64
		if *mem != 0 {
			if memLimit, err = capture.MemoryLimitPercent(*mem); err != nil {
				return fmt.Errorf("-m %d: %w", *mem, err)
			}
		}
		sink, err := newDaemonSink(e, *out, s3)
		if err != nil {
			return err
		}
		var d *daemon.Daemon
		snaps := newSnapshotHub()
		cfg := daemon.Config{Port: *port, Remote: *remote, FilterName: *filterName, FilterPort: *filterPort,
			Options: func(s *daemon.Session) []capture.Option {
				opts := []capture.Option{capture.WithIdleTimeout(idleD)}
				if memLimit > 0 {
					opts = append(opts, capture.WithMemoryLimit(memLimit), capture.WithMemoryMeter(func() uint64 {
						// Each client is held to its share of the heap, in
						// proportion to the data it sent.
						all := d.LiveDecoded()
						if all <= 0 {
							return 0
						}
						return uint64(float64(liveHeap()) * float64(s.Decoded()) / float64(all))
					}))
				}
				if flight != nil {
					opts = append(opts, flight, snaps.option(s, sink.dir, func() string {
						return sink.snapshotName(s)
					}, sink, e))
				}
				return opts
			},
			Finished: func(ctx context.Context, s *daemon.Session, res *capture.Result, cerr error) (string, error) {
				snaps.remove(s)
				where, err := sink.save(ctx, e, s, res)
				if err != nil {
					fmt.Fprintf(e.stderr, "gotracy daemon: %s: %s\n", s.Client.Addr(), describeError(err))
				}
				if cerr != nil && res.Stop == capture.StopError {
					fmt.Fprintf(e.stderr, "gotracy daemon: %s: the capture ended with: %s\n", s.Client.Addr(), describeError(cerr))
				}
				return where, err
			},
			Logf: func(format string, args ...any) {},
		}
		d = daemon.New(cfg)
		stopSnaps := snaps.watchSignal(e.context())
		defer stopSnaps()
		tbl := newDaemonTable(e.stderr, d)
		tblDone := make(chan struct{})
		go func() { tbl.run(e.context()); close(tblDone) }()
		fmt.Fprintf(e.stdout, "gotracy daemon: listening for Tracy clients on UDP port %d, saving to %s (Ctrl-C to stop)\n", *port, *out)
		err = d.Run(e.context(), e.abortContext())
		<-tblDone
		tbl.final()
		return err
	}
}

// liveHeap is the process's live heap (the figure capture -m uses).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
}

// daemonSink is where the daemon's traces go: a directory, or object
// storage through a local spool directory.
type daemonSink struct {
	dir   string // where files are written (the output, or the spool)
	s3    *objstore.Store
	s3URL objstore.URL
	mu    sync.Mutex
	taken map[string]bool // names chosen by running saves
}

func newDaemonSink(e *env, out string, f *s3Flags) (*daemonSink, error) {
	k := &daemonSink{taken: map[string]bool{}}
	if !objstore.IsURL(out) {
		st, err := os.Stat(out)
		if err != nil || !st.IsDir() {
			return nil, usagef("-o %s: want an existing directory or s3://BUCKET/PREFIX/", out)
		}
		k.dir = out
		return k, nil
	}
	u, err := objstore.ParseURL(out)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if u.Key != "" && !strings.HasSuffix(u.Key, "/") {
		u.Key += "/"
	}
	st, err := f.store(e)
	if err != nil {
		return nil, err
	}
	dir, err := f.spoolDir()
	if err != nil {
		return nil, err
	}
	k.dir, k.s3, k.s3URL = dir, st, u
	resumeSpool(e.context(), e, st, dir)
	return k, nil
}

// name picks the first free <program>_<ip>_<port>[_N].tracy from seq on.
func (k *daemonSink) name(ctx context.Context, s *daemon.Session) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for n := s.Seq; ; n++ {
		name := daemon.FileName(s.Client, n)
		if k.taken[name] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(k.dir, name)); err == nil {
			continue
		}
		k.taken[name] = true
		return name
	}
}

// freeObject returns the first object name from the session's number on
// that the store does not hold, asking again (with backoff, until ctx
// ends) while the store cannot answer: an object that could not be
// checked is never overwritten.
func (k *daemonSink) freeObject(ctx context.Context, e *env, s *daemon.Session, local string) (objstore.URL, error) {
	wait := 250 * time.Millisecond
	for n := s.Seq; ; {
		name := daemon.FileName(s.Client, n)
		if n == s.Seq {
			name = local // the spool's name, when free remotely too
		}
		u := k.objectURL(name)
		ok, err := k.s3.Exists(ctx, u.Bucket, u.Key)
		switch {
		case err == nil && !ok:
			return u, nil
		case err == nil:
			n++
			continue
		}
		fmt.Fprintf(e.stderr, "gotracy: checking %s: %v; retrying in %v\n", u, err, wait)
		select {
		case <-ctx.Done():
			return u, fmt.Errorf("%w (the trace waits in %s)", ctx.Err(), filepath.Join(k.dir, local))
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func (k *daemonSink) objectURL(name string) objstore.URL {
	return objstore.URL{Bucket: k.s3URL.Bucket, Key: k.s3URL.Key + name}
}

func (k *daemonSink) save(ctx context.Context, e *env, s *daemon.Session, res *capture.Result) (string, error) {
	name := k.name(ctx, s)
	defer func() { k.mu.Lock(); delete(k.taken, name); k.mu.Unlock() }()
	local := filepath.Join(k.dir, name)
	if err := saveTrace(ctx, local, false, res.Trace); err != nil {
		return "", err
	}
	if k.s3 == nil {
		return local, nil
	}
	meta := traceMeta(res.Trace, s.Client.IP.String())
	// The note first, so the trace is uploaded by a later run if this one
	// cannot.
	if err := writeNote(ctx, local, k.objectURL(name), meta); err != nil {
		return local, err
	}
	u, err := k.freeObject(ctx, e, s, name)
	if err != nil {
		return local, err
	}
	if err := spoolAndUpload(ctx, e, k.s3, local, u, meta); err != nil {
		return local, err
	}
	return u.String(), nil
}

// snapshotName is the file a flight-recorder snapshot of s is saved as.
func (k *daemonSink) snapshotName(s *daemon.Session) string {
	base := strings.TrimSuffix(daemon.FileName(s.Client, s.Seq), ".tracy")
	return base + "_snapshot_" + time.Now().UTC().Format("20060102T150405.000") + ".tracy"
}

// daemonTable is the live table: redrawn in place on a terminal, one line
// per change of state otherwise.
type daemonTable struct {
	w     io.Writer
	tty   bool
	d     *daemon.Daemon
	lines int
	state map[string]daemon.State
}

func newDaemonTable(w io.Writer, d *daemon.Daemon) *daemonTable {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &daemonTable{w: w, tty: tty, d: d, state: map[string]daemon.State{}}
}

func (t *daemonTable) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t.draw()
	}
}

func rowKey(i daemon.Info) string { return fmt.Sprintf("%s#%d", i.Client.Addr(), i.Seq) }

func (t *daemonTable) draw() {
	rows := t.d.Sessions()
	if !t.tty {
		for _, r := range rows {
			if st, ok := t.state[rowKey(r)]; !ok || st != r.State {
				t.state[rowKey(r)] = r.State
				fmt.Fprintln(t.w, formatRow(r))
			}
		}
		return
	}
	var b strings.Builder
	if t.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", t.lines)
	}
	fmt.Fprintf(&b, "\r\x1b[2K%-40s %-10s %9s %10s %9s  %s\n", "CLIENT", "STATE", "MB/s", "MB", "SECONDS", "FILE")
	for _, r := range rows {
		b.WriteString("\r\x1b[2K" + formatRow(r) + "\n")
	}
	t.lines = len(rows) + 1
	io.WriteString(t.w, b.String())
}

func formatRow(r daemon.Info) string {
	client := fmt.Sprintf("%s %s", r.Client.Program, r.Client.Addr())
	if r.Seq > 0 {
		client += fmt.Sprintf(" #%d", r.Seq)
	}
	state := r.State.String()
	if r.Err != nil {
		state = "failed"
	}
	rate := r.Rate / 1e6
	if r.State >= daemon.Saving {
		rate = 0
	}
	return fmt.Sprintf("%-40s %-10s %9.2f %10.2f %9.1f  %s", client, state, rate, float64(r.BytesIn)/1e6, r.Elapsed.Seconds(), r.Saved)
}

// final prints the last state of every session.
func (t *daemonTable) final() {
	t.draw()
}
