package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/objstore"
	"github.com/gotracy/gotracy/viewer"
)

func init() {
	register(&command{
		name:     "view",
		graceful: true,
		help: "The page and everything it shows come from an HTTP API: GET /api/v1/ lists the endpoints\n" +
			"(trace, statistics, timeline, zone, find, messages, frame images, ...), documented in\n" +
			"docs/viewer-api.md; e.g. curl -s URL/api/v1/statistics gives the numbers of gotracy csv.\n" +
			"Ctrl-C, SIGTERM or SIGHUP stops the server after the requests in flight.\n\n" +
			"With two files (A, the baseline, then B) the page compares them per source location, as\n" +
			"gotracy diff does, with overlaid duration histograms; each trace's own viewer is at a/ and b/.\n" +
			"An s3:// URL is downloaded to a temporary file first (credentials from AWS_*; --s3-endpoint or\n" +
			"AWS_ENDPOINT_URL for stores other than AWS).\n\n" +
			"With -a (or -p) it captures a running Tracy client and shows the trace while it grows: the\n" +
			"timeline follows the newest data (scroll back to pause, F or the Follow button to resume).\n" +
			"The Save button or -o writes the .tracy; with -o, Ctrl-C stops the capture and saves it,\n" +
			"and a client that exits is saved at once while the page stays up until Ctrl-C.",
		summary: "open a .tracy file, or a running program (-a), in the browser: timeline, statistics, find zone, messages (also an HTTP API); two files: compare them",
		usage: "view [--http ADDR] [--open] [--s3-endpoint URL] FILE.tracy|s3://BUCKET/KEY.tracy [B.tracy]\n" +
			"   or: view -a ADDR [-p PORT] [-o FILE.tracy] [-f] [--record RAW] [--http ADDR] [--open]",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			httpAddr := fs.String("http", "", "serve on `host:port` (default 127.0.0.1 and a free port; an empty host is 127.0.0.1; any other host must be named, as in --http 0.0.0.0:8080)")
			open := fs.Bool("open", false, "open the page in the default browser")
			s3f := addS3Flags(fs)
			live := addLiveViewFlags(fs)
			return func(e *env, args []string) error {
				if live.on(fs) {
					if len(args) != 0 {
						return usagef("view -a captures a running program: give no trace file (got %q)", args[0])
					}
					return runViewLive(e, live, *httpAddr, *open)
				}
				if *live.out != "" || *live.record != "" {
					return usagef("-o and --record go with -a: they save a live capture")
				}
				if len(args) != 1 && len(args) != 2 {
					return usagef("view needs one trace file, or two to compare, got %d", len(args))
				}
				for i, a := range args {
					if !objstore.IsURL(a) {
						continue
					}
					// Downloaded whole first: the viewer reads a file.
					local, done, err := fetchS3(e, s3f, a)
					if err != nil {
						return err
					}
					defer done()
					args[i] = local
				}
				addr, public, err := viewListenAddr(*httpAddr)
				if err != nil {
					return err
				}
				// Checked before listening, so a wrong path fails before a
				// port is taken; the loader refuses non-regular files too,
				// but only after the server would be announced.
				for _, a := range args {
					if _, err := fileio.CheckInput(a); err != nil {
						return err
					}
				}
				// Listen before the (possibly long) load, so a taken port
				// fails at once rather than after a minute of decoding.
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return fmt.Errorf("cannot listen on %s: %w", addr, err)
				}
				defer ln.Close()
				var h http.Handler
				if len(args) == 2 {
					h, err = compareHandler(e, args[0], args[1])
				} else {
					h, err = viewHandler(e, args[0])
				}
				if err != nil {
					return err
				}
				if !public {
					h = viewer.GuardHost(h)
				}
				// Catch the stop signal before announcing the URL: whoever
				// reads it may stop the server at once.
				ctx, stop := viewContext(e)
				defer stop()
				url := viewURL(ln.Addr().(*net.TCPAddr))
				if public {
					fmt.Fprintf(e.stderr, "gotracy view: warning: listening on %s, not only this machine: anyone who can reach it can read the trace\n", ln.Addr())
				}
				what := filepath.Base(args[0])
				if len(args) == 2 {
					what += " vs " + filepath.Base(args[1])
				}
				fmt.Fprintf(e.stdout, "gotracy view: serving %s at %s (Ctrl-C to stop)\n", what, url)
				if *open {
					openBrowser(e, url)
				}
				return serveView(ctx, ln, h)
			}
		},
	})
}

