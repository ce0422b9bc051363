//go:build linux

// Command benchtracy compares gotracy with the real Tracy 0.14.0 tools on
// the same inputs, in the same run: every row of issue 13's table, measured
// as interleaved pairs (gotracy, Tracy, Tracy, gotracy, ...), printed as
// medians and ratios of wall time, CPU time (user+system, getrusage) and
// peak resident memory.
//
// It builds nothing from Tracy. Give it the release-built tools (see
// docs/DESIGN.md, "Benchmarks against Tracy", for how they must be built for
// the comparison to count):
//
//	go run ./internal/cmd/benchtracy --tracy-dir DIR [--cxx-client PATH] [--runs 9] [--big FILE.tracy]
//
// DIR holds tracy-capture, tracy-csvexport and tracy-update (or name each
// with --capture, --csvexport, --update). --cxx-client is a program linked
// with Tracy's C++ client that takes `--heavy N`, waits for a server, emits N
// `tiny` zones and prints one JSON line with "emit_seconds" (the fixtures'
// heavy mode). Rows whose tool is missing are skipped with one line saying
// why. gotracy is built from this checkout unless --gotracy names a binary.
// --gen-big FILE writes a generated trace of --big-zones zones (100 M by
// default) for the --big rows, then exits.
//
// Linux only: readiness of a client is read from /proc/net/tcp, so nothing
// connects to a client before the capture under test does.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/tracefile"
)

type config struct {
	gotracy, capture, csvexport, update, cxxClient string
	fixtures, big, tmp                             string
	runs                                           int
	rows                                           string
	timeout                                        time.Duration
}

func main() {
	var c config
	var tracyDir, genBig string
	var bigZones int
	flag.StringVar(&tracyDir, "tracy-dir", "", "directory holding tracy-capture, tracy-csvexport and tracy-update (searched recursively)")
	flag.StringVar(&c.capture, "capture", "", "tracy-capture binary")
	flag.StringVar(&c.csvexport, "csvexport", "", "tracy-csvexport binary")
	flag.StringVar(&c.update, "update", "", "tracy-update binary")
	flag.StringVar(&c.cxxClient, "cxx-client", "", "C++ Tracy client program taking --heavy N and printing a JSON line with emit_seconds")
	flag.StringVar(&c.gotracy, "gotracy", "", "gotracy binary (default: built from this checkout)")
	flag.StringVar(&c.fixtures, "fixtures", os.Getenv("GOTRACY_FIXTURES"), "fixture directory (heavy10m.tracy, heavy10m.c2s.bin, demo.c2s.bin)")
	flag.StringVar(&c.big, "big", "", "a large .tracy file (e.g. made with --gen-big) for the load rows")
	flag.IntVar(&c.runs, "runs", 9, "pairs per row")
	flag.StringVar(&c.rows, "rows", "all", "comma-separated rows to run: record,capture-cxx,capture-go,emit,load,big,replay,zone (or all)")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Minute, "bound of each measured run")
	flag.StringVar(&genBig, "gen-big", "", "write a generated trace to this file and exit")
	serve := flag.String("serve", "", "serve this recorded client stream (NAME.c2s.bin) once on --serve-port and exit: a client for manual runs of a capture tool")
	servePort := flag.Int("serve-port", 8086, "port for --serve")
	flag.IntVar(&bigZones, "big-zones", 100_000_000, "zones of the --gen-big trace")
	flag.Parse()
	if *serve != "" {
		rec, err := os.ReadFile(*serve)
		if err != nil {
			fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(*servePort))
		if err != nil {
			fatal(err)
		}
		if err := serveRecording(ln, rec, 10*time.Minute); err != nil {
			fatal(err)
		}
		return
	}
	if genBig != "" {
		if err := generate(genBig, bigZones); err != nil {
			fatal(err)
		}
		return
	}
	if tracyDir != "" {
		for _, p := range []*string{&c.capture, &c.csvexport, &c.update} {
			if *p == "" {
				*p = findTool(tracyDir, map[*string]string{&c.capture: "tracy-capture", &c.csvexport: "tracy-csvexport", &c.update: "tracy-update"}[p])
			}
		}
	}
	tmp, err := os.MkdirTemp("", "benchtracy-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	if c.gotracy == "" {
		c.gotracy = filepath.Join(tmp, "gotracy")
		out, err := exec.Command("go", "build", "-o", c.gotracy, "github.com/gotracy/gotracy/cmd/gotracy").CombinedOutput()
		if err != nil {
			fatal(fmt.Errorf("building gotracy: %v\n%s", err, out))
		}
	}
	printEnv(&c)
	want := func(row string) bool {
		return c.rows == "all" || slices.Contains(strings.Split(c.rows, ","), row)
	}
	rows := []struct {
		name string
		run  func(*config)
	}{
		{"record", rowRecordings},
		{"capture-cxx", rowCaptureCxx},
		{"capture-go", rowCaptureGo},
		{"emit", rowEmit},
		{"load", func(c *config) { rowLoad(c, filepath.Join(c.fixtures, "heavy10m.tracy")) }},
		{"big", func(c *config) {
			if c.big == "" {
				skip("big", "no --big file")
				return
			}
			rowLoad(c, c.big)
		}},
		{"replay", rowReplay},
		{"zone", rowZone},
	}
	for _, r := range rows {
		if want(r.name) {
			r.run(&c)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtracy:", err)
	os.Exit(1)
}

func skip(row, why string) { fmt.Printf("\n(row %s skipped: %s)\n", row, why) }

func findTool(dir, name string) string {
	var found string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && d.Name() == name {
			if fi, err := d.Info(); err == nil && fi.Mode()&0o111 != 0 {
				found = p
			}
		}
		return nil
	})
	return found
}

