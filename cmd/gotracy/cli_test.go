package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// noTemps fails when a temporary output file is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(m) > 0 {
		t.Errorf("temporary files left behind: %v", m)
	}
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists after a failed run (%v)", path, err)
	}
}

// oneLine checks a failure is reported as one sentence on one line,
// beginning with the command's name.
func oneLine(t *testing.T, cmd, stderr string) {
	t.Helper()
	s := strings.TrimRight(stderr, "\n")
	if strings.Count(s, "\n") != 0 || !strings.HasPrefix(s, "gotracy "+cmd+": ") {
		t.Errorf("error is not one line from %s:\n%s", cmd, stderr)
	}
}

// Rule: every flag is written -x (one letter) or --long-name in usage lines
// and help; help lists each flag once; every usage line names only flags
// the command has, and every flag it lists.
func TestFlagConventions(t *testing.T) {
	tok := regexp.MustCompile(`(^|[\s\[|(])(-{1,2}[A-Za-z][A-Za-z0-9_-]*)`)
	for name, c := range commands {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.setup(fs)
		visible, shown := visibleFlags(fs)
		inUsage := map[string]bool{}
		for _, m := range tok.FindAllStringSubmatch(c.usage, -1) {
			spelled := m[2]
			n := strings.TrimLeft(spelled, "-")
			f := fs.Lookup(n)
			if f == nil {
				t.Errorf("%s: usage names %s, which is not a flag of the command", name, spelled)
				continue
			}
			if strings.HasPrefix(f.Usage, aliasHidden) {
				t.Errorf("%s: usage names the hidden alias %s", name, spelled)
			}
			if spelled != dashed(n) {
				t.Errorf("%s: usage spells %s, the convention is %s", name, spelled, dashed(n))
			}
			if strings.Contains(n, "_") {
				t.Errorf("%s: flag %s joins words with '_', the convention is '-'", name, spelled)
			}
			inUsage[n] = true
		}
		for _, f := range visible {
			if strings.Contains(f.Name, "_") {
				t.Errorf("%s: visible flag %s joins words with '_'", name, f.Name)
			}
			listed := inUsage[f.Name]
			for _, a := range shown[f.Name] {
				listed = listed || inUsage[a]
			}
			if !listed {
				t.Errorf("%s: flag %s is not in the usage line %q", name, dashed(f.Name), c.usage)
			}
		}
		var help bytes.Buffer
		printCommandHelp(c, &help)
		flags := help.String()
		if i := strings.Index(flags, "\nFlags:\n"); i >= 0 {
			flags = flags[i:]
		} else {
			flags = ""
		}
		flagLine := regexp.MustCompile(`(?m)^  (-[^ ,\n]+(?:, -[^ ,\n]+)*)`)
		seen := map[string]int{}
		for _, m := range flagLine.FindAllStringSubmatch(flags, -1) {
			for _, sp := range strings.Split(m[1], ", ") {
				seen[sp]++
				if n := strings.TrimLeft(sp, "-"); dashed(n) != sp {
					t.Errorf("%s help: %s, the convention is %s", name, sp, dashed(n))
				}
			}
		}
		for sp, n := range seen {
			if n != 1 {
				t.Errorf("%s help lists %s %d times", name, sp, n)
			}
		}
		for _, f := range visible {
			if seen[dashed(f.Name)] != 1 {
				t.Errorf("%s help does not list %s", name, dashed(f.Name))
			}
		}
		fs.VisitAll(func(f *flag.Flag) {
			if strings.HasPrefix(f.Usage, aliasHidden) && seen[dashed(f.Name)] != 0 {
				t.Errorf("%s help lists the hidden alias %s", name, dashed(f.Name))
			}
		})
	}
}

