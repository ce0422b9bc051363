package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestDemoCapturesItself runs the README's main job: the demo captured
// in-process over loopback into a .tracy file, whose contents must match
// the demo's own count of what it emitted.
func TestDemoCapturesItself(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo.tracy")
	stdout, stderr, code := runCLI(t, "demo", "--frames", "6", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("demo exited %d: %s", code, stderr)
	}
	line := strings.TrimSpace(stdout)
	if strings.Count(line, "\n") != 0 {
		t.Fatalf("--json printed more than one line: %q", stdout)
	}
	var top []string
	depth := 0
	for i, c := range line {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case '"':
			if depth == 1 && i > 0 && (line[i-1] == '{' || line[i-1] == ',') {
				end := strings.IndexByte(line[i+1:], '"')
				top = append(top, line[i+1:i+1+end])
			}
		}
	}
	wantKeys := "zones_total zones frames frame_images plot_points_total messages allocs frees lock_acquisitions emit_seconds"
	if strings.Join(top, " ") != wantKeys {
		t.Errorf("JSON keys %q, want %q", top, wantKeys)
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(line), &rep); err != nil {
		t.Fatal(err)
	}
	const f = 6
	if rep.ZonesTotal != 35*f || rep.Frames != f || rep.FrameImages != f || rep.PlotPointsTotal != 3*f ||
		rep.Messages != 6*f+2 || rep.Allocs != 6*f || rep.Frees != 6*f || rep.LockAcquisitions != 10*f {
		t.Errorf("report %+v", rep)
	}

	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for i := range tr.Threads {
		zs := &tr.Threads[i].Zones
		model.Walk(zs, func(z, _ int) bool {
			got[tr.ZoneName(zs.At(z))]++
			return true
		})
	}
	for _, name := range sortedZoneNames(rep.Zones) {
		if got[name] != rep.Zones[name] {
			t.Errorf("zone %q: file has %d, demo emitted %d", name, got[name], rep.Zones[name])
		}
	}
	if len(tr.FrameImages) != f {
		t.Errorf("file has %d frame images, want %d", len(tr.FrameImages), f)
	}
	if n := len(tr.FrameSets[0].Frames); n != f+2 {
		t.Errorf("file has %d frames, want %d", n, f+2)
	}
	user := 0
	for _, m := range tr.Messages {
		if m.Source == model.MsgSourceUser {
			user++
		}
	}
	if user != rep.Messages {
		t.Errorf("file has %d messages, demo emitted %d", user, rep.Messages)
	}
}

func TestDemoHeavy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "heavy.tracy")
	stdout, stderr, code := runCLI(t, "demo", "--heavy", "300000", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("demo --heavy exited %d: %s", code, stderr)
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ZonesTotal != 300000 || rep.Zones["tiny"] != 300000 || rep.Frames != 3 || rep.EmitSeconds <= 0 {
		t.Errorf("report %+v", rep)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.ZoneCount(); n != 300000 {
		t.Errorf("file has %d zones, want 300000 (none may be lost)", n)
	}
}

func TestDemoUsage(t *testing.T) {
	for _, args := range [][]string{{"demo", "extra"}, {"demo", "--frames", "-1"}, {"demo", "-p", "70000"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
