//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// checkFlightFile: the file holds exactly frames base frames (a snapshot
// taken before the window filled holds fewer, and then nothing was
// dropped), and every zone in it is whole (its subtree inside its time).
func checkFlightFile(t *testing.T, path string, frames int, snapshot bool) *model.Trace {
	t.Helper()
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := len(tr.FrameSets[0].Frames)
	if snapshot && n < frames {
		if tr.Metadata.FrameOffset != 0 {
			t.Errorf("%s: %d frames, fewer than the window, but %d dropped", filepath.Base(path), n, tr.Metadata.FrameOffset)
		}
	} else if n != frames {
		t.Errorf("%s: %d frames, want %d", filepath.Base(path), n, frames)
	}
	for i := range tr.Threads {
		zs := &tr.Threads[i].Zones
		model.Walk(zs, func(z, _ int) bool {
			p := zs.At(z)
			for c := z + 1; c < int(p.Next()); c++ {
				if ch := zs.At(c); ch.Start() < p.Start() || (p.End() >= 0 && ch.End() > p.End()) {
					t.Fatalf("%s: zone %d outside its parent %d", filepath.Base(path), c, z)
				}
			}
			return true
		})
	}
	return tr
}

// TestCaptureFlightRecorder: capture --keep-frames on a running demo saves
// a snapshot on SIGUSR1 without stopping, and at the end the window only.
func TestCaptureFlightRecorder(t *testing.T) {
	dir := t.TempDir()
	port := freeTCPPort(t)
	demo := gotracy(t, nil, "demo", "-p", strconv.Itoa(port), "--broadcast-port", strconv.Itoa(freeUDPPort(t)), "--duration", "3", "--fps", "60", "--json")
	out := filepath.Join(dir, "window.tracy")
	c := gotracy(t, nil, "capture", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "--keep-frames", "25", "-o", out)
	c.waitFor(t, "Timer resolution", c.stdout.String)
	time.Sleep(1500 * time.Millisecond)
	c.signal(t, syscall.SIGUSR1)
	c.waitFor(t, "snapshot saved: ", c.stdout.String)
	rep := demoJSON(t, demo)
	if code := c.exit(t); code != 0 {
		t.Fatalf("capture exited %d: %s", code, c.stderr.String())
	}
	snap := regexp.MustCompile(`snapshot saved: (\S+)`).FindStringSubmatch(c.stdout.String())[1]
	checkFlightFile(t, snap, 25, true)
	tr := checkFlightFile(t, out, 25, false)
	if rep.Frames < 60 {
		t.Fatalf("the demo ran only %d frames", rep.Frames)
	}
	// The client's frame numbers: the window's first frame is the one the
	// client numbered so.
	if got, want := tr.Metadata.FrameOffset, uint64(rep.Frames+2-25); got != want {
		t.Errorf("FrameOffset %d, want %d", got, want)
	}
	c2 := contentOf(t, out)
	if c2.Zones["main_frame"] < 23 || c2.Zones["main_frame"] > 25 || c2.Images < 23 || c2.Images > 25 || c2.UserMsgs < 6*23 {
		t.Errorf("window content %v, want about 25 frames' worth", c2)
	}
}

// TestDaemonFlightSnapshot: the daemon's SIGUSR1 saves a snapshot of every
// running capture's window beside the files, and each capture still ends
// with its window.
func TestDaemonFlightSnapshot(t *testing.T) {
	dir := t.TempDir()
	udp := freeUDPPort(t)
	d := gotracy(t, nil, "daemon", "-o", dir, "-p", strconv.Itoa(udp), "--keep-frames", "15", "--filter-name", "gotracy-demo")
	d.waitFor(t, "listening for Tracy clients", d.stdout.String)
	port := freeTCPPort(t)
	demo := gotracy(t, nil, "demo", "-p", strconv.Itoa(port), "--broadcast-port", strconv.Itoa(udp), "--duration", "3", "--fps", "60", "--json")
	d.waitFor(t, "capturing", d.stderr.String)
	time.Sleep(time.Second)
	d.signal(t, syscall.SIGUSR1)
	d.waitFor(t, "snapshot saved: ", d.stdout.String)
	demoJSON(t, demo)
	name := filepath.Join(dir, "gotracy-demo_127.0.0.1_"+strconv.Itoa(port)+".tracy")
	deadline := time.Now().Add(30 * time.Second)
	for !fileExists(name) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s: %s", name, d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.signal(t, syscall.SIGINT)
	if code := d.exit(t); code != 0 {
		t.Fatalf("daemon exited %d: %s", code, d.stderr.String())
	}
	snap := regexp.MustCompile(`snapshot saved: (\S+)`).FindStringSubmatch(d.stdout.String())[1]
	if filepath.Dir(snap) != dir || !regexp.MustCompile(`^gotracy-demo_127\.0\.0\.1_\d+_snapshot_\d{8}T\d{6}\.\d{3}\.tracy$`).MatchString(filepath.Base(snap)) {
		t.Errorf("snapshot saved as %s", snap)
	}
	checkFlightFile(t, snap, 15, true)
	checkFlightFile(t, name, 15, false)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