// The problems of issue #19 item 5, each as it was reported.
func TestHelpAndVersion(t *testing.T) {
	out, _, code := runCLI(t, "--version")
	if code != 0 || !strings.Contains(out, "Tracy 0.14.0, protocol 82") {
		t.Errorf("--version: %d %q", code, out)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		out, _, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "Commands:") {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	out, _, code = runCLI(t, "help", "help")
	if code != 0 || !strings.Contains(out, "Usage: gotracy help [COMMAND]") || !strings.Contains(out, "Exit status") {
		t.Errorf("help help: %d %q", code, out)
	}
	out, _, code = runCLI(t, "csv", "-h")
	if code != 0 || !strings.Contains(out, "Usage: gotracy csv") {
		t.Errorf("csv -h: %d %q", code, out)
	}
	if strings.Count(out, "--filter") != 1 || strings.Contains(out, "truncated_mean") {
		t.Errorf("help csv lists a flag twice or an old spelling:\n%s", out)
	}
	_, e, code := runCLI(t, "help", "nope")
	if code != 2 || !strings.Contains(e, `unknown command "nope"`) {
		t.Errorf("help nope: %d %q", code, e)
	}
	_, e, code = runCLI(t, "--bogus")
	if code != 2 || !strings.Contains(e, "unknown flag --bogus") {
		t.Errorf("--bogus: %d %q", code, e)
	}
}

// Flags go before or after the positional arguments, with their values;
// csv's -t takes its number as tracy-csvexport does ("-t 50").
func TestFlagsAnywhere(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	ref, _, code := runCLI(t, "csv", "-t=50", in)
	if code != 0 || !strings.Contains(ref, "50") {
		t.Fatalf("csv -t=50: %d", code)
	}
	for _, args := range [][]string{
		{"csv", in, "-t", "50"},
		{"csv", "-t", "50", in},
		{"csv", in, "--truncated-mean", "50"},
		{"csv", in, "--truncated_mean=50"}, // the old spelling, hidden
	} {
		out, e, code := runCLI(t, args...)
		if code != 0 || out != ref {
			t.Errorf("%q: exit %d (%s), output differs from csv -t=50", args, code, e)
		}
	}
	plain, _, _ := runCLI(t, "csv", in)
	if out, _, code := runCLI(t, "csv", in, "-t"); code != 0 || out == plain {
		t.Errorf("csv FILE -t: exit %d, output like no -t", code)
	}
	dir := t.TempDir()
	for i, args := range [][]string{
		{"save", in, "-o", "OUT", "--streams", "2"},
		{"save", "-o", "OUT", "--streams", "2", in},
		{"save", "--streams", "2", in, "-o", "OUT"},
	} {
		out := filepath.Join(dir, "o"+string(rune('0'+i))+".tracy")
		for j := range args {
			if args[j] == "OUT" {
				args[j] = out
			}
		}
		if _, e, code := runCLI(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, e)
		}
	}
}

// An existing output needs -f, for every command that writes a file.
func TestExistingOutputNeedsForce(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	raw := fixtures.Path(t, "demo.c2s.bin")
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.tracy")
	os.WriteFile(existing, []byte("keep me"), 0o644)
	pngDir := filepath.Join(dir, "frames")
	os.Mkdir(pngDir, 0o755)
	os.WriteFile(filepath.Join(pngDir, "frame000001.png"), []byte("keep me"), 0o644)
	for _, args := range [][]string{
		{"save", in, "-o", existing},
		{"replay", raw, "-o", existing},
		{"symbolize", in, "-o", existing},
		{"capture", "-o", existing, "-p", "1"},
		{"capture", "-o", filepath.Join(dir, "new.tracy"), "--record", existing, "-p", "1"},
		{"demo", "-o", existing},
		{"frames", in, "-o", pngDir},
	} {
		_, e, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(e, "already exists; use -f to overwrite it") {
			t.Errorf("%q: exit %d, stderr %q", args, code, e)
		}
		oneLine(t, args[0], e)
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Error("an existing output was changed without -f")
	}
	mustNotExist(t, filepath.Join(dir, "new.tracy"))
	for _, args := range [][]string{
		{"save", in, "-o", existing, "-f"},
		{"replay", raw, "-f", "-o", existing},
		{"frames", "-f", in, "-o", pngDir},
	} {
		if _, e, code := runCLI(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, e)
		}
	}
	if _, err := tracefile.ReadFile(existing); err != nil {
		t.Errorf("forced output: %v", err)
	}
	noTemps(t, dir)
}

// frames takes -o like every other command; --out still works, unlisted.
func TestFramesOutputFlag(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	for _, f := range []string{"-o", "--out"} {
		dir := filepath.Join(t.TempDir(), "png")
		out, e, code := runCLI(t, "frames", in, f, dir)
		if code != 0 || !strings.Contains(out, "wrote 20 frame image(s)") {
			t.Errorf("frames %s: exit %d: %s%s", f, code, out, e)
		}
	}
}