func printEnv(c *config) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("benchtracy: %d pairs per row, order alternates (A B, B A, ...); load average %s", c.runs, load)
	for _, t := range []struct{ n, p string }{{"gotracy", c.gotracy}, {"tracy-capture", c.capture},
		{"tracy-csvexport", c.csvexport}, {"tracy-update", c.update}, {"C++ client", c.cxxClient}} {
		if t.p == "" {
			t.p = "(none)"
		}
		fmt.Printf("  %-16s %s\n", t.n, t.p)
	}
}

// sample is one measured run.
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
	perZoneNs float64 // emit rows
}

// result of running one process.
func usage(ps *os.ProcessState) (cpu time.Duration, rssKB int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rssKB = ru.Maxrss
	}
	return
}

// runCmd runs argv to completion with its output discarded (or kept in
// stdout) and measures it.
func runCmd(c *config, stdout io.Writer, env []string, argv ...string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(stderr.String()))
	}
	cpu, rss := usage(cmd.ProcessState)
	return sample{wall: wall, cpu: cpu, rssKB: rss}, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// pair runs a and b c.runs times each, interleaved, alternating which goes
// first, and prints the medians.
func pair(c *config, title, nameA, nameB string, a, b func() (sample, error)) {
	fmt.Printf("\n%s\n", title)
	var sa, sb []sample
	for i := range c.runs {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			f, dst := a, &sa
			if k == 1 {
				f, dst = b, &sb
			}
			s, err := f()
			if err != nil {
				fmt.Printf("  run %d failed: %v\n", i, err)
				return
			}
			*dst = append(*dst, s)
		}
	}
	report(nameA, nameB, sa, sb)
}