// viewHandler loads one trace and serves its viewer.
func viewHandler(e *env, path string) (http.Handler, error) {
	// The index is built while the file is read, on the other core.
	read, use, abort := viewer.IndexWhileReading()
	t, rep, err := loadTrace(e, path, read)
	if err != nil {
		abort()
		return nil, err
	}
	// The viewer builds the report `info --json` prints
	// (tracereport.New), alongside what is left of its index.
	s, err := viewer.New(t, viewer.WithFileInfo(path, rep), use)
	if err != nil {
		return nil, err
	}
	if n := s.MemoryEvents(); n > 0 {
		// Before the address is printed, so the memory view's first
		// question never waits for its index (seconds at 10M events).
		if n >= 1_000_000 {
			fmt.Fprintf(e.stderr, "gotracy view: indexing %d memory events...\n", n)
		}
		s.PrepareMemory()
	}
	return s.Handler(), nil
}

// viewContext ends when the user asks the server to stop (the first
// SIGINT, SIGTERM or SIGHUP ends e's context: view is a graceful command);
// tests replace it.
var viewContext = func(e *env) (context.Context, context.CancelFunc) {
	return context.WithCancel(e.context())
}

// viewListenAddr turns the -http flag into an address to listen on. Like
// `go tool pprof -http`, the default is a free port on loopback; unlike a
// bare ":8080" to net.Listen, an empty host also means loopback, so the
// trace (which may hold source code and host details) is never offered to
// the network unless the user names a host that reaches it. public reports
// such a named host.
func viewListenAddr(flagVal string) (addr string, public bool, err error) {
	if flagVal == "" {
		return "127.0.0.1:0", false, nil
	}
	host, port, err := net.SplitHostPort(flagVal)
	if err != nil {
		return "", false, usagef("--http %q: expected host:port or :port, as in --http :8080 or --http 127.0.0.1:8080", flagVal)
	}
	if _, err := net.LookupPort("tcp", port); err != nil || port == "" {
		return "", false, usagef("--http %q: %q is not a TCP port", flagVal, port)
	}
	switch strings.ToLower(host) {
	case "":
		return net.JoinHostPort("127.0.0.1", port), false, nil
	case "localhost":
		// Not looked up: a hosts file can point localhost anywhere.
		return net.JoinHostPort("127.0.0.1", port), false, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return flagVal, false, nil
	}
	return flagVal, true, nil
}

// viewURL is the address to print: a wildcard listen (0.0.0.0, ::) is
// shown as loopback, which always works from this machine.
func viewURL(a *net.TCPAddr) string {
	ip := a.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), fmt.Sprint(a.Port)) + "/"
}

// serveView serves h on ln until ctx ends, then lets requests in flight
// finish (up to five seconds).
func serveView(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute, // a full statistics table of a huge trace
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// browserCommand is how --open opens a URL; tests replace it.
var browserCommand = func(url string) *exec.Cmd {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url)
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	}
	return exec.Command("xdg-open", url)
}

// openBrowser tries to show url; failing to is only a note, never an
// error: the URL is printed and the server runs anyway.
func openBrowser(e *env, url string) {
	c := browserCommand(url)
	if err := c.Start(); err != nil {
		fmt.Fprintf(e.stderr, "gotracy view: could not open a browser (%v); open %s yourself\n", err, url)
		return
	}
	go c.Wait() // reap it; its exit status says nothing about the page
}