// Inputs that are not regular files are refused at once (a FIFO nobody
// writes used to block info, csv, dump and the rest forever).
func TestNonRegularInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	mkfifo(t, fifo)
	out := filepath.Join(dir, "out.tracy")
	for _, args := range [][]string{
		{"info", fifo}, {"csv", fifo}, {"frames", fifo, "-o", filepath.Join(dir, "png")}, {"save", fifo, "-o", out},
		{"symbolize", fifo, "-o", out}, {"dump", fifo}, {"replay", fifo, "-o", out},
		{"info", os.DevNull}, {"dump", os.DevNull}, {"info", dir},
		{"symbols", "resolve", "-e", fifo, "0x10"},
	} {
		done := make(chan struct{})
		var e string
		var code int
		go func() {
			defer close(done)
			_, e, code = runCLI(t, args...)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%q blocked", args)
		}
		if code != 1 || !strings.Contains(e, "not a regular file") {
			t.Errorf("%q: exit %d, stderr %q", args, code, e)
		}
		oneLine(t, args[0], e)
	}
	mustNotExist(t, out)
	noTemps(t, dir)
}

// Outputs replace only regular files: a symlink, FIFO or device at the
// output path is refused, with or without -f, and left as it was.
func TestNonRegularOutputsRefused(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	raw := fixtures.Path(t, "demo.c2s.bin")
	dir := t.TempDir()
	target := filepath.Join(dir, "target.tracy")
	os.WriteFile(target, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "link.tracy")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	fifo := filepath.Join(dir, "pipe.tracy")
	mkfifo(t, fifo)
	for _, o := range []string{link, fifo, os.DevNull} {
		for _, args := range [][]string{
			{"save", in, "-o", o}, {"save", in, "-o", o, "-f"},
			{"replay", raw, "-o", o, "-f"}, {"symbolize", in, "-o", o, "-f"},
			{"capture", "-o", o, "-f", "-p", "1"},
		} {
			_, e, code := runCLI(t, args...)
			if code != 1 || !strings.Contains(e, "not a regular file") {
				t.Errorf("%q: exit %d, stderr %q", args, code, e)
			}
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Error("the symlink's target was written")
	}
	noTemps(t, dir)
}

// A save that fails halfway (the disk fills up) writes nothing and keeps
// the file it would have replaced.
func TestDiskFull(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	raw := fixtures.Path(t, "demo.c2s.bin")
	dir := t.TempDir()
	outputFault = func(w io.Writer) io.Writer { return &fullDisk{w: w, left: 4096} }
	t.Cleanup(func() { outputFault = nil })
	existing := filepath.Join(dir, "existing.tracy")
	os.WriteFile(existing, []byte("keep me"), 0o644)
	fresh := filepath.Join(dir, "fresh.tracy")
	for _, args := range [][]string{
		{"save", in, "-o", existing, "-f"}, {"save", in, "-o", fresh},
		{"replay", raw, "-o", fresh}, {"symbolize", in, "-o", fresh},
		{"frames", in, "-o", filepath.Join(dir, "png")},
	} {
		_, e, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(e, "no space left on device") {
			t.Errorf("%q: exit %d, stderr %q", args, code, e)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Error("a failed save replaced the existing file")
	}
	mustNotExist(t, fresh)
	// frames writes one file per image, each atomically: what a failed run
	// leaves is whole images, never a cut one.
	m, _ := filepath.Glob(filepath.Join(dir, "png", "*.png"))
	for _, p := range m {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s is not a whole PNG: %v", p, err)
		}
		f.Close()
	}
	noTemps(t, dir)
	noTemps(t, filepath.Join(dir, "png"))
}

// fullDisk accepts left bytes, then fails as a full disk does.
type fullDisk struct {
	w    io.Writer
	left int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.w.Write(p[:f.left])
		f.left = 0
		return n, &os.PathError{Op: "write", Path: "disk", Err: syscall.ENOSPC}
	}
	f.left -= len(p)
	return f.w.Write(p)
}

