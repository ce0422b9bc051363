//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// A snapshot asked for (SIGUSR1) just before the capture ends is still
// saved whole: the command's stop waits for it instead of cancelling it
// under the writer, and the user sees "snapshot saved".
func TestSnapshotAskedBeforeEndIsSaved(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: io.Discard}
	h := newSnapshotHub()
	h.option("capture", dir, func() string { return "snap.tracy" }, nil, e)
	tg := h.targets["capture"]
	stop := h.watchSignal(context.Background())
	took := make(chan struct{})
	go func() { // the capture: takes the request, answers a little later
		reply := <-tg.req
		close(took)
		time.Sleep(300 * time.Millisecond)
		reply <- synthtrace.Make(synthtrace.Spec{Zones: 2000, Threads: 2, MaxDepth: 4, Seed: 5})
	}()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-took:
	case <-time.After(10 * time.Second):
		t.Fatal("the signal asked no capture for a snapshot")
	}
	stop() // the capture ended: the command stops watching and returns
	path := filepath.Join(dir, "snap.tracy")
	if !strings.Contains(out.String(), "snapshot saved: "+path) {
		t.Fatalf("stdout %q: no snapshot saved line", out.String())
	}
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatalf("the snapshot: %v", err)
	}
	if tr.ZoneCount() != 2000 {
		t.Fatalf("the snapshot holds %d zones, want 2000", tr.ZoneCount())
	}
	// After stop nothing is asked any more: a later signal reaches no one.
	h.option("late", dir, func() string { return "late.tracy" }, nil, e)
	select {
	case r := <-h.targets["late"].req:
		r <- model.New()
		t.Fatal("a snapshot was asked for after stop")
	case <-time.After(200 * time.Millisecond):
	}
}
