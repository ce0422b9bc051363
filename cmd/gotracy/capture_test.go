package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// fakeFrameClient is a client whose stream needs no query: three frame
// marks, then Terminate. It waits for the server's ServerQueryTerminate.
func fakeFrameClient(t *testing.T) (addr string, done <-chan bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan bool, 1)
	go func() {
		defer ln.Close()
		conn, err := ln.Accept()
		if err != nil {
			ch <- false
			return
		}
		defer conn.Close()
		w := protocol.Welcome{TimerMul: 1, InitBegin: 0, InitEnd: 1000, Resolution: 10, ProgramName: "cli-test"}
		if err := protocol.ClientHandshake(conn, &w, nil); err != nil {
			ch <- false
			return
		}
		fw := protocol.NewFrameWriter(conn)
		var b []byte
		for i := range 3 {
			b = protocol.AppendFrameMarkMsg(b, int64(2000+i*1000), 0)
		}
		fw.WriteItems(b)
		fw.Flush()
		fw.WriteItems(protocol.AppendTerminate(nil))
		fw.Flush()
		var q [protocol.ServerQueryPacketSize]byte
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.ReadFull(conn, q[:])
		ch <- err == nil && q == [protocol.ServerQueryPacketSize]byte{}
	}()
	return ln.Addr().String(), ch
}

func TestCaptureCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.tracy")
	raw := filepath.Join(dir, "cap.raw")
	addr, done := fakeFrameClient(t)
	host, port, _ := net.SplitHostPort(addr)
	stdout, stderr, code := runCLI(t, "capture", "-a", host, "-p", port, "-o", out, "--record", raw)
	if code != 0 {
		t.Fatalf("capture exited %d: %s %s", code, stdout, stderr)
	}
	if !<-done {
		t.Error("the client did not get ServerQueryTerminate")
	}
	for _, want := range []string{"Connecting to " + addr, "Timer resolution: 10 ns", "Frames: 5", "Zones: 0", "Saving trace... done!"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.FrameSets[0].Frames); n != 5 || tr.Metadata.CaptureProgram != "cli-test" {
		t.Errorf("saved %d frames of %q", n, tr.Metadata.CaptureProgram)
	}

	// The recording replays to the same trace.
	out2 := filepath.Join(dir, "replayed.tracy")
	stdout, stderr, code = runCLI(t, "replay", raw, "-o", out2)
	if code != 0 || !strings.Contains(stdout, "Frames: 5") {
		t.Fatalf("replay of the recording exited %d: %s %s", code, stdout, stderr)
	}

	// No silent overwrite.
	_, stderr, code = runCLI(t, "capture", "-o", out, "-p", port)
	if code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("capture over an existing file: code %d, %s", code, stderr)
	}
}

func TestCaptureUsage(t *testing.T) {
	if _, e, code := runCLI(t, "capture"); code != 2 || !strings.Contains(e, "-o") {
		t.Errorf("capture without -o: code %d, %s", code, e)
	}
	if _, e, code := runCLI(t, "capture", "-o", filepath.Join(t.TempDir(), "x.tracy"), "-p", "70000"); code != 2 {
		t.Errorf("bad port: code %d, %s", code, e)
	}
	if _, e, code := runCLI(t, "replay", "-o", "x.tracy"); code != 2 {
		t.Errorf("replay without input: code %d, %s", code, e)
	}
}

// Replaying a fixture recording writes a .tracy whose csv output is the
// real csvexport's output for the real capture.
func TestReplayCommandCSV(t *testing.T) {
	in := fixtures.Path(t, "demo.c2s.bin")
	want, err := os.ReadFile(fixtures.Path(t, "demo.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "demo.tracy")
	stdout, stderr, code := runCLI(t, "replay", in, "-o", out)
	if code != 0 {
		t.Fatalf("replay exited %d: %s %s", code, stdout, stderr)
	}
	for _, s := range []string{"Frames: 22", "Time span: 623.27 ms", "Zones: 700"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("replay output lacks %q (the real capture printed it):\n%s", s, stdout)
		}
	}
	csv, _, code := runCLI(t, "csv", out)
	if code != 0 || !bytes.Equal([]byte(csv), want) {
		t.Errorf("csv of the replayed trace differs from the real capture's (code %d):\n%s", code, csv)
	}
}

// A cut recording is saved and reported.
func TestReplayTruncated(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cut.bin")
	os.WriteFile(in, raw[:len(raw)/2], 0o644)
	out := filepath.Join(dir, "cut.tracy")
	_, stderr, code := runCLI(t, "replay", in, "-o", out)
	if code != 1 || !strings.Contains(stderr, "connection lost") {
		t.Errorf("code %d, stderr %s", code, stderr)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatalf("the partial trace was not saved: %v", err)
	}
	if tr.ZoneCount() == 0 {
		t.Error("partial trace has no zones")
	}
}
