package analysis_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
)

// bruteLive says whether e is live at t, from the event alone.
func bruteLive(e *model.MemEvent, f analysis.MemFilter, t int64) bool {
	return bruteSel(e, analysis.MemSelect{Filter: f, Time: t})
}

func bruteSel(e *model.MemEvent, s analysis.MemSelect) bool {
	f, t := s.Filter, s.Time
	switch f {
	case analysis.MemRange:
		return e.TimeAlloc >= s.Time && e.TimeAlloc <= s.End
	case analysis.MemLeaks:
		return e.TimeFree < 0
	case analysis.MemActive:
		return e.TimeAlloc <= t && (e.TimeFree < 0 || e.TimeFree > t)
	}
	return true
}

func bruteKey(e *model.MemEvent, k int) float64 {
	switch k {
	case analysis.MemBySize:
		return float64(e.Size)
	case analysis.MemByLifetime:
		if e.TimeFree < 0 {
			return math.Inf(1)
		}
		return float64(e.TimeFree - e.TimeAlloc)
	case analysis.MemByAddress:
		return float64(e.Ptr)
	case analysis.MemByFree:
		if e.TimeFree < 0 {
			return math.Inf(1)
		}
		return float64(e.TimeFree)
	}
	return float64(e.TimeAlloc)
}

func deepTrace(allocs int, seed uint64) *model.Trace {
	t := synthtrace.Make(synthtrace.Spec{Zones: 2000, Threads: 3, Seed: seed})
	return synthtrace.AddDeep(t, synthtrace.MemSpec{Allocs: allocs, Pools: 2, Stacks: 300, Leak: 0.05, Seed: seed})
}

