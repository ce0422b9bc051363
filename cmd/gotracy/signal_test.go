//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// TestMain lets the tests run this very binary as the gotracy command
// (GOTRACY_TEST_MAIN=1), so signals reach a real process with the real
// signal handling. GOTRACY_TEST_SLOW_SAVE makes every output write slow
// and announces the first one on stderr, so a test can signal mid-save.
func TestMain(m *testing.M) {
	if os.Getenv("GOTRACY_TEST_MAIN") == "1" {
		signalsReady = func() { fmt.Fprintln(os.Stderr, "gotracy-test: signals ready") }
		if os.Getenv("GOTRACY_TEST_SLOW_SAVE") == "1" {
			var once sync.Once
			outputFault = func(w io.Writer) io.Writer {
				return writerFunc(func(p []byte) (int, error) {
					once.Do(func() { fmt.Fprintln(os.Stderr, "gotracy-test: saving") })
					time.Sleep(300 * time.Millisecond)
					return w.Write(p)
				})
			}
		}
		main()
		return
	}
	os.Exit(m.Run())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
}

// gotracy starts this test binary as `gotracy args...`.
func gotracy(t *testing.T, extraEnv []string, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(exe, args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), "GOTRACY_TEST_MAIN=1"), extraEnv...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *proc) waitFor(t *testing.T, what string, in func() string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(in(), what) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 60 s; stdout %q, stderr %q", what, p.stdout.String(), p.stderr.String())
		}
		select {
		case <-p.done:
			if !strings.Contains(in(), what) {
				t.Fatalf("exited before %q; stdout %q, stderr %q", what, p.stdout.String(), p.stderr.String())
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (p *proc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("did not exit; stdout %q, stderr %q", p.stdout.String(), p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *proc) signal(t *testing.T, s os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		t.Fatal(err)
	}
}

// streamingClient is a Tracy client that sends a frame mark every 10 ms
// until the server ends the session, for as many sessions as are opened.
func streamingClient(t *testing.T) (host, port string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				w := protocol.Welcome{TimerMul: 1, InitEnd: 1000, Resolution: 10, ProgramName: "signal-test"}
				if protocol.ClientHandshake(c, &w, nil) != nil {
					return
				}
				closed := make(chan struct{})
				go func() { io.Copy(io.Discard, c); close(closed) }()
				fw := protocol.NewFrameWriter(c)
				for i := 0; ; i++ {
					select {
					case <-closed:
						return
					case <-time.After(10 * time.Millisecond):
					}
					if fw.WriteItems(protocol.AppendFrameMarkMsg(nil, int64(2000+i*1000), 0)) != nil || fw.Flush() != nil {
						return
					}
				}
			}()
		}
	}()
	h, p, _ := net.SplitHostPort(ln.Addr().String())
	return h, p
}

func tempsIn(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	return m
}

// SIGINT, SIGTERM and SIGHUP each end a running capture cleanly: the
// trace so far is saved, the exit status is 0, no temporary file is left.
func TestCaptureSignalsSave(t *testing.T) {
	host, port := streamingClient(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "sig.tracy")
			raw := filepath.Join(dir, "sig.raw")
			p := gotracy(t, nil, "capture", "-a", host, "-p", port, "-o", out, "--record", raw)
			p.waitFor(t, "Timer resolution", p.stdout.String)
			time.Sleep(200 * time.Millisecond)
			p.signal(t, sig)
			if code := p.exit(t); code != 0 {
				t.Fatalf("exit %d; stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
			}
			tr, err := tracefile.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tr.FrameSets[0].Frames); n < 5 {
				t.Errorf("saved %d frames", n)
			}
			if !strings.Contains(p.stdout.String(), "(interrupted)") {
				t.Errorf("summary does not say the capture was interrupted: %q", p.stdout.String())
			}
			f, err := os.Open(raw)
			if err != nil {
				t.Fatalf("--record: %v", err)
			}
			res, _ := capture.Replay(context.Background(), f)
			f.Close()
			if res == nil || res.Trace == nil || len(res.Trace.FrameSets[0].Frames) < len(tr.FrameSets[0].Frames) {
				t.Errorf("the recording does not replay to the saved frames")
			}
			if m := tempsIn(dir); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}

