package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/symbols"
)

func init() {
	register(&command{
		name:    "symbols",
		summary: "resolve addresses (addr2line-compatible) or serve symbols over HTTP",
		usage: "symbols resolve -e BINARY [-f] [-i] [-C] [-a] [-p] [-s] [--symbol-path DIRS] [--debug-dir DIRS]\n" +
			"                       [--substitute 'REGEX;REPL'] [--debuginfod URL] [ADDR...]\n" +
			"       gotracy symbols serve --symbol-path DIRS [--http ADDR]",
		setup:    setupSymbols,
		graceful: true,
		help: "resolve reads addresses from the arguments or, without any, one per line from standard\n" +
			"input, and prints what binutils addr2line prints.\n\n" +
			"serve answers, until SIGINT, SIGTERM or SIGHUP, on the --http address:\n" +
			symbolEndpointHelp("ADDR"),
	})
	errorDescribers = append(errorDescribers, func(err error) string {
		switch {
		case errors.Is(err, symbols.ErrBuildIDMismatch):
			return err.Error() + " (a different build than the one profiled; it was not used)"
		}
		return ""
	})
}

type symbolsFlags struct {
	exe        string
	functions  bool
	inlines    bool
	demangle   bool
	addresses  bool
	pretty     bool
	basenames  bool
	symPath    string
	debugDirs  string
	substitute multiFlag
	debuginfod string
	httpAddr   string
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func setupSymbols(fs *flag.FlagSet) func(e *env, args []string) error {
	var f symbolsFlags
	fs.StringVar(&f.exe, "e", "a.out", "resolve: the `binary` (addr2line -e)")
	fs.BoolVar(&f.functions, "f", false, "resolve: print function names")
	fs.BoolVar(&f.inlines, "i", false, "resolve: print inlined frames too")
	fs.BoolVar(&f.demangle, "C", false, "resolve: demangle C++ and Rust names")
	fs.BoolVar(&f.addresses, "a", false, "resolve: print each address before its frames")
	fs.BoolVar(&f.pretty, "p", false, "resolve: print each address's frames on one line")
	fs.BoolVar(&f.basenames, "s", false, "resolve: print file base names only")
	fs.StringVar(&f.symPath, "symbol-path", "", "`directories` to search, separated by '"+string(filepath.ListSeparator)+"'")
	fs.StringVar(&f.debugDirs, "debug-dir", "/usr/lib/debug", "resolve: global debug `directories` (build-id trees), separated by '"+string(filepath.ListSeparator)+"'")
	fs.Var(&f.substitute, "substitute", "resolve: path substitution 'REGEX;REPLACEMENT' (repeatable)")
	fs.StringVar(&f.debuginfod, "debuginfod", "", "resolve: debuginfod server `URL`")
	fs.StringVar(&f.httpAddr, "http", "127.0.0.1:8001", "serve: listen `address`")
	return func(e *env, args []string) error {
		if len(args) == 0 {
			return usagef("symbols: want 'resolve' or 'serve'")
		}
		switch args[0] {
		case "resolve":
			e.exitOnSignal()
			return symbolsResolve(e, &f, args[1:], os.Stdin)
		case "serve":
			if len(args) > 1 {
				return usagef("symbols serve: unexpected arguments %q", args[1:])
			}
			return symbolsServe(e, &f)
		}
		return usagef("symbols: unknown subcommand %q (want resolve or serve)", args[0])
	}
}

func splitList(s string) []string {
	var out []string
	for _, d := range filepath.SplitList(s) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

func symbolsResolve(e *env, f *symbolsFlags, addrs []string, stdin io.Reader) error {
	opts := []symbols.Option{
		symbols.WithSearchPath(splitList(f.symPath)...),
		symbols.WithDebugDirs(splitList(f.debugDirs)...),
		symbols.WithDemangle(f.demangle),
		symbols.WithInlines(f.inlines),
		symbols.WithAddr2line(true),
		symbols.WithMappedFiles(true),
	}
	for _, s := range f.substitute {
		o, err := symbols.ParseSubstitution(s)
		if err != nil {
			return usagef("%v", err)
		}
		opts = append(opts, o)
	}
	if f.debuginfod != "" {
		opts = append(opts, symbols.WithDebuginfod(f.debuginfod, nil, ""))
	}
	r, err := symbols.New(opts...)
	if err != nil {
		return usagef("%v", err)
	}
	defer r.Close()
	if st, err := os.Stat(f.exe); err == nil && !st.Mode().IsRegular() {
		return &fileio.NotRegularError{Path: f.exe, Kind: fileio.Kind(st.Mode())}
	}
	img := symbols.Image{Path: f.exe}
	mod, err := r.Module(img)
	if err != nil {
		// addr2line refuses to start without the binary.
		return fmt.Errorf("symbols resolve: %w", err)
	}
	// A resolve run is short and its index is live to the end: collecting
	// more rarely saves a fifth of a cold run's CPU. The memory limit
	// keeps the collector working when a huge binary needs it.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(2 << 30))
	w := bufio.NewWriterSize(e.stdout, 256<<10)
	defer w.Flush()
	p := a2lPrinter{f: f, w: w}
	// Addresses are resolved in batches, on the Resolver's workers: one
	// Lookup per line costs a round of locks and lookups per address and
	// leaves the other cores idle.
	var batch, rel []uint64
	// One session for the whole input: binutils' answers for a function
	// depend on the queries before (see symbols.WithAddr2line).
	sess := r.Addr2line(img)
	resolve := func() {
		rel = rel[:0]
		for _, a := range batch {
			rel = append(rel, a-mod.Base)
		}
		for i, res := range sess.Resolve(context.Background(), rel) {
			p.print(batch[i], res)
		}
		batch = batch[:0]
	}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		a, err := parseAddr(s)
		if err != nil {
			// addr2line prints unparsable input as address 0.
			a = 0
		}
		batch = append(batch, a)
	}
	if len(addrs) > 0 {
		for _, s := range addrs {
			add(s)
		}
		resolve()
		return nil
	}
	in := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := in.ReadString('\n')
		add(line)
		// Answer what has arrived once the input has no more lines ready
		// (or a batch is full): callers use us as a coprocess and wait for
		// each answer before sending the next address, while a pipe full of
		// addresses is read and answered a buffer at a time.
		if err != nil || in.Buffered() == 0 || len(batch) >= 8192 {
			resolve()
			if ferr := w.Flush(); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func parseAddr(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return strconv.ParseUint(s, 16, 64)
}

type a2lPrinter struct {
	f *symbolsFlags
	w *bufio.Writer
}

// print writes one address the way binutils addr2line does, including its
// "??" conventions, so scripts written for addr2line parse us unchanged.
func (p *a2lPrinter) print(addr uint64, res symbols.Result) {
	f, w := p.f, p.w
	if f.addresses {
		var b [18]byte
		h := strconv.AppendUint(b[:0], addr, 16)
		w.WriteString("0x0000000000000000"[:18-len(h)])
		w.Write(h)
		if f.pretty {
			w.WriteString(": ")
		} else {
			w.WriteByte('\n')
		}
	}
	if len(res.Frames) == 0 {
		if f.functions {
			if f.pretty {
				w.WriteString("?? ")
			} else {
				w.WriteString("??\n")
			}
		}
		w.WriteString("??:0\n")
		return
	}
	for i, fr := range res.Frames {
		if i > 0 && f.pretty {
			w.WriteString(" (inlined by) ")
		}
		if f.functions {
			name := fr.Function
			if name == "" {
				name = "??"
			}
			w.WriteString(name)
			if f.pretty {
				w.WriteString(" at ")
			} else {
				w.WriteByte('\n')
			}
		}
		file := fr.File
		if file == "" && !fr.EmptyFile {
			file = "??"
		} else if f.basenames && file != "" {
			file = filepath.Base(file)
		}
		w.WriteString(file)
		w.WriteByte(':')
		if fr.Line == 0 {
			w.WriteString("?\n")
		} else {
			var b [24]byte
			w.Write(strconv.AppendInt(b[:0], int64(fr.Line), 10))
			if d := res.Frames[0].Discriminator; d != 0 {
				// binutils repeats the innermost row's discriminator on
				// every inlined-by frame; so do we, for byte-identical output.
				w.WriteString(" (discriminator ")
				w.Write(strconv.AppendInt(b[:0], int64(d), 10))
				w.WriteByte(')')
			}
			w.WriteByte('\n')
		}
	}
}

// symbolEndpointHelp lists what symbols.Server answers, for the help and
// for serve's first lines (TestSymbolsServeEndpoints requests each one).
func symbolEndpointHelp(addr string) string {
	return "  POST http://" + addr + "/symbolicate/v5\n" +
		"       symbolication API v5 of the Firefox profiler and samply: JSON {memoryMap, stacks} in, frames out\n" +
		"  GET  http://" + addr + "/symbol-table/v1/DEBUGNAME/BREAKPADID\n" +
		"       the module's symbol table as JSON (?format=binary for the compact form)\n"
}

func symbolsServe(e *env, f *symbolsFlags) error {
	dirs := splitList(f.symPath)
	if len(dirs) == 0 {
		return usagef("symbols serve: --symbol-path is required")
	}
	r, err := symbols.New(symbols.WithSearchPath(dirs...), symbols.WithConfinement())
	if err != nil {
		return usagef("%v", err)
	}
	defer r.Close()
	ln, err := net.Listen("tcp", f.httpAddr)
	if err != nil {
		return fmt.Errorf("symbols serve: %w", err)
	}
	fmt.Fprintf(e.stdout, "serving symbols from %s on http://%s (stop with Ctrl-C)\n%s", strings.Join(dirs, ", "), ln.Addr(),
		symbolEndpointHelp(ln.Addr().String()))
	// The symbols package sets the limits and timeouts (see Server).
	srv := symbols.NewServer(r).HTTPServer()
	ctx := e.context()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("symbols serve: %w", err)
	}
	return nil
}
