package tracefile

import (
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
)

// WithThreadZones keeps its contract: per thread, batches grow, end with
// one marked Done that holds the thread's final zones (the same memory),
// name as open exactly the zones whose subtree the reader had not finished,
// and every zone they call final is never written again.
func TestThreadZonesContract(t *testing.T) {
	for _, c := range []struct {
		name  string
		every int
	}{{"demo.tracy", 13}, {"heavy1m.tracy", 997}} {
		name, every := c.name, c.every
		t.Run(name, func(t *testing.T) {
			type seen struct {
				n, batches int
				done       bool
				final      map[int]model.Zone // sampled zones said final, as they were then
				chunks     [][]model.Zone
				open       int
			}
			threads := map[int]*seen{}
			tr, err := ReadFile(fixtures.Path(t, name), WithThreadZones(every, func(tz *ThreadZones) {
				s := threads[tz.Thread]
				if s == nil {
					s = &seen{final: map[int]model.Zone{}}
					threads[tz.Thread] = s
				}
				if s.done || tz.Len < s.n || (tz.Done && len(tz.Open) > 0) {
					t.Fatalf("thread %d: batch of %d zones (done %v, %d open) after %d (done %v)", tz.Thread, tz.Len, tz.Done, len(tz.Open), s.n, s.done)
				}
				have := 0
				for _, c := range tz.Chunks {
					have += len(c)
				}
				if have < tz.Len {
					t.Fatalf("thread %d: chunks hold %d of %d zones", tz.Thread, have, tz.Len)
				}
				at := func(i int) model.Zone {
					for _, c := range tz.Chunks {
						if i < len(c) {
							return c[i]
						}
						i -= len(c)
					}
					panic("past the chunks")
				}
				isOpen := map[uint32]bool{}
				for k, u := range tz.Open {
					if int(u) >= tz.Len || (k > 0 && u <= tz.Open[k-1]) {
						t.Fatalf("thread %d: open %v", tz.Thread, tz.Open)
					}
					isOpen[u] = true
					if z := at(int(u)); z.Next() != 0 {
						t.Fatalf("thread %d: zone %d is said open but has its Next (%d)", tz.Thread, u, z.Next())
					}
				}
				s.open += len(tz.Open)
				// Every new zone not open is complete; sample some to
				// check later that they never change.
				for i := s.n; i < tz.Len; i++ {
					if z := at(i); !isOpen[uint32(i)] {
						if z.Next() <= uint32(i) {
							t.Fatalf("thread %d: zone %d is said final but has no Next", tz.Thread, i)
						}
						if i%31 == 0 {
							s.final[i] = z
						}
					}
				}
				s.n, s.done, s.chunks = tz.Len, tz.Done, tz.Chunks
				s.batches++
			}))
			if err != nil {
				t.Fatal(err)
			}
			batched, open := 0, 0
			for k := range tr.Threads {
				zl := &tr.Threads[k].Zones
				s := threads[k]
				if s == nil || !s.done || s.n != zl.Len() {
					t.Fatalf("thread %d (%d zones): %+v", k, zl.Len(), s)
				}
				got := zl.Chunks()
				if len(got) != len(s.chunks) {
					t.Fatalf("thread %d: the last batch's chunks are not the trace's", k)
				}
				for i := range got {
					if len(got[i]) != len(s.chunks[i]) || (len(got[i]) > 0 && &got[i][0] != &s.chunks[i][0]) {
						t.Fatalf("thread %d: the last batch's chunk %d is not the trace's", k, i)
					}
				}
				for i, z := range s.final {
					if *zl.At(i) != z {
						t.Fatalf("thread %d: zone %d changed after it was said final", k, i)
					}
				}
				if s.batches > 1 {
					batched++
				}
				open += s.open
			}
			if batched == 0 || (name == "demo.tracy" && open == 0) {
				t.Fatalf("%d threads reported in more than one batch, %d open zones named: nothing tested", batched, open)
			}
		})
	}
}