func median[T int64 | float64 | time.Duration](v []T) T {
	w := slices.Clone(v)
	slices.Sort(w)
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func field[T any](s []sample, f func(sample) T) []T {
	out := make([]T, len(s))
	for i := range s {
		out[i] = f(s[i])
	}
	return out
}

func report(nameA, nameB string, sa, sb []sample) {
	line := func(name string, s []sample) {
		walls := field(s, func(x sample) time.Duration { return x.wall })
		cpus := field(s, func(x sample) time.Duration { return x.cpu })
		fmt.Printf("  %-22s wall %s (%s..%s)  cpu %s (%s..%s)  rss %s",
			name, sec(median(walls)), sec(slices.Min(walls)), sec(slices.Max(walls)),
			sec(median(cpus)), sec(slices.Min(cpus)), sec(slices.Max(cpus)),
			mb(median(field(s, func(x sample) int64 { return x.rssKB }))))
		if s[0].perZoneNs > 0 {
			z := field(s, func(x sample) float64 { return x.perZoneNs })
			fmt.Printf("  %.1f ns/zone (%.1f..%.1f)", median(z), slices.Min(z), slices.Max(z))
		}
		fmt.Println()
	}
	line(nameA, sa)
	if len(sb) == 0 {
		return
	}
	line(nameB, sb)
	// Ratios per pair, then their median: pairs ran side by side, so a
	// pair's ratio cancels most of the machine's load at that moment.
	ratios := func(f func(sample) float64) (float64, float64, float64) {
		var r []float64
		for i := range min(len(sa), len(sb)) {
			if f(sa[i]) > 0 {
				r = append(r, f(sb[i])/f(sa[i]))
			}
		}
		if len(r) == 0 {
			return 0, 0, 0
		}
		return median(r), slices.Min(r), slices.Max(r)
	}
	w, w0, w1 := ratios(func(x sample) float64 { return x.wall.Seconds() })
	u, u0, u1 := ratios(func(x sample) float64 { return x.cpu.Seconds() })
	m, _, _ := ratios(func(x sample) float64 { return float64(x.rssKB) })
	fmt.Printf("  speed-up of %s (%s / %s, per pair): wall %.2fx (%.2f..%.2f)  cpu %.2fx (%.2f..%.2f)  memory %.2fx less\n",
		nameA, nameB, nameA, w, w0, w1, u, u0, u1, m)
	if sa[0].perZoneNs > 0 {
		z, z0, z1 := ratios(func(x sample) float64 { return x.perZoneNs })
		fmt.Printf("  per zone: %.2fx (%.2f..%.2f)\n", z, z0, z1)
	}
}

func sec(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }
func mb(kb int64) string         { return fmt.Sprintf("%.0fMB", float64(kb)/1000) }

// ---- capture rows ----

// captureArgs is the command line of each capture tool writing out from a
// client on port.
func (c *config) gotracyCapture(out string, port int) []string {
	return []string{c.gotracy, "capture", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-o", out, "-f"}
}

func (c *config) tracyCapture(out string, port int) []string {
	return []string{c.capture, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-o", out, "-f"}
}

// rowRecordings: a fake client serves a recorded client stream (the real
// C++ client's bytes) to each capture tool: the same stream, byte for byte,
// with no client emitting in the measurement. Wall time is the capture
// process's, from its start (it connects at once) to the file saved.
func rowRecordings(c *config) {
	if c.capture == "" {
		skip("record", "no tracy-capture")
		return
	}
	for _, name := range []string{"heavy10m", "demo"} {
		rec, err := os.ReadFile(filepath.Join(c.fixtures, name+".c2s.bin"))
		if err != nil {
			skip("record "+name, err.Error())
			continue
		}
		out := filepath.Join(c.tmp, "rec.tracy")
		run := func(argv func(string, int) []string) func() (sample, error) {
			return func() (sample, error) { return captureRecording(c, rec, argv, out) }
		}
		pair(c, fmt.Sprintf("capture of the recorded C++ client stream %s.c2s.bin, connect to file saved", name),
			"gotracy capture", "tracy-capture", run(c.gotracyCapture), run(c.tracyCapture))
	}
}

// captureRecording serves rec on a loopback port to the capture argv starts.
func captureRecording(c *config, rec []byte, argv func(string, int) []string, out string) (sample, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sample{}, err
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() { served <- serveRecording(ln, rec, c.timeout) }()
	s, err := runCmd(c, nil, nil, argv(out, ln.Addr().(*net.TCPAddr).Port)...)
	ln.Close()
	if serr := <-served; err == nil && serr != nil {
		err = fmt.Errorf("serving the recording: %w", serr)
	}
	return s, err
}

// serveRecording plays a client: it reads the server's 12-byte hello, sends
// the whole recording, closes its sending side and reads (and drops) what
// the server sends until it closes.
func serveRecording(ln net.Listener, rec []byte, timeout time.Duration) error {
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	hello := make([]byte, 12)
	if _, err := io.ReadFull(conn, hello); err != nil {
		return fmt.Errorf("server hello: %w", err)
	}
	drained := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, conn); drained <- err }()
	if _, err := conn.Write(rec); err != nil {
		return err
	}
	conn.(*net.TCPConn).CloseWrite()
	if err := <-drained; err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		return err
	}
	return nil
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// listening reports whether something listens on port, from /proc/net/tcp
// and tcp6, without connecting (a connection would be the client's one
// session).
func listening(port int) bool {
	hex := fmt.Sprintf(":%04X ", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			fs := strings.Fields(l)
			if len(fs) > 3 && strings.HasSuffix(fs[1], strings.TrimSpace(hex)) && fs[3] == "0A" {
				return true
			}
		}
	}
	return false
}