// A second signal during the save abandons it: no output, no temporary
// file, exit status 128+signal.
func TestCaptureSecondSignalAbandonsSave(t *testing.T) {
	host, port := streamingClient(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "two.tracy")
	p := gotracy(t, []string{"GOTRACY_TEST_SLOW_SAVE=1"}, "capture", "-a", host, "-p", port, "-o", out)
	p.waitFor(t, "Timer resolution", p.stdout.String)
	time.Sleep(100 * time.Millisecond)
	p.signal(t, syscall.SIGTERM)
	p.waitFor(t, "gotracy-test: saving", p.stderr.String)
	p.signal(t, syscall.SIGTERM)
	if code := p.exit(t); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d; stderr %q", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "interrupted by SIGTERM (a second time); nothing written") {
		t.Errorf("stderr %q", p.stderr.String())
	}
	mustNotExist(t, out)
	if m := tempsIn(dir); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// A signal while waiting for a client: nothing written, 128+signal.
func TestCaptureSignalBeforeConnect(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "none.tracy")
	p := gotracy(t, nil, "capture", "-p", port, "-o", out, "--record", filepath.Join(dir, "none.raw"))
	p.waitFor(t, "Connecting to", p.stdout.String)
	time.Sleep(200 * time.Millisecond)
	p.signal(t, syscall.SIGHUP)
	if code := p.exit(t); code != 128+int(syscall.SIGHUP) {
		t.Errorf("exit %d; stderr %q", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "interrupted by SIGHUP before a client connected; nothing written") {
		t.Errorf("stderr %q", p.stderr.String())
	}
	if m, _ := os.ReadDir(dir); len(m) != 0 {
		t.Errorf("files left: %v", m)
	}
}

// kill -9 in the middle of a save cannot clean up: it leaves no output
// file (only a temporary one), the next capture to the same path is not
// blocked by it, and removes it.
func TestCaptureKilledDuringSave(t *testing.T) {
	host, port := streamingClient(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "killed.tracy")
	p := gotracy(t, []string{"GOTRACY_TEST_SLOW_SAVE=1"}, "capture", "-a", host, "-p", port, "-o", out)
	p.waitFor(t, "Timer resolution", p.stdout.String)
	p.signal(t, syscall.SIGINT)
	p.waitFor(t, "gotracy-test: saving", p.stderr.String)
	p.signal(t, syscall.SIGKILL)
	p.exit(t)
	mustNotExist(t, out)
	stale := tempsIn(dir)
	if len(stale) != 1 {
		t.Fatalf("want the killed save's temporary file, have %v", stale)
	}
	q := gotracy(t, nil, "capture", "-a", host, "-p", port, "-o", out, "-s", "0")
	if code := q.exit(t); code != 0 {
		t.Fatalf("the next capture: exit %d; stderr %q", code, q.stderr.String())
	}
	if _, err := tracefile.ReadFile(out); err != nil {
		t.Errorf("the next capture's output: %v", err)
	}
	if m := tempsIn(dir); len(m) != 0 {
		t.Errorf("the stale temporary file was not removed: %v", m)
	}
}

// A command that writes no file stops at the first signal.
func TestPlainCommandStopsAtFirstSignal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "dump", "-")
	cmd.Env = append(os.Environ(), "GOTRACY_TEST_MAIN=1")
	cmd.Stdin = r
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "gotracy-test: signals ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("dump ignored SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 || !strings.Contains(stderr.String(), "interrupted by SIGTERM") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// save, replay and symbolize stop at the first signal and write nothing,
// also mid-save: the existing output stays as it was.
func TestSaveSignalWritesNothing(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	raw := fixtures.Path(t, "demo.c2s.bin")
	for _, args := range [][]string{{"save", in}, {"replay", raw}, {"symbolize", in}} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.tracy")
			os.WriteFile(out, []byte("keep me"), 0o644)
			p := gotracy(t, []string{"GOTRACY_TEST_SLOW_SAVE=1"}, append(args, "-o", out, "-f")...)
			p.waitFor(t, "gotracy-test: saving", p.stderr.String)
			p.signal(t, syscall.SIGINT)
			if code := p.exit(t); code != 130 {
				t.Errorf("exit %d; stderr %q", code, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "interrupted by SIGINT; nothing written") {
				t.Errorf("stderr %q", p.stderr.String())
			}
			if b, _ := os.ReadFile(out); string(b) != "keep me" {
				t.Error("the existing output changed")
			}
			if m := tempsIn(dir); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}
