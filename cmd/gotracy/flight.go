package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/objstore"
	"github.com/gotracy/gotracy/tracefile"
)

// flightFlags are the flight-recorder flags of capture and daemon.
type flightFlags struct {
	keep, keepSlow *string
	keepFrames     *int
}

func addFlightFlags(fs *flag.FlagSet) *flightFlags {
	return &flightFlags{
		keep: fs.String("keep", "", "flight recorder: keep only the frames of the last `duration` (30s, 5m, or seconds) in memory; older ones are dropped whole.\n"+
			"Memory: the window's zones, duration × zones/s × 22 bytes (30 s at 11M zones/s: 7.3 GB), times 1.25-1.5 for the\n"+
			"collector's slack (RSS was 1.23-1.46x the window over a 1-hour soak), plus a few 5.8 MB chunks per thread: the\n"+
			"chunks of dropped zones are reused for new ones, and a snapshot (LZ4) lets go of each chunk once written\n"+
			"(while one is written, what the capture dropped and it has not written yet is held too). Messages, plot points,\n"+
			"allocations, locks, context switches, CPU spans, samples and GPU zones go with their frames (≤ 1.25 windows),\n"+
			"and so do dropped zones' texts, names, values and colours and the strings only they and messages used"),
		keepFrames: fs.Int("keep-frames", 0, "flight recorder: keep only the last `N` frames in memory"),
		keepSlow:   fs.String("keep-slow", "", "flight recorder: also keep every frame slower than `ms` milliseconds, with its zones"),
	}
}

// parseKeep reads a duration given as Go's 30s/5m/1h30m or a bare number
// (seconds for --keep, milliseconds for --keep-slow).
func parseKeep(name, v string, unit time.Duration) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if !(f > 0) || f > 1e12 {
			return 0, usagef("--%s %s: want a positive number", name, v)
		}
		return time.Duration(f * float64(unit)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usagef("--%s %q: want a positive duration such as 30s, 5m or 1h", name, v)
	}
	return d, nil
}

// option returns the capture option, or nil when no flight-recorder flag
// was given.
func (f *flightFlags) option() (capture.Option, error) {
	keep, err := parseKeep("keep", *f.keep, time.Second)
	if err != nil {
		return nil, err
	}
	slow, err := parseKeep("keep-slow", *f.keepSlow, time.Millisecond)
	if err != nil {
		return nil, err
	}
	if *f.keepFrames < 0 {
		return nil, usagef("--keep-frames %d: want a positive number of frames", *f.keepFrames)
	}
	if keep == 0 && *f.keepFrames == 0 {
		if slow > 0 {
			return nil, usagef("--keep-slow needs --keep or --keep-frames: it keeps slow frames beyond the window")
		}
		return nil, nil
	}
	if os.Getenv("GOGC") == "" {
		// The window is pointer-free zone chunks the collector does not
		// scan, so collecting often is cheap; with the default GOGC=100
		// the garbage each trim leaves could double the process's memory.
		debug.SetGCPercent(25)
	}
	return capture.WithFlightRecorder(capture.FlightRecorder{Keep: keep, KeepFrames: *f.keepFrames, KeepSlow: slow}), nil
}

// snapshotHub is how SIGUSR1 (and the daemon's "s" + Enter) reach the
// running captures: each registers its request channel and where its
// snapshots go.
type snapshotHub struct {
	mu      sync.Mutex
	targets map[any]*snapTarget
}

type snapTarget struct {
	req  chan chan<- *model.Trace
	name func() string // the snapshot's file name
	dir  string
	sink *daemonSink // nil for capture
	e    *env
}

func newSnapshotHub() *snapshotHub { return &snapshotHub{targets: map[any]*snapTarget{}} }

// option registers a capture under key (a daemon session, or capture's
// output) and returns its WithSnapshots option. Snapshots are saved in dir
// as name() and, with a sink on object storage, uploaded.
func (h *snapshotHub) option(key any, dir string, name func() string, sink *daemonSink, e *env) capture.Option {
	tg := &snapTarget{req: make(chan chan<- *model.Trace), name: name, dir: dir, sink: sink, e: e}
	h.mu.Lock()
	h.targets[key] = tg
	h.mu.Unlock()
	return capture.WithSnapshots(tg.req)
}

