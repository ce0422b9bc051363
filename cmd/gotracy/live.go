package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/gotracy/gotracy/protocol"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer"
)

// liveViewer is the viewer of a capture that is still running (view -a,
// capture --http, demo --view): the capture publishes snapshots to pub, the
// viewer serves the newest one (viewer.Live), and the Save button writes it
// through saver.
type liveViewer struct {
	pub    *capture.Publisher
	saver  *liveSaver
	ln     net.Listener
	h      http.Handler
	url    string
	public bool
	// target is the client's address, for the page's waiting notice.
	target string

	stop context.CancelFunc
	done chan error
}

// startLiveViewer listens on httpFlag (the --http value; loopback and a
// free port by default) and serves the live viewer until close. out is
// where Save writes (empty: a name chosen at the first save).
func startLiveViewer(httpFlag, out string, force bool) (*liveViewer, error) {
	addr, public, err := viewListenAddr(httpFlag)
	if err != nil {
		return nil, err
	}
	lv := &liveViewer{pub: capture.NewPublisher(0), saver: &liveSaver{out: out, force: force}, public: public}
	l, err := viewer.NewLive(lv.state, lv.saver.save)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	lv.ln = ln
	lv.h = l.Handler()
	if !public {
		lv.h = viewer.GuardHost(lv.h)
	}
	lv.url = viewURL(ln.Addr().(*net.TCPAddr))
	ctx, cancel := context.WithCancel(context.Background())
	lv.stop = cancel
	lv.done = make(chan error, 1)
	go func() { lv.done <- serveView(ctx, ln, lv.h) }()
	return lv, nil
}

// state is the viewer's LiveSource: the newest snapshot of the capture.
func (lv *liveViewer) state() viewer.LiveState {
	s := lv.pub.Latest()
	if s == nil {
		if lv.target != "" {
			return viewer.LiveState{Status: "connecting to " + lv.target}
		}
		return viewer.LiveState{Status: "connecting"}
	}
	st := viewer.LiveState{Trace: s.Trace, Gen: s.Gen, Final: s.Final, Events: s.Events, Zones: s.Zones, Published: s.Published, Status: "capturing"}
	if s.Final {
		st.Status = "capture ended: " + s.Stop.String()
	}
	return st
}

// close stops the server, letting requests in flight finish.
func (lv *liveViewer) close() error {
	lv.stop()
	return <-lv.done
}

// warnPublic prints the warning of a viewer that listens beyond loopback.
func (lv *liveViewer) warnPublic(e *env, cmd string) {
	if lv.public {
		fmt.Fprintf(e.stderr, "gotracy %s: warning: listening on %s, not only this machine: anyone who can reach it can read the trace\n", cmd, lv.ln.Addr())
	}
}

// liveSaver writes the live trace for the page's Save button and the
// final save, one at a time, to the same file: -o, or without it a name
// made from the program and the time, chosen at the first save so that it
// never replaces a file the user had.
type liveSaver struct {
	mu    sync.Mutex
	out   string
	force bool
	saved bool // out was written by this process: later saves replace it
}

func (s *liveSaver) save(ctx context.Context, t *model.Trace) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == "" {
		name, err := freeSaveName(t)
		if err != nil {
			return "", err
		}
		s.out = name
	}
	if err := saveTrace(ctx, s.out, s.force || s.saved, t); err != nil {
		return "", err
	}
	s.saved = true
	if abs, err := filepath.Abs(s.out); err == nil {
		return abs, nil
	}
	return s.out, nil
}

// path is where the next save goes, "" when not chosen yet.
func (s *liveSaver) path() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out, s.force || s.saved
}

// freeSaveName is PROGRAM-YYYYMMDD-HHMMSS.tracy in the working directory,
// with -2, -3 ... when taken.
func freeSaveName(t *model.Trace) (string, error) {
	prog := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, filepath.Base(t.Metadata.CaptureProgram))
	if prog == "" || prog == "." || prog == ".." {
		prog = "capture"
	}
	base := prog + "-" + time.Now().Format("20060102-150405")
	for i := 1; i < 100; i++ {
		name := base + ".tracy"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.tracy", base, i)
		}
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			if err := fileio.CheckOutput(name, false); err != nil {
				return "", err
			}
			return name, nil
		}
	}
	return "", fmt.Errorf("no free file name for the save: %s*.tracy are all taken", base)
}

