//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracefile"
)

// TestSoak is the long-running check of issue #12: `gotracy demo` (an
// on-demand client, 60 frames per second) against successive `gotracy
// capture` processes that each capture one cycle (a minute by default) and
// reconnect, with the resident memory of both sampled throughout. Off by
// default; run it with
//
//	GOTRACY_SOAK=30m go test -run TestSoak -timeout 40m -v ./cmd/gotracy
//
// (GOTRACY_SOAK_CYCLE=60s sets the cycle, GOTRACY_SOAK_REPORT=FILE writes
// the samples as JSON). It fails when a capture fails, a trace is short of
// frames, or either process's memory keeps growing from cycle to cycle.
func TestSoak(t *testing.T) {
	spec := os.Getenv("GOTRACY_SOAK")
	if spec == "" {
		t.Skip("soak test off: GOTRACY_SOAK=30m go test -run TestSoak -timeout 40m -v ./cmd/gotracy")
	}
	total, err := time.ParseDuration(spec)
	if err != nil || total <= 0 {
		t.Fatalf("GOTRACY_SOAK=%q: want a duration such as 30m", spec)
	}
	cycle := time.Minute
	if s := os.Getenv("GOTRACY_SOAK_CYCLE"); s != "" {
		if cycle, err = time.ParseDuration(s); err != nil || cycle < time.Second {
			t.Fatalf("GOTRACY_SOAK_CYCLE=%q: want a duration of a second or more", s)
		}
	}
	const fps = 60
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	dir := t.TempDir()

	demo := gotracy(t, nil, "demo", "--on-demand", "-p", port, "--fps", strconv.Itoa(fps),
		"--duration", strconv.Itoa(int((total + 2*time.Minute).Seconds())))
	demo.waitFor(t, "waiting for", demo.stderr.String)

	type sample struct {
		At         float64 `json:"at_s"`
		Cycle      int     `json:"cycle"`
		DemoRSS    int64   `json:"demo_rss_kb"`
		CaptureRSS int64   `json:"capture_rss_kb"`
	}
	type cycleResult struct {
		Cycle         int   `json:"cycle"`
		Frames        int   `json:"frames"`
		Zones         int   `json:"zones"`
		FileBytes     int64 `json:"file_bytes"`
		DemoMaxRSS    int64 `json:"demo_max_rss_kb"`
		CaptureMaxRSS int64 `json:"capture_max_rss_kb"`
	}
	var (
		mu      sync.Mutex
		samples []sample
		results []cycleResult
		capPID  int
		cur     int
	)
	start := time.Now()
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
			mu.Lock()
			s := sample{At: time.Since(start).Seconds(), Cycle: cur, DemoRSS: rssKB(demo.cmd.Process.Pid)}
			if capPID != 0 {
				s.CaptureRSS = rssKB(capPID)
			}
			samples = append(samples, s)
			mu.Unlock()
		}
	}()

	for n := 1; time.Since(start) < total; n++ {
		secs := min(cycle, total-time.Since(start)).Seconds()
		out := filepath.Join(dir, fmt.Sprintf("cycle%d.tracy", n))
		c := gotracy(t, nil, "capture", "-p", port, "-o", out, "-s", strconv.Itoa(max(int(secs), 1)), "--wait", "30")
		mu.Lock()
		capPID, cur = c.cmd.Process.Pid, n
		mu.Unlock()
		select {
		case <-c.done:
		case <-time.After(cycle + 2*time.Minute):
			t.Fatalf("cycle %d: capture did not end", n)
		}
		mu.Lock()
		capPID = 0
		mu.Unlock()
		if code := c.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("cycle %d: capture exited %d: %s", n, code, c.stderr.String())
		}
		var rep tracefile.Report
		tr, err := tracefile.ReadFile(out, tracefile.WithReport(&rep))
		if err != nil {
			t.Fatalf("cycle %d: %v", n, err)
		}
		r := cycleResult{Cycle: n, Frames: len(tr.FrameSets[0].Frames), Zones: int(tr.ZoneCount()), FileBytes: rep.FileBytes}
		if want := int(secs * fps / 2); r.Frames < want {
			t.Errorf("cycle %d: %d frames in %.0f s, want at least %d", n, r.Frames, secs, want)
		}
		os.Remove(out)
		mu.Lock()
		for _, s := range samples {
			if s.Cycle == n {
				r.DemoMaxRSS = max(r.DemoMaxRSS, s.DemoRSS)
				r.CaptureMaxRSS = max(r.CaptureMaxRSS, s.CaptureRSS)
			}
		}
		results = append(results, r)
		mu.Unlock()
		t.Logf("cycle %d: %d frames, %d zones, %d bytes; max RSS demo %d KB, capture %d KB",
			n, r.Frames, r.Zones, r.FileBytes, r.DemoMaxRSS, r.CaptureMaxRSS)
	}
	close(stopSampling)
	<-sampled
	demo.signal(t, syscall.SIGTERM)
	demo.exit(t)

	if path := os.Getenv("GOTRACY_SOAK_REPORT"); path != "" {
		b, _ := json.MarshalIndent(map[string]any{"cycles": results, "samples": samples}, "", " ")
		os.WriteFile(path, b, 0o644)
	}
	// Growth check: the last cycle's peaks against the first's (a cycle
	// captures the same workload for the same time), with a wide margin
	// for GC timing on a busy machine. Needs at least three cycles.
	if len(results) >= 3 {
		first, last := results[0], results[len(results)-1]
		if last.Cycle == len(results) && last.Frames >= first.Frames*9/10 {
			if last.DemoMaxRSS > first.DemoMaxRSS*3/2+64<<10 {
				t.Errorf("demo RSS grew from %d KB (cycle 1) to %d KB (cycle %d)", first.DemoMaxRSS, last.DemoMaxRSS, last.Cycle)
			}
			if last.CaptureMaxRSS > first.CaptureMaxRSS*3/2+64<<10 {
				t.Errorf("capture RSS grew from %d KB (cycle 1) to %d KB (cycle %d)", first.CaptureMaxRSS, last.CaptureMaxRSS, last.Cycle)
			}
		}
	}
}

// rssKB is a process's resident set (VmRSS), 0 when it is gone.
func rssKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
