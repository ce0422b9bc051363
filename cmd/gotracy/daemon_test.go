//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// freeUDPPort and freeTCPPort return ports free right now on loopback.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().(*net.UDPAddr).Port
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// demoContent is what a demo trace holds, counted from the file: what a
// capture of the same client must hold too.
type demoContent struct {
	Zones      map[string]int
	Frames     int
	Images     int
	UserMsgs   int
	PlotPoints int
	Allocs     int
	LockEvents int
}

func contentOf(t *testing.T, path string) demoContent {
	t.Helper()
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := demoContent{Zones: map[string]int{}, Frames: len(tr.FrameSets[0].Frames), Images: len(tr.FrameImages)}
	for i := range tr.Threads {
		zs := &tr.Threads[i].Zones
		model.Walk(zs, func(z, _ int) bool {
			c.Zones[tr.ZoneName(zs.At(z))]++
			return true
		})
	}
	for _, m := range tr.Messages {
		if m.Source == model.MsgSourceUser {
			c.UserMsgs++
		}
	}
	for _, p := range tr.Plots {
		if p.Type == model.PlotUser {
			c.PlotPoints += len(p.Points)
		}
	}
	for _, p := range tr.MemPools {
		c.Allocs += len(p.Events)
	}
	for _, l := range tr.Locks {
		c.LockEvents += len(l.Events)
	}
	return c
}

func (c demoContent) String() string {
	names := make([]string, 0, len(c.Zones))
	for n := range c.Zones {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%d ", n, c.Zones[n])
	}
	fmt.Fprintf(&b, "frames=%d images=%d msgs=%d plot=%d allocs=%d lockev=%d", c.Frames, c.Images, c.UserMsgs, c.PlotPoints, c.Allocs, c.LockEvents)
	return b.String()
}

// checkAgainstReport compares a demo's file with what the demo said it
// emitted (demo --json).
func checkAgainstReport(t *testing.T, path string, c demoContent, rep demoReport) {
	t.Helper()
	for name, n := range rep.Zones {
		if c.Zones[name] != n {
			t.Errorf("%s: zone %q: file has %d, demo emitted %d", filepath.Base(path), name, c.Zones[name], n)
		}
	}
	if c.Frames != rep.Frames+2 || c.Images != rep.FrameImages || c.UserMsgs != rep.Messages || c.PlotPoints != rep.PlotPointsTotal || c.Allocs != rep.Allocs {
		t.Errorf("%s: file %v; demo emitted %+v", filepath.Base(path), c, rep)
	}
}

func demoJSON(t *testing.T, p *proc) demoReport {
	t.Helper()
	if code := p.exit(t); code != 0 {
		t.Fatalf("demo exited %d: %s", code, p.stderr.String())
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(p.stdout.String())), &rep); err != nil {
		t.Fatalf("demo --json: %v (%q)", err, p.stdout.String())
	}
	return rep
}

// TestDaemonThreeClients: three demo clients on different ports at once,
// one of which disconnects and comes back (a new process on the same
// port), and a fourth still running at Ctrl-C: one file per session, each
// holding what that client emitted and equal in content to a single
// capture of the same client (demo -o, same flags).
func TestDaemonThreeClients(t *testing.T) {
	dir := t.TempDir()
	udp := freeUDPPort(t)
	d := gotracy(t, nil, "daemon", "-o", dir, "-p", strconv.Itoa(udp), "--filter-name", "gotracy-demo")
	d.waitFor(t, "listening for Tracy clients", d.stdout.String)
	ports := []int{freeTCPPort(t), freeTCPPort(t), freeTCPPort(t)}
	frames := []int{15, 25, 10}
	bp := strconv.Itoa(udp)
	demo := func(port, n int) *proc {
		return gotracy(t, nil, "demo", "-p", strconv.Itoa(port), "--broadcast-port", bp, "--frames", strconv.Itoa(n), "--fps", "30", "--json")
	}
	var ps []*proc
	for i, port := range ports {
		ps = append(ps, demo(port, frames[i]))
	}
	reps := make([]demoReport, 3)
	for i, p := range ps {
		reps[i] = demoJSON(t, p)
	}
	name := func(port, seq int) string {
		n := fmt.Sprintf("gotracy-demo_127.0.0.1_%d", port)
		if seq > 0 {
			n += "_" + strconv.Itoa(seq)
		}
		return filepath.Join(dir, n+".tracy")
	}
	waitFile := func(path string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			if _, err := os.Stat(path); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 60 s; daemon stdout %q stderr %q", path, d.stdout.String(), d.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The third client comes back on its port once its first capture is
	// saved.
	waitFile(name(ports[2], 0))
	again := demoJSON(t, demo(ports[2], 12))
	waitFile(name(ports[2], 1))
	for i := range ports {
		waitFile(name(ports[i], 0))
	}

	// A client still running when the daemon is stopped is saved too.
	long := freeTCPPort(t)
	lp := gotracy(t, nil, "demo", "-p", strconv.Itoa(long), "--broadcast-port", bp, "--duration", "60", "--fps", "30")
	d.waitFor(t, strconv.Itoa(long)+" ", d.stderr.String) // its row in the table
	time.Sleep(time.Second)
	d.signal(t, syscall.SIGINT)
	if code := d.exit(t); code != 0 {
		t.Fatalf("daemon exited %d after SIGINT: %s", code, d.stderr.String())
	}
	lp.cmd.Process.Kill()

	files, _ := filepath.Glob(filepath.Join(dir, "*.tracy"))
	if len(files) != 5 {
		t.Fatalf("files %q, want 5 (3 clients, 1 reconnection, 1 stopped by SIGINT)", files)
	}
	for i, port := range ports {
		c := contentOf(t, name(port, 0))
		checkAgainstReport(t, name(port, 0), c, reps[i])
		// A single capture of the same client, as reference.
		ref := filepath.Join(t.TempDir(), "ref.tracy")
		if _, stderr, code := runCLI(t, "demo", "--frames", strconv.Itoa(frames[i]), "-o", ref); code != 0 {
			t.Fatalf("reference capture: %s", stderr)
		}
		if rc := contentOf(t, ref); rc.String() != c.String() {
			t.Errorf("port %d: daemon's file\n%v\nsingle capture\n%v", port, c, rc)
		}
	}
	checkAgainstReport(t, name(ports[2], 1), contentOf(t, name(ports[2], 1)), again)
	lc := contentOf(t, name(long, 0))
	if lc.Frames < 10 || lc.Zones["main_frame"] < 10 {
		t.Errorf("the capture stopped by SIGINT holds %v, want about 30 frames", lc)
	}
}
