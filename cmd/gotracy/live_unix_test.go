//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/tracefile"
)

var liveURL = regexp.MustCompile(`at (http://\S+/) \(Ctrl-C`)

type liveStatus struct {
	Gen, Served uint64
	Final       bool
	Zones       uint64
	Status      string
}

func liveNow(t *testing.T, url string) (liveStatus, int) {
	t.Helper()
	var st liveStatus
	code, b := httpGet(t, url+"api/v1/live")
	if code != 200 {
		t.Fatalf("live: %d %s", code, b)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	code, b = httpGet(t, url+"api/v1/trace")
	if code != 200 {
		return st, -1
	}
	var rep struct {
		Summary struct{ Zones int } `json:"summary"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return st, rep.Summary.Zones
}

// TestViewLiveDemo is the live viewer end to end, as a user runs it:
// `gotracy demo` is the client, `gotracy view -a` captures and serves it.
// The API's zone count grows while the demo runs and ends at what the
// demo says it emitted; Ctrl-C saves the -o file, which equals (csv,
// info) a plain capture of the same session made by replaying its
// --record.
func TestViewLiveDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 3-second live session")
	}
	dir := t.TempDir()
	out, raw, plain := filepath.Join(dir, "live.tracy"), filepath.Join(dir, "live.raw"), filepath.Join(dir, "plain.tracy")
	port := strconv.Itoa(freeTCPPort(t))
	demo := gotracy(t, nil, "demo", "-p", port, "--duration", "3", "--fps", "60", "--json")
	demo.waitFor(t, "waiting for a Tracy viewer", demo.stderr.String)
	view := gotracy(t, nil, "view", "-a", "127.0.0.1", "-p", port, "-o", out, "--record", raw)
	view.waitFor(t, "gotracy-test: signals ready", view.stderr.String)
	view.waitFor(t, "(Ctrl-C", view.stdout.String)
	url := liveURL.FindStringSubmatch(view.stdout.String())[1]

	// While the demo runs: the zone count the API serves grows.
	var seen []int
	var last liveStatus
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, zones := liveNow(t, url)
		last = st
		if zones >= 0 && (len(seen) == 0 || zones != seen[len(seen)-1]) {
			if len(seen) > 0 && zones < seen[len(seen)-1] {
				t.Fatalf("the zone count went down: %v then %d", seen, zones)
			}
			seen = append(seen, zones)
		}
		if st.Final && st.Served == st.Gen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the capture did not end; live %+v, view stdout %q stderr %q", st, view.stdout.String(), view.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code := demo.exit(t); code != 0 {
		t.Fatalf("demo exit %d: %s", code, demo.stderr.String())
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(demo.stdout.String())), &rep); err != nil {
		t.Fatalf("demo --json: %v (%q)", err, demo.stdout.String())
	}
	t.Logf("zone counts served while the demo ran: %v", seen)
	if len(seen) < 5 {
		t.Errorf("the API showed only %d different zone counts during a 3 s demo: %v", len(seen), seen)
	}
	_, final := liveNow(t, url)
	if final != rep.ZonesTotal || int(last.Zones) != rep.ZonesTotal {
		t.Errorf("the API ends at %d zones (live says %d), the demo emitted %d", final, last.Zones, rep.ZonesTotal)
	}
	// Statistics are of the final trace, too.
	code, b := httpGet(t, url+"api/v1/statistics")
	if code != 200 {
		t.Fatalf("statistics: %d", code)
	}
	var stats []struct {
		Name   string
		Counts int
	}
	json.Unmarshal(b, &stats)
	sum := 0
	for _, s := range stats {
		sum += s.Counts
	}

	// The client is gone, the page stays; Ctrl-C ends the viewer.
	view.signal(t, syscall.SIGINT)
	if code := view.exit(t); code != 0 {
		t.Fatalf("view exit %d: %s", code, view.stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("-o file: %v", err)
	}
	if _, stderr, code := runCLI(t, "replay", raw, "-o", plain); code != 0 {
		t.Fatalf("replay of the recording: %d %s", code, stderr)
	}
	for _, args := range [][]string{{"csv"}, {"csv", "-e"}, {"csv", "-u"}} {
		a, _, c1 := runCLI(t, append(args, out)...)
		p, _, c2 := runCLI(t, append(args, plain)...)
		if c1 != 0 || c2 != 0 || a != p {
			t.Errorf("gotracy %v differs between the live save and a plain capture of the same session (exit %d, %d)", args, c1, c2)
		}
	}
	lt, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := tracefile.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	// Statistics count what tracy-csvexport counts: zones that ended and
	// lasted more than 0 ns (a fast demo has a few of 0 ns); counted here
	// from the saved file's zones.
	counted := 0
	for i := range lt.Threads {
		for _, z := range lt.Threads[i].Zones.All() {
			if z.End() > z.Start() {
				counted++
			}
		}
	}
	if sum != counted {
		t.Errorf("the final statistics count %d zones, the saved trace has %d ended zones longer than 0 ns", sum, counted)
	}
	if lt.ZoneCount() != rep.ZonesTotal || pt.ZoneCount() != rep.ZonesTotal {
		t.Errorf("zones: live save %d, plain capture %d, demo %d", lt.ZoneCount(), pt.ZoneCount(), rep.ZonesTotal)
	}
	if len(lt.Messages) != len(pt.Messages) || len(lt.FrameSets[0].Frames) != len(pt.FrameSets[0].Frames) || len(lt.FrameImages) != len(pt.FrameImages) {
		t.Errorf("messages %d/%d, frames %d/%d, images %d/%d (live/plain)", len(lt.Messages), len(pt.Messages),
			len(lt.FrameSets[0].Frames), len(pt.FrameSets[0].Frames), len(lt.FrameImages), len(pt.FrameImages))
	}
	ai, _, _ := runCLI(t, "info", "--json", out)
	pi, _, _ := runCLI(t, "info", "--json", plain)
	var aj, pj map[string]any
	json.Unmarshal([]byte(ai), &aj)
	json.Unmarshal([]byte(pi), &pj)
	as, _ := json.Marshal(aj["summary"])
	ps, _ := json.Marshal(pj["summary"])
	if string(as) != string(ps) || len(as) < 100 {
		t.Errorf("info summaries differ:\nlive  %s\nplain %s", as, ps)
	}
}

// TestViewLiveWaitsAndStops: before any client the page is served and
// the API says it waits; Ctrl-C then exits like a capture that never
// connected (128+2), writing nothing.
func TestViewLiveWaitsAndStops(t *testing.T) {
	out := filepath.Join(t.TempDir(), "never.tracy")
	view := gotracy(t, nil, "view", "-a", "127.0.0.1", "-p", strconv.Itoa(freeTCPPort(t)), "-o", out)
	view.waitFor(t, "gotracy-test: signals ready", view.stderr.String)
	view.waitFor(t, "(Ctrl-C", view.stdout.String)
	url := liveURL.FindStringSubmatch(view.stdout.String())[1]
	if code, _ := httpGet(t, url); code != 200 {
		t.Errorf("page before the client: %d", code)
	}
	st, zones := liveNow(t, url)
	if st.Gen != 0 || zones != -1 || !strings.Contains(st.Status, "connecting to 127.0.0.1:") {
		t.Errorf("before the client: %+v, trace answer %d", st, zones)
	}
	view.signal(t, syscall.SIGINT)
	if code := view.exit(t); code != 130 {
		t.Errorf("exit %d after Ctrl-C before a client, want 130; stderr %q", code, view.stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o written without a capture: %v", err)
	}
}

var viewerAt = regexp.MustCompile(`(?:live viewer at|live at) (http://\S+/)`)

// waitFinal polls the live API until the capture's final trace is served
// and returns the zone counts seen on the way.
func waitFinal(t *testing.T, url string) (seen []int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, zones := liveNow(t, url)
		if zones >= 0 && (len(seen) == 0 || zones != seen[len(seen)-1]) {
			seen = append(seen, zones)
		}
		if st.Final && st.Served == st.Gen {
			return seen
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final trace after 60 s: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCaptureHTTP: capture --http serves the live viewer beside a
// headless capture, which saves and exits as it does without it.
func TestCaptureHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 2-second live session")
	}
	out := filepath.Join(t.TempDir(), "cap.tracy")
	port := strconv.Itoa(freeTCPPort(t))
	demo := gotracy(t, nil, "demo", "-p", port, "--duration", "2", "--fps", "60", "--json")
	demo.waitFor(t, "waiting for a Tracy viewer", demo.stderr.String)
	cp := gotracy(t, nil, "capture", "-a", "127.0.0.1", "-p", port, "-o", out, "--http", "127.0.0.1:0")
	cp.waitFor(t, "live viewer at", cp.stderr.String)
	url := viewerAt.FindStringSubmatch(cp.stderr.String())[1]
	// The server stops once the capture is saved, so the last answers
	// may be refused: poll while it runs.
	var max int
	for range 200 {
		resp, err := http.Get(url + "api/v1/live")
		if err != nil {
			break // the capture was saved and its server stopped
		}
		var st liveStatus
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			break
		}
		max = int(st.Zones)
		if st.Final {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := demo.exit(t); code != 0 {
		t.Fatalf("demo exit %d", code)
	}
	if code := cp.exit(t); code != 0 {
		t.Fatalf("capture exit %d: %s", code, cp.stderr.String())
	}
	var rep demoReport
	json.Unmarshal([]byte(strings.TrimSpace(demo.stdout.String())), &rep)
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ZoneCount() != rep.ZonesTotal || max == 0 || max > rep.ZonesTotal {
		t.Errorf("saved %d zones, the viewer showed up to %d, the demo emitted %d", tr.ZoneCount(), max, rep.ZonesTotal)
	}
}

// TestDemoView: demo --view is the demo captured in-process and served
// live; the page stays up after the demo until the process is stopped.
func TestDemoView(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 1-second live session")
	}
	p := gotracy(t, nil, "demo", "--view", "--open=false", "--duration", "1", "--json")
	p.waitFor(t, "live at", p.stderr.String)
	url := viewerAt.FindStringSubmatch(p.stderr.String())[1]
	seen := waitFinal(t, url)
	p.waitFor(t, "the page stays up", p.stderr.String)
	var rep demoReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(p.stdout.String())), &rep); err != nil {
		t.Fatalf("--json: %v (%q)", err, p.stdout.String())
	}
	if seen[len(seen)-1] != rep.ZonesTotal || rep.ZonesTotal == 0 {
		t.Errorf("the viewer ends at %d zones, the demo emitted %d (seen %v)", seen[len(seen)-1], rep.ZonesTotal, seen)
	}
	if code, _ := httpGet(t, url); code != 200 {
		t.Errorf("page after the demo: %d", code)
	}
	p.signal(t, syscall.SIGTERM)
	p.exit(t)
}

// TestViewLiveCtrlCSaves: Ctrl-C while the client still runs stops the
// capture and saves what came, like Ctrl-C in gotracy capture.
func TestViewLiveCtrlCSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a live session")
	}
	out := filepath.Join(t.TempDir(), "cut.tracy")
	port := strconv.Itoa(freeTCPPort(t))
	demo := gotracy(t, nil, "demo", "-p", port, "--duration", "30", "--fps", "60")
	demo.waitFor(t, "waiting for a Tracy viewer", demo.stderr.String)
	view := gotracy(t, nil, "view", "-a", "127.0.0.1", "-p", port, "-o", out)
	view.waitFor(t, "gotracy-test: signals ready", view.stderr.String)
	view.waitFor(t, "(Ctrl-C", view.stdout.String)
	url := liveURL.FindStringSubmatch(view.stdout.String())[1]
	var zones int
	for deadline := time.Now().Add(30 * time.Second); zones < 500; {
		_, zones = liveNow(t, url)
		if time.Now().After(deadline) {
			t.Fatalf("no zones served after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	view.signal(t, syscall.SIGINT)
	if code := view.exit(t); code != 0 {
		t.Fatalf("view exit %d after Ctrl-C: %s", code, view.stderr.String())
	}
	if !strings.Contains(view.stdout.String(), "(interrupted)") {
		t.Errorf("the summary does not say the capture was interrupted: %q", view.stdout.String())
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ZoneCount() < zones {
		t.Errorf("saved %d zones, the viewer had already shown %d", tr.ZoneCount(), zones)
	}
	demo.cmd.Process.Kill()
}

// TestDemoViewCtrlCSaves: Ctrl-C during demo --view -o stops the workload,
// delivers what it recorded and saves it whole (every zone ended, every
// frame the demo reports), then exits 0.
func TestDemoViewCtrlCSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a live session")
	}
	out := filepath.Join(t.TempDir(), "demo.tracy")
	p := gotracy(t, nil, "demo", "--view", "--open=false", "--duration", "60", "--fps", "60", "-o", out, "--json")
	p.waitFor(t, "gotracy-test: signals ready", p.stderr.String)
	p.waitFor(t, "live at", p.stderr.String)
	url := viewerAt.FindStringSubmatch(p.stderr.String())[1]
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, zones := liveNow(t, url); zones >= 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no zones served after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.signal(t, syscall.SIGINT)
	if code := p.exit(t); code != 0 {
		t.Fatalf("demo --view exit %d after Ctrl-C: %s", code, p.stderr.String())
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(p.stdout.String())), &rep); err != nil {
		t.Fatalf("--json: %v (%q)", err, p.stdout.String())
	}
	if rep.EmitSeconds >= 30 {
		t.Errorf("the demo ran %.1f s: Ctrl-C did not stop it", rep.EmitSeconds)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatalf("the saved file: %v", err)
	}
	if got := tr.ZoneCount(); got != rep.ZonesTotal {
		t.Errorf("saved %d zones, the demo emitted %d", got, rep.ZonesTotal)
	}
	unended := 0
	for i := range tr.Threads {
		for _, z := range tr.Threads[i].Zones.All() {
			if z.End() < 0 {
				unended++
			}
		}
	}
	if unended != 0 {
		t.Errorf("%d zones were saved unended: the delivery was cut", unended)
	}
}
