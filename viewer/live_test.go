package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/model"
)

// fakeLive is a LiveSource whose state a test sets.
type fakeLive struct{ st atomic.Pointer[LiveState] }

func (f *fakeLive) set(t *model.Trace, final bool) {
	old := f.st.Load()
	gen := uint64(1)
	if old != nil {
		gen = old.Gen + 1
	}
	n := uint64(0)
	if t != nil {
		n = uint64(t.ZoneCount())
	}
	f.st.Store(&LiveState{Trace: t, Gen: gen, Final: final, Status: "capturing", Zones: n, Published: time.Now()})
}

func (f *fakeLive) get() LiveState {
	if s := f.st.Load(); s != nil {
		return *s
	}
	return LiveState{Status: "waiting for the client"}
}

type liveInfo struct {
	Gen, Served uint64
	Final       bool
	Zones       uint64
	LastTime    int64 `json:"last_time_ns"`
	CanSave     bool  `json:"can_save"`
}

func summaryZones(t *testing.T, ts *httptest.Server) int {
	t.Helper()
	var rep struct {
		Summary struct {
			Zones int `json:"zones"`
		} `json:"summary"`
	}
	getJSON(t, ts, "/api/v1/trace", &rep)
	return rep.Summary.Zones
}

// waitServed polls /api/v1/live until the served trace is the newest.
func waitServed(t *testing.T, ts *httptest.Server) liveInfo {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var li liveInfo
		getJSON(t, ts, "/api/v1/live", &li)
		if li.Served == li.Gen && li.Gen > 0 {
			return li
		}
		if time.Now().After(deadline) {
			t.Fatalf("served trace %d never caught up with %d", li.Served, li.Gen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLiveServesNewestTrace(t *testing.T) {
	var src fakeLive
	var saved atomic.Int64
	l, err := NewLive(src.get, func(ctx context.Context, tr *model.Trace) (string, error) {
		saved.Store(int64(tr.ZoneCount()))
		return "/tmp/x.tracy", nil
	}, WithName("live test"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(l.Handler())
	defer ts.Close()

	// Before the client: the page loads, the API says it waits.
	if code, _, _ := get(t, ts, "/"); code != 200 {
		t.Fatalf("page: status %d", code)
	}
	code, _, body := get(t, ts, "/api/v1/statistics")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "waiting for the client") {
		t.Fatalf("statistics before any trace: %d %s", code, body)
	}
	var li liveInfo
	getJSON(t, ts, "/api/v1/live", &li)
	if li.Gen != 0 || !li.CanSave {
		t.Fatalf("live before any trace: %+v", li)
	}

	// The trace grows: every answer follows it, caches included.
	var prev int
	for i, n := range []int{200, 2000, 20000} {
		tr := synthTrace(n, 2)
		src.set(tr, i == 2)
		li := waitServed(t, ts)
		got := summaryZones(t, ts)
		if got != tr.ZoneCount() || int(li.Zones) != got {
			t.Fatalf("step %d: trace says %d zones, live %d, built %d", i, got, li.Zones, tr.ZoneCount())
		}
		if got <= prev {
			t.Fatalf("zone count did not grow: %d after %d", got, prev)
		}
		prev = got
		var stats []struct {
			Count int `json:"counts"`
		}
		getJSON(t, ts, "/api/v1/statistics", &stats)
		sum := 0
		for _, s := range stats {
			sum += s.Count
		}
		if want := countedZones(tr); sum != want {
			t.Fatalf("step %d: statistics count %d zones, the trace has %d counted", i, sum, want)
		}
		if li.LastTime != tr.Metadata.LastTime {
			t.Fatalf("live last_time %d, trace %d", li.LastTime, tr.Metadata.LastTime)
		}
	}
	if !strings.Contains(string(mustGet(t, ts, "/api/v1/")), `"live"`) {
		t.Error("the index does not list live")
	}

	// Save: only the page's own request from this machine.
	post := func(hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/save", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	if code, body := post(nil); code != http.StatusForbidden {
		t.Errorf("save without the header: %d %s", code, body)
	}
	if code, body := post(map[string]string{"X-Gotracy-Save": "1", "Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden {
		t.Errorf("cross-site save: %d %s", code, body)
	}
	if saved.Load() != 0 {
		t.Fatal("a refused save wrote")
	}
	code, sbody := post(map[string]string{"X-Gotracy-Save": "1", "Sec-Fetch-Site": "same-origin"})
	if code != 200 || !strings.Contains(sbody, "/tmp/x.tracy") {
		t.Fatalf("save: %d %s", code, sbody)
	}
	if saved.Load() != int64(prev) {
		t.Errorf("saved %d zones, the trace has %d", saved.Load(), prev)
	}
	if code, _, _ := get(t, ts, "/api/v1/save"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET save: %d", code)
	}
}

func TestLiveSaveErrors(t *testing.T) {
	var src fakeLive
	src.set(smallTrace(t), false)
	l, err := NewLive(src.get, func(ctx context.Context, tr *model.Trace) (string, error) {
		return "", errors.New("disk full")
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(l.Handler())
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/save", nil)
	req.Header.Set("X-Gotracy-Save", "1")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(e.Error, "disk full") {
		t.Errorf("failed save: %d %q", resp.StatusCode, e.Error)
	}
	var li struct {
		LastSave struct{ Error string } `json:"last_save"`
	}
	getJSON(t, ts, "/api/v1/live", &li)
	if !strings.Contains(li.LastSave.Error, "disk full") {
		t.Errorf("live does not report the failed save: %+v", li)
	}

	// Without a save function the endpoint says how to get one.
	l2, _ := NewLive(src.get, nil)
	ts2 := httptest.NewServer(l2.Handler())
	defer ts2.Close()
	req, _ = http.NewRequest("POST", ts2.URL+"/api/v1/save", nil)
	req.Header.Set("X-Gotracy-Save", "1")
	resp, err = ts2.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("save without a save function: %d", resp.StatusCode)
	}
}

// TestLiveConcurrent: requests of every kind while the trace is replaced
// as fast as possible; under -race, no answer mixes two traces' state.
func TestLiveConcurrent(t *testing.T) {
	var src fakeLive
	traces := []*model.Trace{synthTrace(500, 2), synthTrace(3000, 3), synthTrace(8000, 2)}
	src.set(traces[0], false)
	l, err := NewLive(src.get, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(l.Handler())
	defer ts.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			src.set(traces[i%len(traces)], false)
		}
	}()
	paths := []string{"/api/v1/trace", "/api/v1/lanes", "/api/v1/statistics", "/api/v1/timeline?width=800", "/api/v1/live",
		"/api/v1/find?srcloc=1", "/api/v1/locks?width=100", "/api/v1/frames?width=300"}
	var rwg sync.WaitGroup
	for g := range 4 {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for i := range 40 {
				p := paths[(g+i)%len(paths)]
				resp, err := ts.Client().Get(ts.URL + p)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("GET %s: %d", p, resp.StatusCode)
				}
			}
		}()
	}
	rwg.Wait()
	close(stop)
	wg.Wait()
}

func mustGet(t *testing.T, ts *httptest.Server, p string) []byte {
	t.Helper()
	code, _, b := get(t, ts, p)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", p, code, b)
	}
	return b
}

// countedZones counts, by hand, the zones statistics count: ended and
// longer than 0 ns.
func countedZones(tr *model.Trace) int {
	n := 0
	for i := range tr.Threads {
		for _, z := range tr.Threads[i].Zones.All() {
			if z.End() >= 0 && z.End() > z.Start() {
				n++
			}
		}
	}
	return n
}