// finalSave writes the finished capture (the -o of view -a and demo
// --view, the output of capture --http) with tracy-capture's summary,
// replacing an earlier Save of the same file.
func (lv *liveViewer) finalSave(e *env, ctx context.Context, res *capture.Result) error {
	lv.saver.mu.Lock()
	defer lv.saver.mu.Unlock()
	if err := saveCapture(e, ctx, res, lv.saver.out, lv.saver.force || lv.saver.saved); err != nil {
		return err
	}
	lv.saver.saved = true
	return nil
}

// liveViewFlags are view's flags for a live capture.
type liveViewFlags struct {
	addr   *string
	port   *int
	out    *string
	force  *bool
	record *string
}

func addLiveViewFlags(fs *flag.FlagSet) *liveViewFlags {
	return &liveViewFlags{
		addr:   fs.String("a", "", "capture the running Tracy client at `address` and view it live (default port 8086)"),
		port:   fs.Int("p", capture.DefaultPort, "with -a: the client's data `port`"),
		out:    fs.String("o", "", "with -a: save the capture to this .tracy `file` (the Save button, Ctrl-C and the client's exit write it)"),
		force:  fs.Bool("f", false, "overwrite the -o and --record files if they exist"),
		record: fs.String("record", "", "with -a: also keep the raw client-to-server bytes in `file` (for gotracy replay)"),
	}
}

// on reports whether view runs live: -a or -p was given.
func (f *liveViewFlags) on(fs *flag.FlagSet) bool {
	on := false
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "a" || fl.Name == "p" {
			on = true
		}
	})
	return on
}

// runViewLive is `gotracy view -a ADDR`: a capture with the live viewer
// beside it.
func runViewLive(e *env, f *liveViewFlags, httpFlag string, open bool) error {
	if *f.port <= 0 || *f.port > 65535 {
		return usagef("-p %d is not a TCP port", *f.port)
	}
	host := *f.addr
	if host == "" {
		host = "127.0.0.1"
	}
	if *f.out != "" {
		if err := fileio.CheckOutput(*f.out, *f.force); err != nil {
			return err
		}
	}
	var rec *recordFile
	var err error
	if *f.record != "" {
		if rec, err = createRecord(e, *f.record, *f.force); err != nil {
			return err
		}
		defer rec.abort()
	}
	lv, err := startLiveViewer(httpFlag, *f.out, *f.force)
	if err != nil {
		return err
	}
	defer lv.close()
	target := capture.JoinAddr(host, *f.port)
	lv.target = target
	lv.warnPublic(e, "view")
	then := "Ctrl-C to stop"
	if *f.out != "" {
		then = "Ctrl-C to stop and save " + *f.out
	}
	fmt.Fprintf(e.stdout, "gotracy view: live capture of %s at %s (%s)\n", target, lv.url, then)
	if open {
		openBrowser(e, lv.url)
	}
	opts := []capture.Option{capture.WithPublisher(lv.pub),
		capture.WithConnected(func(w protocol.Welcome) {
			fmt.Fprintf(e.stdout, "gotracy view: connected to %s (pid %d)\n", w.ProgramName, w.PID)
		})}
	if rec != nil {
		opts = append(opts, capture.WithRecord(rec.buf))
	}
	res, err := capture.Connect(e.context(), target, opts...)
	if res == nil || res.Trace == nil {
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
		fmt.Fprintf(e.stderr, "gotracy view: %s\n", describeError(err))
	}
	if *f.out != "" {
		if serr := lv.finalSave(e, e.abortContext(), res); serr != nil {
			return serr
		}
	}
	if e.context().Err() == nil {
		// The client ended the session: the page stays up with the
		// whole trace until the user stops it.
		fmt.Fprintf(e.stdout, "gotracy view: capture ended (%s); still serving %s (Ctrl-C to stop)\n", res.Stop, lv.url)
		select {
		case <-e.context().Done():
		case serr := <-lv.done:
			lv.done <- serr
		}
	}
	if err != nil {
		if *f.out != "" {
			return &reportedError{err}
		}
		return err
	}
	return nil
}
