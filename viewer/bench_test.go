package viewer

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

var benchTrace = sync.OnceValue(func() *model.Trace { return synthTrace(1_000_000, 8) })

// discardWriter is a ResponseWriter that keeps only the size, reusing its
// header map, so the benchmark measures the handler and not a recorder.
type discardWriter struct {
	h    http.Header
	n    int
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// BenchmarkTimelineHTTP: a timeline request through the whole handler
// (routing, parameter checks, lod query, binary encoding) on a 1M-zone
// trace, next to the bare lod query and encoding it wraps ("lod"), so the
// HTTP layer's cost reads as the ratio of the two.
func BenchmarkTimelineHTTP(b *testing.B) {
	tr := benchTrace()
	s, err := New(tr)
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	last := tr.Metadata.LastTime
	windows := []struct {
		name   string
		t0, t1 int64
	}{
		{"full", 0, last},
		{"window0.1%", last / 2, last/2 + last/1000},
	}
	for _, w := range windows {
		for _, format := range []string{"binary", "json"} {
			b.Run(fmt.Sprintf("%s/%s/2000px", w.name, format), func(b *testing.B) {
				u, _ := url.Parse(fmt.Sprintf("/api/v1/timeline?t0=%d&t1=%d&width=2000&format=%s", w.t0, w.t1, format))
				req := &http.Request{Method: "GET", URL: u, Header: http.Header{}, Host: "127.0.0.1"}
				rw := &discardWriter{h: http.Header{}}
				h.ServeHTTP(rw, req)
				if rw.code != 0 && rw.code != 200 {
					b.Fatalf("status %d", rw.code)
				}
				size := rw.n
				b.ReportAllocs()
				b.SetBytes(int64(size))
				b.ResetTimer()
				for b.Loop() {
					rw.n = 0
					h.ServeHTTP(rw, req)
				}
				b.ReportMetric(float64(size), "resp_bytes")
			})
		}
		b.Run(w.name+"/lod/2000px", func(b *testing.B) {
			var tl lod.Timeline
			var out []byte
			q := lod.Query{T0: w.t0, T1: w.t1, Width: 2000}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.ix.Timeline(q, &tl); err != nil {
					b.Fatal(err)
				}
				out = tl.AppendBinary(out[:0], tr)
			}
			b.ReportMetric(float64(len(out)), "resp_bytes")
		})
	}
}

// TestTimelineHTTPAllocsFlat: a warm timeline request allocates the same
// few objects whatever the window holds: nothing per zone or per item.
func TestTimelineHTTPAllocsFlat(t *testing.T) {
	if race.Enabled {
		t.Skip("under -race sync.Pool drops items on purpose, so allocations say nothing here")
	}
	tr := synthTrace(200_000, 4)
	s, err := New(tr)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	last := tr.Metadata.LastTime
	var allocs []float64
	for _, q := range []string{fmt.Sprintf("t0=0&t1=%d&width=2000", last), fmt.Sprintf("t0=%d&t1=%d&width=2000", last/2, last/2+last/1000),
		fmt.Sprintf("t0=0&t1=%d&width=16384&minpx=1", last)} {
		u, _ := url.Parse("/api/v1/timeline?" + q)
		req := &http.Request{Method: "GET", URL: u, Header: http.Header{}, Host: "127.0.0.1"}
		rw := &discardWriter{h: http.Header{}}
		for range 3 {
			h.ServeHTTP(rw, req) // warm the pool
		}
		a := testing.AllocsPerRun(20, func() { h.ServeHTTP(rw, req) })
		allocs = append(allocs, a)
		if rw.n < 1000 {
			t.Fatalf("%s: only %d bytes", q, rw.n)
		}
	}
	t.Logf("allocations per warm request: %v", allocs)
	for _, a := range allocs {
		// Routing, the parsed query and a few header strings: about 15
		// (30 leaves room for Go releases). Items number in the thousands.
		if a > 30 {
			t.Errorf("allocations per request %v: want a fixed few, not per item", allocs)
			break
		}
	}
}

// BenchmarkZoneAncestry: the parent chain of the last of a million root
// zones (what zone info and a click need), through lod and by the walk
// over siblings it replaces.
func BenchmarkZoneAncestry(b *testing.B) {
	tr := heavyTrace(1_000_000)
	s, err := New(tr)
	if err != nil {
		b.Fatal(err)
	}
	zl := &tr.Threads[0].Zones
	i := uint32(zl.Len() - 1)
	b.Run("lod", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.ancestors(0, i)
		}
	})
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			walkAncestors(zl, i)
		}
	})
}
