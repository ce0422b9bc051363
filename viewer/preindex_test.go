package viewer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
)

// A Server given the index built while its file was read answers the
// timeline exactly as one indexed after the load.
func TestIndexWhileReading(t *testing.T) {
	for _, name := range []string{"demo.tracy", "heavy1m.tracy"} {
		t.Run(name, func(t *testing.T) {
			read, use, abort := IndexWhileReading()
			tr, err := tracefile.ReadFile(fixtures.Path(t, name), read)
			if err != nil {
				abort()
				t.Fatal(err)
			}
			s, err := New(tr, use)
			if err != nil {
				t.Fatal(err)
			}
			want := lod.Build(tr)
			if s.ix.Bytes() != want.Bytes() {
				t.Fatalf("index of %d bytes, Build's %d", s.ix.Bytes(), want.Bytes())
			}
			last := tr.Metadata.LastTime
			seen := 0
			for _, div := range []int64{1, 7, 1000, 100000} {
				q := lod.Query{T0: last / 3, T1: last/3 + last/div, Width: 1500}
				var a, b lod.Timeline
				if err := s.ix.Timeline(q, &a); err != nil {
					t.Fatal(err)
				}
				if err := want.Timeline(q, &b); err != nil {
					t.Fatal(err)
				}
				ja, _ := json.Marshal(&a)
				jb, _ := json.Marshal(&b)
				if string(ja) != string(jb) {
					t.Fatalf("window 1/%d: %d items, Build's index %d (or different ones)", div, a.Items(), b.Items())
				}
				seen += a.Items()
			}
			if seen == 0 {
				t.Fatal("no window showed anything: nothing compared")
			}
		})
	}
}

// A load that fails mid-zones leaves nothing running once abort returns.
func TestIndexWhileReadingAbort(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "heavy1m.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "cut.tracy")
	if err := os.WriteFile(p, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	read, _, abort := IndexWhileReading()
	if _, err := tracefile.ReadFile(p, read); err == nil {
		t.Fatal("a file cut in half loaded")
	}
	abort()
	abort() // twice is harmless
}

// BenchmarkViewReady is what `gotracy view heavy10m.tracy` waits for
// between "file loaded" and "served": New (the index, and beside it the
// plots and the report), after a plain load (load-ms, new-ms) and after a
// load that indexed as it read (IndexWhileReading: stream-load-ms,
// stream-new-ms), alternating in one run.
func BenchmarkViewReady(b *testing.B) {
	path := fixtures.Path(b, "heavy10m.tracy")
	var load, ready, sLoad, sReady time.Duration
	one := func(stream bool) {
		var opts []tracefile.Option
		var use Option
		abort := func() {}
		if stream {
			var read tracefile.Option
			read, use, abort = IndexWhileReading()
			opts = append(opts, read)
		}
		t0 := time.Now()
		tr, err := tracefile.ReadFile(path, opts...)
		if err != nil {
			abort()
			b.Fatal(err)
		}
		t1 := time.Now()
		var s *Server
		if stream {
			s, err = New(tr, use)
		} else {
			s, err = New(tr)
		}
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		_ = s
		if stream {
			sLoad, sReady = sLoad+t1.Sub(t0), sReady+t2.Sub(t1)
		} else {
			load, ready = load+t1.Sub(t0), ready+t2.Sub(t1)
		}
	}
	for i := 0; b.Loop(); i++ {
		one(i%2 == 1)
		one(i%2 == 0)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(ms(load), "load-ms")
	b.ReportMetric(ms(ready), "new-ms")
	b.ReportMetric(ms(sLoad), "stream-load-ms")
	b.ReportMetric(ms(sReady), "stream-new-ms")
}
