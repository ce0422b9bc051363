package symbols

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/race"
)

// bigRequest is a v5 request of n addresses in stacks of 64 frames over
// the fixture's module, cycling through its functions' addresses.
func bigRequest(vals map[string]string, n int) []byte {
	var addrs []string
	for _, k := range []string{"sym:main", "sym:sum", "line:4", "line:6"} {
		if v, ok := vals[k]; ok {
			addrs = append(addrs, v)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"memoryMap": [["prog", %q], ["libmissing.so", "0123456789ABCDEF0123456789ABCDEF0"]], "stacks": [`, vals["ID"])
	for i := 0; i < n; i++ {
		switch {
		case i == 0:
			b.WriteString("[")
		case i%64 == 0:
			b.WriteString("],[")
		default:
			b.WriteByte(',')
		}
		if i%16 == 15 {
			fmt.Fprintf(&b, "[1,%d]", i)
		} else {
			fmt.Fprintf(&b, "[0,%s]", addrs[i%len(addrs)])
		}
	}
	b.WriteString("]]}")
	return b.Bytes()
}

// heapWatcher is a ResponseWriter that discards the response but, every
// sampleEvery bytes, measures the live heap after a GC: the high-water mark
// of what the request keeps alive while it answers.
type heapWatcher struct {
	h           http.Header
	code        int
	n, next     int64
	peak        uint64
	sampleEvery int64
	frames      int
	tail        []byte
}

func (w *heapWatcher) Header() http.Header { return w.h }
func (w *heapWatcher) WriteHeader(c int) {
	if w.code == 0 {
		w.code = c
	}
}

func (w *heapWatcher) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	// Count frames across write boundaries.
	buf := append(w.tail, p...)
	w.frames += bytes.Count(buf, []byte(`"module_offset"`)) - bytes.Count(w.tail, []byte(`"module_offset"`))
	w.tail = append(w.tail[:0], buf[max(0, len(buf)-20):]...)
	w.n += int64(len(p))
	if w.n >= w.next {
		w.next = w.n + w.sampleEvery
		w.sample()
	}
	return len(p), nil
}

func (w *heapWatcher) sample() { w.peak = max(w.peak, liveHeap()) }

// liveHeap is the heap in use after two collections (the second empties
// the sync.Pool victim caches the first one filled).
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestServerMemoryBounded: a request of a million addresses (13 MB, under
// the body limit) used to build its whole response (hundreds of MB) before
// sending a byte. The response now streams, and what the request keeps
// alive is its compact parsed form plus one window of results: within
// RequestMemoryBound.
func TestServerMemoryBounded(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	n := 1000000 // plus 15 625 stacks: under MaxAddresses
	if race.Enabled || testing.Short() {
		n = 1 << 17
	}
	body := bigRequest(vals, n)
	if int64(len(body)) > srv.MaxBody {
		t.Fatalf("request of %d bytes exceeds the body limit", len(body))
	}
	// Warm the module cache so its (shared, long-lived) index is not
	// counted against the request.
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/symbolicate/v5", bytes.NewReader(bigRequest(vals, 10))))
	before := liveHeap()
	w := &heapWatcher{h: http.Header{}, sampleEvery: 8 << 20}
	srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/symbolicate/v5", bytes.NewReader(body)))
	w.sample()
	// The body counts in before; keep it counted throughout (a real
	// request's body streams from the connection and is never held).
	runtime.KeepAlive(body)
	if w.code != http.StatusOK || w.frames != n {
		t.Fatalf("status %d, %d frames in %d response bytes, want %d", w.code, w.frames, w.n, n)
	}
	used := int64(w.peak) - int64(before)
	bound := RequestMemoryBound(n, (n+63)/64)
	t.Logf("%d addresses, %d-byte request, %d-byte response: peak live heap +%.1f MiB (bound %.1f MiB, %.1f B/address)",
		n, len(body), w.n, float64(used)/(1<<20), float64(bound)/(1<<20), float64(used)/float64(n))
	if used > bound {
		t.Errorf("request kept %d bytes alive, over the bound of %d", used, bound)
	}
}

// TestServerAddressCap: a request over MaxAddresses is refused before any
// work, with 413 and the limit in the message.
func TestServerAddressCap(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	srv.MaxAddresses = 100
	ok := bigRequest(vals, 90)
	if rec := post(t, srv, "/symbolicate/v5", string(ok)); rec.Code != http.StatusOK {
		t.Fatalf("90 addresses: %d %s", rec.Code, rec.Body)
	}
	rec := post(t, srv, "/symbolicate/v5", string(bigRequest(vals, 101)))
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "100") {
		t.Fatalf("101 addresses: %d %s", rec.Code, rec.Body)
	}
	// Empty stacks count too: a body of "[]"s cannot pile up stacks.
	empties := `{"memoryMap": [], "stacks": [` + strings.Repeat("[],", 200) + `[]]}`
	if rec := post(t, srv, "/symbolicate/v5", empties); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("201 empty stacks: %d %s", rec.Code, rec.Body)
	}
	srv.MaxModules = 1
	if rec := post(t, srv, "/symbolicate/v5", string(ok)); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("2 modules over a limit of 1: %d %s", rec.Code, rec.Body)
	}
}

// listen serves srv on a loopback port and returns its address.
func listen(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// closedWithin reports how long the server took to end the connection
// (answer and close, or just close), failing past limit.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after %v (read %q)", limit, b)
	}
	return time.Since(start), string(b)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServerTimeouts: a client that sends complete headers and no body,
// one that never finishes its headers, and one that stops reading the
// response are each cut off by their timeout (short here; the defaults are
// in NewServer).
func TestServerTimeouts(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	srv.ReadHeaderTimeout = 300 * time.Millisecond
	srv.BodyReadTimeout = 300 * time.Millisecond
	srv.WriteTimeout = 300 * time.Millisecond
	addr := listen(t, srv)

	t.Run("headers but no body", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "POST /symbolicate/v5 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"memoryMap\": ")
		d, resp := closedWithin(t, c, 10*time.Second)
		if !strings.Contains(resp, " 408 ") {
			t.Errorf("after %v: %q, want 408", d, resp)
		}
	})
	t.Run("keep-alive after the write timeout", func(t *testing.T) {
		// The per-write deadline of one answer must not outlive it: the
		// next request on the connection, after a pause longer than the
		// timeout, is answered.
		c := dial(t, addr)
		rd := bufio.NewReader(c)
		body := fmt.Sprintf(`{"memoryMap": [["prog", %q]], "stacks": [[[0, %s]]]}`, vals["ID"], vals["sym:main"])
		for i := range 2 {
			fmt.Fprintf(c, "POST /symbolicate/v5 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(rd, nil)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), `"function":"main"`) {
				t.Fatalf("request %d: %d %s %v", i, resp.StatusCode, b, err)
			}
			time.Sleep(2 * srv.WriteTimeout)
		}
	})
	t.Run("unfinished headers", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "POST /symbolicate/v5 HTTP/1.1\r\nHost: x\r\n")
		closedWithin(t, c, 10*time.Second)
	})
	t.Run("response not read", func(t *testing.T) {
		body := bigRequest(vals, 1<<17) // a response of tens of MB
		c := dial(t, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4 << 10)
		}
		fmt.Fprintf(c, "POST /symbolicate/v5 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
		c.Write(body)
		// Read the status line, then stop reading.
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
			t.Fatalf("status line %q, %v", line, err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for srv.InFlight() > 0 {
			if time.Now().After(deadline) {
				t.Fatal("handler still writing to a client that stopped reading")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestServerConcurrencyLimits: one client cannot hold more than
// MaxPerClient requests at once (429), and past MaxConcurrent over all
// clients a request waits QueueTimeout, then gets 503.
func TestServerConcurrencyLimits(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	srv.MaxPerClient = 1
	srv.MaxConcurrent = 1
	srv.QueueTimeout = 200 * time.Millisecond
	srv.BodyReadTimeout = 5 * time.Second
	addr := listen(t, srv)
	good := fmt.Sprintf(`{"memoryMap": [["prog", %q]], "stacks": [[[0, %s]]]}`, vals["ID"], vals["sym:main"])

	// A request held open: headers and half a body.
	hold := dial(t, addr)
	fmt.Fprintf(hold, "POST /symbolicate/v5 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(good), good[:10])
	deadline := time.Now().Add(10 * time.Second)
	for srv.InFlight() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("held request never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Post("http://"+addr+"/symbolicate/v5", "application/json", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second request of the same client: %d, want 429", resp.StatusCode)
	}

	// Another client (as the server sees it) waits for the one slot.
	srv.MaxPerClient = 4
	start := time.Now()
	resp, err = http.Post("http://"+addr+"/symbolicate/v5", "application/json", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || time.Since(start) < srv.QueueTimeout {
		t.Fatalf("request past MaxConcurrent: %d after %v, want 503 after the queue timeout", resp.StatusCode, time.Since(start))
	}

	// Once the held request completes, the slot is free again.
	fmt.Fprint(hold, good[10:])
	if _, resp := closedWithinOrAnswered(t, hold); !strings.Contains(resp, " 200 ") {
		t.Fatalf("held request: %q", resp)
	}
	var wg sync.WaitGroup
	resp, err = http.Post("http://"+addr+"/symbolicate/v5", "application/json", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wg.Wait()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after the slot is free: %d", resp.StatusCode)
	}
}

// closedWithinOrAnswered reads one response head off c.
func closedWithinOrAnswered(t *testing.T, c net.Conn) (time.Duration, string) {
	start := time.Now()
	c.SetReadDeadline(start.Add(10 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return time.Since(start), line
}

// TestServerRequestShapes: the streaming parser accepts what encoding/json
// accepted (any key order, unknown keys) and rejects the rest.
func TestServerRequestShapes(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	id, main := vals["ID"], vals["sym:main"]
	want := post(t, srv, "/symbolicate/v5", `{"memoryMap": [["prog", "`+id+`"]], "stacks": [[[0, `+main+`]], []]}`)
	if want.Code != http.StatusOK {
		t.Fatalf("%d %s", want.Code, want.Body)
	}
	for _, body := range []string{
		`{"stacks": [[[0, ` + main + `]], []], "memoryMap": [["prog", "` + id + `"]]}`,
		`{"version": {"a": [1, 2, {"b": null}]}, "memoryMap": [["prog", "` + id + `"]], "stacks": [[[0, ` + main + `]], []], "x": "y"}`,
		`{"memoryMap": [["other", "` + id + `"]], "memoryMap": [["prog", "` + id + `"]], "stacks": [[[0, ` + main + `]], []]}`,
	} {
		rec := post(t, srv, "/symbolicate/v5", body)
		if rec.Code != http.StatusOK || rec.Body.String() != want.Body.String() {
			t.Errorf("%s:\n%d %s\nwant %s", body, rec.Code, rec.Body, want.Body)
		}
	}
	lib, err := srv.Symbolicate(context.Background(), []byte(`{"memoryMap": [["prog", "`+id+`"]], "stacks": [[[0, `+main+`]], []]}`))
	if err != nil || string(lib) != want.Body.String() {
		t.Errorf("Symbolicate: %v\n%s", err, lib)
	}
	for body, reason := range map[string]string{
		`{"memoryMap": [], "stacks": []} {}`:                                                                "after the request",
		`{"memoryMap": [], "stacks": [[[0, 1]]]}`:                                                           "beyond the memoryMap",
		`{"stacks": [[[1, 1]]], "memoryMap": [["prog", "` + id + `"]]}`:                                     "stacks[0][0]: module index 1 beyond",
		`{"jobs": [{"memoryMap": [], "stacks": []}, {"memoryMap": [["a/b", "` + id + `"]], "stacks": []}]}`: "job 1: memoryMap[0]",
		`{"memoryMap": [], "stacks": [[["0", 1]]]}`:                                                         "want [moduleIndex, address]",
		`{"memoryMap": [], "stacks": [[[0, 1, 2]]]}`:                                                        "pair",
		`[]`:                                    "want",
		`{"memoryMap": [], "stacks": [[[0, 1]]`: "invalid JSON",
		``:                                      "invalid JSON",
	} {
		rec := post(t, srv, "/symbolicate/v5", body)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), reason) {
			t.Errorf("%s: %d %q, want 400 mentioning %q", body, rec.Code, rec.Body, reason)
		}
	}
	srv.MaxBody = 100
	if rec := post(t, srv, "/symbolicate/v5", `{"memoryMap": [], "stacks": [`+strings.Repeat("[],", 100)+`[]]}`); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("body over MaxBody: %d %s", rec.Code, rec.Body)
	}
}

// TestAppendFrameMatchesEncodingJSON: the hand-written frame encoder is
// byte for byte what encoding/json makes of the API's frame shape.
func TestAppendFrameMatchesEncodingJSON(t *testing.T) {
	type inline struct {
		Function string `json:"function,omitempty"`
		File     string `json:"file,omitempty"`
		Line     int    `json:"line,omitempty"`
	}
	type frame struct {
		Frame          int      `json:"frame"`
		ModuleOffset   string   `json:"module_offset"`
		Module         string   `json:"module"`
		Function       string   `json:"function,omitempty"`
		FunctionOffset string   `json:"function_offset,omitempty"`
		File           string   `json:"file,omitempty"`
		Line           int      `json:"line,omitempty"`
		Inlines        []inline `json:"inlines,omitempty"`
	}
	names := []string{"", "main", "operator<<(std::ostream&, T const&)", "a\"b\\c", "tab\there", "ünïcode", "bad\xffutf8", "line\u2028sep", "\x00\x1f"}
	for i, fn := range names {
		for _, file := range []string{"", "/src/x.c", names[(i+3)%len(names)]} {
			res := &Result{Frames: []Frame{
				{Function: names[(i+1)%len(names)], File: file, Line: i},
				{Function: "", File: "", Line: 0},
				{Function: fn, File: file, Line: 7 * i, FuncAddr: 0x100, HasFuncAddr: i%2 == 0},
			}}
			got := appendFrame(nil, i, 0x1234, "mod<"+fn+">", res, 0x150)
			f := frame{Frame: i, ModuleOffset: "0x1234", Module: "mod<" + fn + ">", Function: fn, File: file, Line: 7 * i, FunctionOffset: "0x0"}
			if i%2 == 0 {
				f.FunctionOffset = "0x50"
			}
			for _, in := range res.Frames[:2] {
				f.Inlines = append(f.Inlines, inline{in.Function, in.File, in.Line})
			}
			want, _ := json.Marshal(f)
			if string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		}
	}
	want, _ := json.Marshal(frame{Frame: 3, ModuleOffset: "0x0", Module: "m"})
	if got := appendFrame(nil, 3, 0, "m", nil, 0); string(got) != string(want) {
		t.Errorf("unresolved: got %s want %s", got, want)
	}
}

// BenchmarkServerLargeRequest answers a request of 100 000 addresses;
// B/op is all the request allocates (most of it short-lived: the live
// bound is TestServerMemoryBounded's), bytes/s the request body parsed.
func BenchmarkServerLargeRequest(b *testing.B) {
	srv, vals, _ := serverFixture(b)
	body := bigRequest(vals, 100000)
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/symbolicate/v5", bytes.NewReader(body)))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := &heapWatcher{h: http.Header{}, sampleEvery: 1 << 62}
		srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/symbolicate/v5", bytes.NewReader(body)))
		if w.code != http.StatusOK || w.frames != 100000 {
			b.Fatalf("status %d, %d frames", w.code, w.frames)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/address")
}
