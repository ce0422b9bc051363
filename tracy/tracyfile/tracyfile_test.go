//go:build !notracy

package tracyfile_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

var (
	buildOnce sync.Once
	progPath  string
	buildErr  error
)

// shortprog builds testdata/shortprog once per test binary.
func shortprog(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the test program")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "shortprog")
		if err != nil {
			buildErr = err
			return
		}
		progPath = filepath.Join(dir, "shortprog")
		out, err := exec.Command(goTool, "build", "-o", progPath, "./testdata/shortprog").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building shortprog: %v", buildErr)
	}
	return progPath
}

func zonesNamed(tr *model.Trace, name string) int {
	n := 0
	for i := range tr.Threads {
		th := &tr.Threads[i]
		model.Walk(&th.Zones, func(z, depth int) bool {
			if tr.ZoneName(th.Zones.At(z)) == name {
				n++
			}
			return true
		})
	}
	return n
}

// TestShortProgramFile: a short program with tracyfile.Start writes every
// zone to the file, and the zones carry the Begin call's site.
func TestShortProgramFile(t *testing.T) {
	prog := shortprog(t)
	out := filepath.Join(t.TempDir(), "short.tracy")
	cmd := exec.Command(prog, "file", out)
	cmd.Env = append(os.Environ(), "TRACY_NO_EXIT=", "TRACY_PORT=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shortprog: %v\n%s", err, b)
	} else if len(b) != 0 {
		t.Errorf("shortprog printed %q", b)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := zonesNamed(tr, "work"); n != 1000 {
		t.Errorf("%d work zones in the file, want 1000", n)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestNoExitLateCapture: with TRACY_NO_EXIT=1 a short program waits at
// Stop; a capture started two seconds later receives every zone, and both
// the program and the capture end.
func TestNoExitLateCapture(t *testing.T) {
	prog := shortprog(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(prog, "plain")
	cmd.Env = append(os.Environ(), "TRACY_NO_EXIT=1", "TRACY_PORT="+strconv.Itoa(port), "TRACY_NO_BROADCAST=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the program exited before any capture connected: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Second):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := capture.Connect(ctx, capture.JoinAddr("127.0.0.1", port))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("capture: %v\nprogram stderr:\n%s", err, stderr.String())
	}
	if res.Stop != capture.StopClientExit {
		t.Errorf("capture stopped: %v", res.Stop)
	}
	if n := zonesNamed(res.Trace, "work"); n != 1000 {
		t.Errorf("%d work zones captured, want 1000", n)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("program: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the program did not exit after the capture ended")
	}
	if !strings.Contains(stderr.String(), "waiting at exit") {
		t.Errorf("program stderr %q: want the line saying it waits", stderr.String())
	}
}

// TestStartRefusesNonRegular: a directory (or any non-regular file) is
// refused at Start, before the client runs.
func TestStartRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	err := tracyfile.Start(dir)
	if !errors.Is(err, tracyfile.ErrNotRegular) {
		tracy.Stop()
		t.Fatalf("Start(directory) = %v, want ErrNotRegular", err)
	}
	if tracy.Port() != 0 {
		tracy.Stop()
		t.Errorf("the client runs after a refused Start")
	}
	if err := tracyfile.Start(filepath.Join(dir, "missing", "x.tracy")); err == nil {
		tracy.Stop()
		t.Errorf("Start into a missing directory succeeded")
	}
}

// TestInProcess: Start and Stop in this process; the file holds what was
// recorded and Stop reports success.
func TestInProcess(t *testing.T) {
	out := filepath.Join(t.TempDir(), "in.tracy")
	if err := tracyfile.Start(out, tracy.WithProgramName("in-process")); err != nil {
		t.Fatal(err)
	}
	loc := tracy.NewLoc("inproc")
	for i := 0; i < 100; i++ {
		tracy.Begin(loc).End()
	}
	tracy.FrameMark()
	if err := tracy.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := zonesNamed(tr, "inproc"); n != 100 {
		t.Errorf("%d zones, want 100", n)
	}
	if tr.Metadata.CaptureProgram != "in-process" {
		t.Errorf("program name %q", tr.Metadata.CaptureProgram)
	}
}

// TestWaitingCaptureGetsShortProgram: a capture already waiting when a
// short program starts (no TRACY_NO_EXIT, no option) receives all of it:
// the program's Stop gives a retrying capture the moment to connect.
func TestWaitingCaptureGetsShortProgram(t *testing.T) {
	prog := shortprog(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	type result struct {
		res *capture.Result
		err error
	}
	ch := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	go func() { // gotracy capture's default: a new attempt every 100 ms
		res, err := capture.Connect(ctx, capture.JoinAddr("127.0.0.1", port))
		ch <- result{res, err}
	}()
	time.Sleep(300 * time.Millisecond) // the capture is retrying
	cmd := exec.Command(prog, "plain")
	cmd.Env = append(os.Environ(), "TRACY_NO_EXIT=", "TRACY_PORT="+strconv.Itoa(port), "TRACY_NO_BROADCAST=1")
	if b, err := cmd.CombinedOutput(); err != nil || len(b) != 0 {
		t.Errorf("program: %v, output %q", err, b)
	}
	r := <-ch
	if r.err != nil {
		t.Fatalf("capture: %v", r.err)
	}
	if n := zonesNamed(r.res.Trace, "work"); n != 1000 {
		t.Errorf("%d work zones captured, want 1000", n)
	}
}