// clientRun starts a client program on a free port, waits until it listens,
// runs the capture argv against it and waits for both. It returns the
// capture's sample (wall from capture start to file saved) and the client's
// stdout.
func clientRun(c *config, client func(port int) ([]string, []string), capture func(string, int) []string) (sample, string, error) {
	port, err := freePort()
	if err != nil {
		return sample{}, "", err
	}
	argv, env := client(port)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	cl := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var cout, cerr bytes.Buffer
	cl.Stdout, cl.Stderr = &cout, &cerr
	cl.Env = append(os.Environ(), env...)
	if err := cl.Start(); err != nil {
		return sample{}, "", err
	}
	deadline := time.Now().Add(10 * time.Second)
	for !listening(port) {
		if time.Now().After(deadline) {
			cl.Process.Kill()
			cl.Wait()
			return sample{}, "", fmt.Errorf("%s did not listen on port %d within 10 s\n%s", argv[0], port, tail(cerr.String()))
		}
		time.Sleep(2 * time.Millisecond)
	}
	s, err := runCmd(c, nil, nil, capture(filepath.Join(c.tmp, "client.tracy"), port)...)
	werr := cl.Wait()
	if err == nil && werr != nil {
		err = fmt.Errorf("client %s: %w\n%s", argv[0], werr, tail(cerr.String()))
	}
	return s, cout.String(), err
}

func (c *config) cxxHeavy(n int) func(int) ([]string, []string) {
	return func(port int) ([]string, []string) {
		return []string{c.cxxClient, "--heavy", strconv.Itoa(n)}, []string{"TRACY_PORT=" + strconv.Itoa(port)}
	}
}

func (c *config) goHeavy(n int) func(int) ([]string, []string) {
	return func(port int) ([]string, []string) {
		return []string{c.gotracy, "demo", "--heavy", strconv.Itoa(n), "--json", "-p", strconv.Itoa(port)}, nil
	}
}

func rowCaptureCxx(c *config) {
	if c.capture == "" || c.cxxClient == "" {
		skip("capture-cxx", "needs tracy-capture and --cxx-client")
		return
	}
	const n = 5_000_000
	run := func(capture func(string, int) []string) func() (sample, error) {
		return func() (sample, error) { s, _, err := clientRun(c, c.cxxHeavy(n), capture); return s, err }
	}
	pair(c, "capture of the C++ client's heavy mode, 5M zones, connect to file saved",
		"gotracy capture", "tracy-capture", run(c.gotracyCapture), run(c.tracyCapture))
}

func rowCaptureGo(c *config) {
	if c.capture == "" {
		skip("capture-go", "no tracy-capture")
		return
	}
	const n = 3_000_000
	run := func(capture func(string, int) []string) func() (sample, error) {
		return func() (sample, error) { s, _, err := clientRun(c, c.goHeavy(n), capture); return s, err }
	}
	pair(c, "capture of the Go client's heavy mode (gotracy demo --heavy), 3M zones, connect to file saved",
		"gotracy capture", "tracy-capture", run(c.gotracyCapture), run(c.tracyCapture))
}