// Files of the wrong kind are named for what they are.
func TestWrongKindOfFile(t *testing.T) {
	trace := fixtures.Path(t, "demo.tracy")
	raw := fixtures.Path(t, "demo.c2s.bin")
	_, e, code := runCLI(t, "dump", trace)
	if code != 1 || !strings.Contains(e, "is a .tracy trace file, not a recorded client stream") || strings.Contains(e, "bad handshake") {
		t.Errorf("dump of a .tracy: %d %q", code, e)
	}
	oneLine(t, "dump", e)
	for _, cmd := range []string{"info", "csv"} {
		_, e, code := runCLI(t, cmd, raw)
		if code != 1 || !strings.Contains(e, "is a recorded Tracy client stream, not a .tracy trace file") || !strings.Contains(e, "gotracy replay") {
			t.Errorf("%s of a recording: %d %q", cmd, code, e)
		}
		oneLine(t, cmd, e)
	}
	out := filepath.Join(t.TempDir(), "x.tracy")
	_, e, code = runCLI(t, "replay", trace, "-o", out)
	if code != 1 || !strings.Contains(e, "is a .tracy trace file, not a recorded client stream") {
		t.Errorf("replay of a .tracy: %d %q", code, e)
	}
	mustNotExist(t, out)
	// Garbage: no 0-byte output (a failed replay used to leave one).
	junk := filepath.Join(t.TempDir(), "junk.bin")
	os.WriteFile(junk, []byte("GIF89a not a stream at all"), 0o644)
	_, e, code = runCLI(t, "replay", junk, "-o", out)
	if code != 1 || !strings.Contains(e, `the recording does not hold a Tracy client stream: it starts with "GIF89a`) || strings.Contains(e, "replay: replay") {
		t.Errorf("replay of junk: %d %q", code, e)
	}
	oneLine(t, "replay", e)
	mustNotExist(t, out)
	_, e, code = runCLI(t, "dump", junk)
	if code != 1 || !strings.Contains(e, "starts with byte 0x47") {
		t.Errorf("dump of junk: %d %q", code, e)
	}
}

// A recording cut after Terminate, before the answers: replay saves what it
// has, warns with the counts and exits 1.
func TestReplayUnansweredWarns(t *testing.T) {
	var refs protocol.TimeRefs
	b := refs.AppendThreadContext(nil, 3)
	b = refs.AppendZoneBegin(b, 1000, 0x100)
	b = refs.AppendZoneEnd(b, 2000)
	b = protocol.AppendTerminate(b)
	dir := t.TempDir()
	raw := filepath.Join(dir, "cut.bin")
	os.WriteFile(raw, recording(t, 1, b), 0o644)
	out := filepath.Join(dir, "cut.tracy")
	_, e, code := runCLI(t, "replay", raw, "-o", out)
	if code != 1 || !strings.Contains(e, "warning:") || !strings.Contains(e, "2 requests unanswered (1 thread names, 1 source locations)") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
	if tr, err := tracefile.ReadFile(out); err != nil || tr.ZoneCount() != 1 {
		t.Errorf("the partial trace was not saved: %v", err)
	}
}

// recording builds a recorded client stream with one frame of items.
func recording(t *testing.T, mul float64, items []byte) []byte {
	t.Helper()
	w := protocol.Welcome{TimerMul: mul, InitEnd: 100, ProgramName: "cli"}
	hello, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.Write(hello)
	fw := protocol.NewFrameWriter(&out)
	fw.WriteItems(items)
	fw.Flush()
	return out.Bytes()
}

// A welcome with timer multiplier 0 is refused, not replaced by 1.0.
func TestReplayBadTimerMultiplier(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "zero.bin")
	os.WriteFile(raw, recording(t, 0, protocol.AppendTerminate(nil)), 0o644)
	out := filepath.Join(dir, "zero.tracy")
	_, e, code := runCLI(t, "replay", raw, "-o", out)
	if code != 1 || !strings.Contains(e, "timer multiplier 0; expected a positive, finite number") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
	mustNotExist(t, out)
}

// dump of a stream cut mid-frame prints what it decoded, then says where
// it stopped.
func TestDumpCutStream(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.bin")
	os.WriteFile(cut, raw[:len(raw)/2], 0o644)
	out, e, code := runCLI(t, "dump", cut)
	if code != 1 || !strings.Contains(out, "frames:") || !strings.Contains(out, "items:") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(e, "the output above covers what was decoded before") {
		t.Errorf("stderr %q", e)
	}
	oneLine(t, "dump", e)
	out, _, code = runCLI(t, "dump", "--json", cut)
	if code != 1 || !strings.HasPrefix(out, `{"program":`) {
		t.Errorf("--json: exit %d, %q", code, out)
	}
}