// remove forgets the capture registered under key once it ended.
func (h *snapshotHub) remove(key any) {
	h.mu.Lock()
	delete(h.targets, key)
	h.mu.Unlock()
}

// saveAll asks every registered capture for a snapshot and saves each.
// ended closes when the command is done with its captures: a request no
// capture took by then is dropped, and one a capture took is still saved.
func (h *snapshotHub) saveAll(ctx context.Context, ended <-chan struct{}) {
	h.mu.Lock()
	tgs := make([]*snapTarget, 0, len(h.targets))
	for _, tg := range h.targets {
		tgs = append(tgs, tg)
	}
	h.mu.Unlock()
	for _, tg := range tgs {
		reply := make(chan *model.Trace, 1)
		select {
		case tg.req <- reply:
		case <-time.After(5 * time.Second):
			continue // that capture has ended or is stuck in a long frame
		case <-ended:
			return
		case <-ctx.Done():
			return
		}
		var t *model.Trace
		select {
		case t = <-reply: // a capture answers every request it took, even as it ends
		case <-time.After(time.Minute):
			continue
		}
		path := filepath.Join(tg.dir, tg.name())
		// The snapshot is written once: its zone chunks are let go as they
		// are written, so the ones the capture has dropped since are freed
		// then, not after the whole window is saved. LZ4 (Tracy's own
		// default): the window stays in memory until it is written, and
		// LZ4 writes it about twice as fast as Zstd 3
		// (BenchmarkWriteHeavy10mCodec).
		if err := saveTrace(ctx, path, false, t, tracefile.WithReleaseZones(), tracefile.WithLZ4()); err != nil {
			fmt.Fprintf(tg.e.stderr, "gotracy: snapshot: %s\n", describeError(err))
			continue
		}
		if tg.sink != nil && tg.sink.s3 != nil {
			u := tg.sink.objectURL(filepath.Base(path))
			if err := spoolAndUpload(ctx, tg.e, tg.sink.s3, path, u, traceMeta(t, "")); err != nil {
				fmt.Fprintf(tg.e.stderr, "gotracy: snapshot: %s\n", describeError(err))
			}
			continue
		}
		fmt.Fprintf(tg.e.stdout, "snapshot saved: %s\n", path)
	}
}

// watchSignal saves snapshots on SIGUSR1 (where it exists) and, when
// standard input is a terminal, on a line "s" typed there. The function it
// returns stops the watching and waits for a snapshot being saved: one
// asked for just before the capture ended is still written whole (a user
// who asked for it expects it), and none is begun afterwards.
func (h *snapshotHub) watchSignal(ctx context.Context) func() {
	watch, cancel := context.WithCancel(ctx)
	ended := make(chan struct{})
	var (
		mu     sync.Mutex
		done   bool
		saving sync.WaitGroup
	)
	save := func() {
		mu.Lock()
		if done {
			mu.Unlock()
			return
		}
		saving.Add(1)
		mu.Unlock()
		defer saving.Done()
		h.saveAll(ctx, ended)
	}
	ch, stop := notifySnapshotSignal()
	go func() {
		for {
			select {
			case <-watch.Done():
				return
			case <-ch:
				save()
			}
		}
	}()
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		go func() {
			sc := bufio.NewScanner(os.Stdin)
			for sc.Scan() {
				if watch.Err() != nil {
					return
				}
				if strings.TrimSpace(sc.Text()) == "s" {
					save()
				}
			}
		}()
	}
	var once sync.Once // the commands call it on their way out and on defer
	return func() {
		once.Do(func() {
			stop()
			cancel()
			mu.Lock()
			done = true
			mu.Unlock()
			close(ended)
		})
		saving.Wait()
	}
}

var _ = objstore.IsURL