// rowEmit: the clients' own cost per zone while the real tracy-capture
// records them, from the emit_seconds each prints.
func rowEmit(c *config) {
	if c.capture == "" || c.cxxClient == "" {
		skip("emit", "needs tracy-capture and --cxx-client")
		return
	}
	const n = 3_000_000
	run := func(client func(int) ([]string, []string)) func() (sample, error) {
		return func() (sample, error) {
			s, out, err := clientRun(c, client, c.tracyCapture)
			if err != nil {
				return s, err
			}
			var rep struct {
				EmitSeconds float64 `json:"emit_seconds"`
			}
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				if json.Unmarshal(sc.Bytes(), &rep) == nil && rep.EmitSeconds > 0 {
					break
				}
			}
			if rep.EmitSeconds <= 0 {
				return s, fmt.Errorf("client printed no emit_seconds: %q", tail(out))
			}
			s.perZoneNs = rep.EmitSeconds * 1e9 / n
			return s, nil
		}
	}
	pair(c, "emit 3M tiny zones while the real tracy-capture records (the capture's figures on the left, the clients' ns/zone on the right)",
		"Go client", "C++ client", run(c.goHeavy(n)), run(c.cxxHeavy(n)))
}

// ---- file rows ----

func rowLoad(c *config, file string) {
	if _, err := os.Stat(file); err != nil {
		skip("load", err.Error())
		return
	}
	base := filepath.Base(file)
	cmd := func(argv ...string) func() (sample, error) {
		return func() (sample, error) { return runCmd(c, io.Discard, nil, argv...) }
	}
	if c.csvexport != "" {
		pair(c, "`gotracy csv` vs `tracy-csvexport` on "+base, "gotracy csv", "tracy-csvexport",
			cmd(c.gotracy, "csv", file), cmd(c.csvexport, file))
		pair(c, "`gotracy info` vs `tracy-csvexport` (a load and a summary) on "+base, "gotracy info", "tracy-csvexport",
			cmd(c.gotracy, "info", file), cmd(c.csvexport, file))
	} else {
		skip("load csv/info", "no tracy-csvexport")
	}
	if c.update != "" {
		out := filepath.Join(c.tmp, "saved.tracy")
		pair(c, "`gotracy save` vs `tracy-update` (Zstd 3, 4 streams, both defaults) on "+base, "gotracy save", "tracy-update",
			cmd(c.gotracy, "save", file, "-o", out, "-f"), cmd(c.update, file, out))
	} else {
		skip("load save", "no tracy-update")
	}
}

// rowReplay is the in-process benchmark of the capture path: no Tracy
// counterpart (tracy-capture has no replay), so only gotracy's figures.
func rowReplay(c *config) {
	rec := filepath.Join(c.fixtures, "heavy10m.c2s.bin")
	if _, err := os.Stat(rec); err != nil {
		skip("replay", err.Error())
		return
	}
	out := filepath.Join(c.tmp, "replay.tracy")
	var s []sample
	for range c.runs {
		x, err := runCmd(c, io.Discard, nil, c.gotracy, "replay", rec, "-o", out, "-f")
		if err != nil {
			fmt.Printf("\nreplay failed: %v\n", err)
			return
		}
		s = append(s, x)
	}
	fmt.Printf("\n`gotracy replay heavy10m.c2s.bin` (in-process capture path, no Tracy counterpart)\n")
	report("gotracy replay", "", s, nil)
}

var nsOp = regexp.MustCompile(`BenchmarkZoneBeginEnd-\d+\s+\d+\s+([0-9.]+) ns/op.*?(\d+) allocs/op`)

func rowZone(c *config) {
	out, err := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkZoneBeginEnd$", "-benchmem",
		"-count", strconv.Itoa(c.runs), "github.com/gotracy/gotracy/tracy").CombinedOutput()
	if err != nil {
		fmt.Printf("\nBenchmarkZoneBeginEnd failed: %v\n%s", err, tail(string(out)))
		return
	}
	var ns []float64
	allocs := "?"
	for _, m := range nsOp.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		ns = append(ns, v)
		allocs = m[2]
	}
	if len(ns) == 0 {
		fmt.Printf("\nBenchmarkZoneBeginEnd: no result in\n%s", tail(string(out)))
		return
	}
	fmt.Printf("\nBenchmarkZoneBeginEnd (in process, %d runs): median %.1f ns (%.1f..%.1f), %s allocs/op; goal <= 25 ns\n",
		len(ns), median(ns), slices.Min(ns), slices.Max(ns), allocs)
}

// generate writes a synthetic trace of n zones for the --big rows.
func generate(path string, n int) error {
	t := synthtrace.Make(synthtrace.Spec{Zones: n, Seed: 13})
	return tracefile.WriteFile(path, t)
}
