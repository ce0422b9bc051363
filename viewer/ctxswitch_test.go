package viewer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/gotracy/gotracy/formats/gotrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer"
)

// TestAPISched: the scheduling endpoints answer for an imported Go trace,
// account for every running span, and refuse unknown parameters; a trace
// without scheduling data answers empty lists.
func TestAPISched(t *testing.T) {
	b, err := os.ReadFile("../formats/gotrace/testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gotrace.Import(bytes.NewReader(b), gotrace.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := viewer.New(tr)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	get := func(path string, out any) int {
		res, err := http.Get(ts.URL + "/api/v1/" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if out != nil && res.StatusCode == 200 {
			if err := json.NewDecoder(res.Body).Decode(out); err != nil {
				t.Fatal(err)
			}
		}
		return res.StatusCode
	}
	var lanes struct {
		Threads []struct {
			Thread uint64
			Runs   int
		}
		CPUs []struct{ CPU int }
		Go   bool
	}
	if c := get("schedlanes", &lanes); c != 200 || !lanes.Go || len(lanes.CPUs) == 0 {
		t.Fatalf("schedlanes: %d %+v", c, lanes)
	}
	want := 0
	for _, cs := range tr.CtxSwitches {
		for _, e := range cs.Events {
			if e.Start >= 0 && e.End >= e.Start {
				want++
			}
		}
	}
	var w struct {
		Threads []struct {
			Runs []struct{ Count int }
		}
	}
	if c := get(fmt.Sprintf("sched?t0=0&t1=%d&width=16384&minpx=0.0001", tr.Metadata.LastTime+1), &w); c != 200 {
		t.Fatalf("sched: %d", c)
	}
	got := 0
	for _, th := range w.Threads {
		for _, r := range th.Runs {
			got += r.Count
		}
	}
	if got != want {
		t.Errorf("sched accounts for %d runs, the model has %d", got, want)
	}
	// Only the threads asked for, and no CPUs.
	var one struct {
		Threads []struct{ Thread uint64 }
		CPUs    []any
	}
	first := lanes.Threads[0].Thread
	if c := get(fmt.Sprintf("sched?t0=0&t1=%d&width=100&threads=%d&cpus=0", tr.Metadata.LastTime+1, first), &one); c != 200 || len(one.Threads) > 1 || len(one.CPUs) != 0 || len(one.Threads) == 1 && one.Threads[0].Thread != first {
		t.Errorf("sched for thread %d without CPUs: %d %+v", first, c, one)
	}
	if c := get("sched?t0=0&t1=10&width=5&threads=x", nil); c != 400 {
		t.Errorf("a bad thread list: %d, want 400", c)
	}
	if c := get("sched?t0=0&t1=10&widht=5", nil); c != 400 {
		t.Errorf("a misspelt parameter: %d, want 400", c)
	}
	if c := get("schedlanes?x=1", nil); c != 400 {
		t.Errorf("schedlanes with a parameter: %d, want 400", c)
	}
	empty0 := model.New()
	empty0.Metadata.LastTime = 1000
	plain, err := viewer.New(empty0)
	if err != nil {
		t.Fatal(err)
	}
	ts2 := httptest.NewServer(plain.Handler())
	defer ts2.Close()
	res, err := http.Get(ts2.URL + "/api/v1/schedlanes")
	if err != nil {
		t.Fatal(err)
	}
	var empty struct{ Threads, CPUs []any }
	json.NewDecoder(res.Body).Decode(&empty)
	res.Body.Close()
	if res.StatusCode != 200 || empty.Threads == nil || len(empty.Threads) != 0 || len(empty.CPUs) != 0 {
		t.Errorf("schedlanes of a trace without scheduling: %d %+v", res.StatusCode, empty)
	}
}