// TestMemIndexAgainstBruteForce checks every query of the index against a
// count made straight from the events: usage at many times (event times
// exactly, and between), every filter, sort key and direction page by
// page, and the per-stack sums.
func TestMemIndexAgainstBruteForce(t *testing.T) {
	tr := deepTrace(6000, 3)
	mi := analysis.NewMemIndex(tr)
	// Orders built concurrently with queries (as the viewer does) answer
	// the same: run under -race.
	done := make(chan struct{})
	go func() { mi.PrepareOrders(); close(done) }()
	defer func() { <-done }()
	if len(mi.Pools) != 3 {
		t.Fatalf("pools: got %d, want 3", len(mi.Pools))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, x := range mi.Pools {
		ev := x.Events
		if len(ev) == 0 {
			t.Fatalf("pool %s has no events", x.Name)
		}
		var times []int64
		for k := 0; k < 25; k++ {
			e := &ev[r.IntN(len(ev))]
			times = append(times, e.TimeAlloc, e.TimeAlloc-1, r.Int64N(tr.Metadata.LastTime+2))
			if e.TimeFree >= 0 {
				times = append(times, e.TimeFree)
			}
		}
		times = append(times, -1, math.MaxInt64/2)
		for _, tm := range times {
			var want analysis.MemUsage
			want.Time = tm
			for i := range ev {
				if ev[i].TimeAlloc <= tm {
					want.Allocations++
				}
				if ev[i].TimeFree >= 0 && ev[i].TimeFree <= tm {
					want.Frees++
				}
				if bruteLive(&ev[i], analysis.MemActive, tm) {
					want.Live++
					want.LiveBytes += ev[i].Size
				}
			}
			if got := x.UsageAt(tm); got != want {
				t.Fatalf("pool %s UsageAt(%d) = %+v, want %+v", x.Name, tm, got, want)
			}
		}
		for _, f := range []analysis.MemFilter{analysis.MemAll, analysis.MemActive, analysis.MemLeaks, analysis.MemRange, analysis.MemRange} {
			tm := times[r.IntN(len(times))]
			ms := analysis.MemSelect{Filter: f, Time: tm, End: tm + r.Int64N(tr.Metadata.LastTime/3+1)}
			var sel []uint32
			for i := range ev {
				if bruteSel(&ev[i], ms) {
					sel = append(sel, uint32(i))
				}
			}
			// per-stack sums
			stacks, n, b := x.StackSums(ms)
			wantN, wantB := map[uint32]uint64{}, map[uint32]uint64{}
			for _, i := range sel {
				wantN[ev[i].CSAlloc]++
				wantB[ev[i].CSAlloc] += ev[i].Size
			}
			for d, cs := range stacks {
				if n[d] != wantN[cs] || b[d] != wantB[cs] {
					t.Fatalf("pool %s filter %d t=%d stack %d: got %d allocations %d bytes, want %d and %d", x.Name, f, tm, cs, n[d], b[d], wantN[cs], wantB[cs])
				}
			}
			for k := analysis.MemByTime; k <= analysis.MemByFree; k++ {
				asc := slices.Clone(sel)
				slices.SortStableFunc(asc, func(a, c uint32) int {
					ka, kc := bruteKey(&ev[a], k), bruteKey(&ev[c], k)
					switch {
					case ka < kc:
						return -1
					case ka > kc:
						return 1
					}
					return 0
				})
				for _, desc := range []bool{false, true} {
					want := slices.Clone(asc)
					if desc {
						slices.Reverse(want)
					}
					var got []uint32
					for off := 0; ; off += 37 {
						p := x.List(analysis.MemListQuery{MemSelect: ms, Sort: k, Desc: desc, Offset: off, Limit: 37})
						if p.Total != len(sel) {
							t.Fatalf("pool %s filter %d sort %d: total %d, want %d", x.Name, f, k, p.Total, len(sel))
						}
						if len(p.Events) == 0 {
							break
						}
						got = append(got, p.Events...)
					}
					if k == analysis.MemByTime {
						if !slices.Equal(got, want) {
							t.Fatalf("pool %s filter %d sort %d desc %v: pages differ from the brute-force order", x.Name, f, k, desc)
						}
						continue
					}
					// Ties may come in any stable order: compare keys.
					if len(got) != len(want) {
						t.Fatalf("pool %s filter %d sort %d desc %v: %d rows, want %d", x.Name, f, k, desc, len(got), len(want))
					}
					for j := range got {
						if bruteKey(&ev[got[j]], k) != bruteKey(&ev[want[j]], k) {
							t.Fatalf("pool %s filter %d sort %d desc %v: row %d has key %v, want %v", x.Name, f, k, desc, j, bruteKey(&ev[got[j]], k), bruteKey(&ev[want[j]], k))
						}
					}
					seen := map[uint32]bool{}
					for _, i := range got {
						if seen[i] || !bruteSel(&ev[i], ms) {
							t.Fatalf("pool %s filter %d sort %d: event %d listed twice or not selected", x.Name, f, k, i)
						}
						seen[i] = true
					}
				}
			}
			// Trees: roots add up to the selection; every node is its self
			// plus its children.
			for _, up := range []bool{false, true} {
				tree := mi.Tree(x, ms, up)
				var cnt, by uint64
				for _, i := range sel {
					cnt++
					by += ev[i].Size
				}
				if tree.Count != cnt || tree.Bytes != by {
					t.Fatalf("tree count/bytes %d/%d, want %d/%d", tree.Count, tree.Bytes, cnt, by)
				}
				kidsN := make([]uint64, len(tree.Nodes))
				kidsB := make([]uint64, len(tree.Nodes))
				var rootN uint64
				for _, nd := range tree.Nodes {
					if nd.Parent < 0 {
						rootN += nd.Count
					} else {
						kidsN[nd.Parent] += nd.Count
						kidsB[nd.Parent] += nd.Bytes
					}
				}
				if rootN != cnt {
					t.Fatalf("tree roots count %d, want %d", rootN, cnt)
				}
				for i, nd := range tree.Nodes {
					if nd.Count != nd.SelfCount+kidsN[i] || nd.Bytes != nd.SelfBytes+kidsB[i] {
						t.Fatalf("tree node %d (%s): count %d != self %d + children %d", i, nd.Name, nd.Count, nd.SelfCount, kidsN[i])
					}
				}
				if p := tree.Pruned(10); len(tree.Nodes) > 10 && len(p) > 10 {
					t.Fatalf("Pruned(10) kept %d nodes", len(p))
				}
			}
		}
	}
}

// TestMemIndexUnsortedAndEdges: events out of allocation order are
// indexed in order; an allocation freed at the moment it is made is never
// live; an empty pool answers zeros.
func TestMemIndexUnsortedAndEdges(t *testing.T) {
	tr := model.New()
	tr.MemPools[0].Events = []model.MemEvent{
		{Ptr: 3, Size: 30, TimeAlloc: 300, TimeFree: -1},
		{Ptr: 1, Size: 10, TimeAlloc: 100, TimeFree: 100},
		{Ptr: 2, Size: 20, TimeAlloc: 200, TimeFree: 250},
	}
	tr.MemPools = append(tr.MemPools, model.MemPool{Name: 9})
	mi := analysis.NewMemIndex(tr)
	x := mi.Pools[0]
	if x.Events[0].TimeAlloc != 100 || x.Events[2].TimeAlloc != 300 {
		t.Fatalf("events not in allocation order: %+v", x.Events)
	}
	for _, c := range []struct {
		t          int64
		live, byts uint64
	}{{99, 0, 0}, {100, 0, 0}, {200, 1, 20}, {249, 1, 20}, {250, 0, 0}, {300, 1, 30}} {
		if u := x.UsageAt(c.t); u.Live != c.live || u.LiveBytes != c.byts {
			t.Errorf("UsageAt(%d) = %+v, want %d live, %d bytes", c.t, u, c.live, c.byts)
		}
	}
	if p := x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemLeaks}, Limit: 10}); p.Total != 1 || len(p.Events) != 1 || x.Events[p.Events[0]].Ptr != 3 {
		t.Errorf("leaks: %+v", p)
	}
	e := mi.Pools[1]
	if u := e.UsageAt(5); u.Live != 0 || e.Len() != 0 {
		t.Errorf("empty pool: %+v", u)
	}
	if p := e.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: 5}, Limit: 10}); p.Total != 0 || len(p.Events) != 0 {
		t.Errorf("empty pool list: %+v", p)
	}
	if tree := mi.Tree(e, analysis.MemSelect{}, false); len(tree.Nodes) != 0 {
		t.Errorf("empty pool tree: %+v", tree)
	}
	if _, err := analysis.ParseMemFilter("alive"); err == nil {
		t.Error("ParseMemFilter accepted alive")
	}
	if _, err := analysis.ParseMemSort("weight"); err == nil {
		t.Error("ParseMemSort accepted weight")
	}
}
