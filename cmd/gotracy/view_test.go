package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func TestViewListenAddr(t *testing.T) {
	for _, c := range []struct {
		flag, addr string
		public     bool
		bad        bool
	}{
		{"", "127.0.0.1:0", false, false},
		{":8080", "127.0.0.1:8080", false, false},
		{"localhost:9000", "127.0.0.1:9000", false, false},
		{"127.0.0.1:0", "127.0.0.1:0", false, false},
		{"[::1]:7000", "[::1]:7000", false, false},
		{"0.0.0.0:8080", "0.0.0.0:8080", true, false},
		{"[::]:8080", "[::]:8080", true, false},
		{"192.168.1.5:80", "192.168.1.5:80", true, false},
		{"8080", "", false, true},
		{":http-nope", "", false, true},
		{"127.0.0.1:", "", false, true},
		{":99999", "", false, true},
	} {
		addr, public, err := viewListenAddr(c.flag)
		if c.bad {
			if err == nil {
				t.Errorf("-http %q: accepted as %q, want a usage error", c.flag, addr)
			} else if ue := (*usageError)(nil); !asUsage(err, &ue) {
				t.Errorf("-http %q: %v is not a usage error", c.flag, err)
			}
			continue
		}
		if err != nil || addr != c.addr || public != c.public {
			t.Errorf("-http %q = %q public=%v err=%v, want %q public=%v", c.flag, addr, public, err, c.addr, c.public)
		}
	}
}

func asUsage(err error, ue **usageError) bool {
	u, ok := err.(*usageError)
	*ue = u
	return ok
}

// syncBuffer collects a subprocess's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingURL = regexp.MustCompile(`at (http://\S+/) \(Ctrl-C to stop\)`)

// startView runs `gotracy view args...` until the test ends and returns
// the URL it printed and its stderr.
func startView(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	orig := viewContext
	viewContext = func(*env) (context.Context, context.CancelFunc) { return ctx, func() {} }
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(append([]string{"view"}, args...), &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("view exited %d after the stop signal; stderr: %s", code, stderr.String())
			}
		case <-time.After(20 * time.Second):
			t.Errorf("view did not stop within 20 s of the stop signal")
		}
		viewContext = orig
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingURL.FindStringSubmatch(stdout.String()); m != nil {
			return m[1], &stderr
		}
		select {
		case code := <-done:
			t.Fatalf("view exited %d before serving; stdout %q stderr %q", code, stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("view printed no URL within 60 s; stdout %q", stdout.String())
	return "", nil
}

func httpGet(t *testing.T, url string) (int, []byte) {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// jsonEqual compares two JSON documents by value (key order, spacing and
// escaping aside).
func jsonEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v in %s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs:\n got  %s\n want %s", what, got, want)
	}
}

// writeSmallTrace saves a small Builder-made trace to a temp .tracy file.
func writeSmallTrace(t *testing.T) string {
	t.Helper()
	b := model.NewBuilder()
	sl := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("step <&>")), File: model.IdxRef(b.Intern("x.go")), Line: 3})
	th := b.Thread(42)
	for i := int64(0); i < 100; i++ {
		b.BeginZone(th, i*1000, sl)
		b.EndZone(th, i*1000+500)
	}
	b.FrameMark(0, 0)
	b.Trace().Metadata.CaptureProgram = "viewtest"
	p := filepath.Join(t.TempDir(), "small.tracy")
	if err := tracefile.WriteFile(p, b.Finish()); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestViewTraceEqualsInfo: /api/v1/trace of a served file is the object
// `gotracy info --json` prints for it, load figures included (both come
// from the one load the cache keeps).
func TestViewTraceEqualsInfo(t *testing.T) {
	cacheLoads(t)
	files := []string{writeSmallTrace(t)}
	if fixtures.Dir() != "" {
		files = append(files, fixtures.Path(t, "demo.tracy"), fixtures.Path(t, "demo-ondemand.tracy"))
	} else {
		t.Log("shared fixtures absent: comparing the built trace only")
	}
	for _, f := range files {
		var out, errb bytes.Buffer
		if code := run([]string{"info", "--json", f}, &out, &errb); code != 0 {
			t.Fatalf("info --json %s: exit %d: %s", f, code, errb.String())
		}
		url, _ := startView(t, f)
		code, body := httpGet(t, url+"api/v1/trace")
		if code != 200 {
			t.Fatalf("%s: /api/v1/trace status %d: %s", f, code, body)
		}
		jsonEqual(t, filepath.Base(f)+" /api/v1/trace vs info --json", body, out.Bytes())
	}
}

func TestViewServesPageAndGuardsHost(t *testing.T) {
	url, _ := startView(t, writeSmallTrace(t), "-http", "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed URL %q, want loopback", url)
	}
	if code, body := httpGet(t, url); code != 200 {
		t.Errorf("GET /: status %d: %s", code, body)
	}
	// DNS rebinding: a page of evil.example resolving to 127.0.0.1.
	req, _ := http.NewRequest("GET", url+"api/v1/trace", nil)
	req.Host = "evil.example:80"
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host evil.example: status %d, want 421", resp.StatusCode)
	}
}

func TestViewOpenNeverFails(t *testing.T) {
	orig := browserCommand
	browserCommand = func(string) *exec.Cmd { return exec.Command(filepath.Join(t.TempDir(), "no-such-browser")) }
	t.Cleanup(func() { browserCommand = orig })
	url, stderr := startView(t, writeSmallTrace(t), "--open")
	if code, _ := httpGet(t, url+"api/v1/lanes"); code != 200 {
		t.Errorf("lanes: status %d", code)
	}
	if !strings.Contains(stderr.String(), "could not open a browser") {
		t.Errorf("stderr %q: want a note that no browser opened", stderr.String())
	}
}

func TestViewUsage(t *testing.T) {
	for _, args := range [][]string{{"view"}, {"view", "a.tracy", "b.tracy", "c.tracy"}, {"view", "-http", "nope", "a.tracy"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage); stderr %s", args, code, errb.String())
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"view", "-http", taken.Addr().String(), writeSmallTrace(t)}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "cannot listen on "+taken.Addr().String()) || out.Len() != 0 {
		t.Errorf("port taken: exit %d, stdout %q, stderr %q; want 1 and a cannot-listen error", code, out.String(), errb.String())
	}
	for _, f := range []string{filepath.Join(t.TempDir(), "missing.tracy"), t.TempDir()} {
		var out, errb bytes.Buffer
		if code := run([]string{"view", f}, &out, &errb); code != 1 || out.Len() != 0 {
			t.Errorf("view %s: exit %d, stdout %q, want 1 and no URL; stderr %s", f, code, out.String(), errb.String())
		}
	}
}