// A peer that does not speak Tracy: one error, saying so.
func TestCaptureNonTracyPeer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
		time.Sleep(time.Second)
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	out := filepath.Join(t.TempDir(), "x.tracy")
	_, e, code := runCLI(t, "capture", "-a", host, "-p", port, "-o", out)
	if code != 1 || !strings.Contains(e, "does not speak Tracy") || !strings.Contains(e, "HTTP server") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
	for _, bad := range []string{"bad handshake", "malformed", "dropped"} {
		if strings.Contains(e, bad) {
			t.Errorf("stderr also says %q: %q", bad, e)
		}
	}
	oneLine(t, "capture", e)
	mustNotExist(t, out)
	noTemps(t, filepath.Dir(out))
}

// --wait gives up when no client connects: exit 1, a clear message, no file.
func TestCaptureWait(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	out := filepath.Join(t.TempDir(), "x.tracy")
	start := time.Now()
	_, e, code := runCLI(t, "capture", "-p", port, "-o", out, "--wait", "0.5")
	if code != 1 || !strings.Contains(e, "nothing accepted a connection at 127.0.0.1:"+port+" within 500ms") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("--wait 0.5 took %v", el)
	}
	oneLine(t, "capture", e)
	mustNotExist(t, out)
	if _, e, code := runCLI(t, "capture", "-o", out, "--wait", "-1"); code != 2 {
		t.Errorf("--wait -1: exit %d %q", code, e)
	}
}

// symbols serve prints its endpoints, and each answers.
func TestSymbolsServeEndpoints(t *testing.T) {
	out, _, _ := runCLI(t, "help", "symbols")
	if !strings.Contains(out, "/symbolicate/v5") || !strings.Contains(out, "/symbol-table/v1/DEBUGNAME/BREAKPADID") {
		t.Errorf("help symbols does not document the endpoints:\n%s", out)
	}
	ctx, cancel := contextWithCancel()
	stdout := &lockedBuffer{}
	e := &env{stdout: stdout, stderr: io.Discard, ctx: ctx, abort: ctx}
	done := make(chan int, 1)
	go func() {
		done <- runEnv([]string{"symbols", "serve", "--symbol-path", t.TempDir(), "--http", "127.0.0.1:0"}, e, nil)
	}()
	var text string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if text = stdout.String(); strings.Count(text, "\n") >= 5 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	urls := regexp.MustCompile(`(?m)^  (POST|GET) +(http://\S+)$`).FindAllStringSubmatch(text, -1)
	if len(urls) != 2 {
		t.Fatalf("serve printed %d endpoints:\n%s", len(urls), text)
	}
	for _, u := range urls {
		url := strings.NewReplacer("DEBUGNAME", "prog", "BREAKPADID", "0123456789ABCDEF0123456789ABCDEF0").Replace(u[2])
		var resp *http.Response
		var err error
		if u[1] == "POST" {
			resp, err = http.Post(url, "application/json", strings.NewReader(`{"memoryMap":[],"stacks":[]}`))
		} else {
			resp, err = http.Get(url)
		}
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// The route exists: a known module is not required for that.
		if resp.StatusCode == http.StatusMethodNotAllowed || (u[1] == "POST" && resp.StatusCode != http.StatusOK) {
			t.Errorf("%s %s: %s", u[1], url, resp.Status)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// A missing input or output directory is said plainly, without the name of
// a temporary file the user never chose.
func TestMissingFiles(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.tracy")
	for _, cmd := range []string{"info", "csv", "dump"} {
		_, e, code := runCLI(t, cmd, missing)
		if code != 1 || !strings.Contains(e, "input "+missing+" does not exist") {
			t.Errorf("%s: exit %d %q", cmd, code, e)
		}
		oneLine(t, cmd, e)
	}
	out := filepath.Join(dir, "no", "such", "dir", "x.tracy")
	_, e, code := runCLI(t, "capture", "-o", out)
	if code != 1 || !strings.Contains(e, "cannot write output "+out+": cannot create a file in "+filepath.Dir(out)) || strings.Contains(e, ".tmp") {
		t.Errorf("capture: exit %d %q", code, e)
	}
	oneLine(t, "capture", e)
}
