package analysis_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
)

var mem10m struct {
	once  sync.Once
	t     *model.Trace
	mi    *analysis.MemIndex
	build time.Duration
	sorts time.Duration // first use of the four sort orders, in all
}

// memTrace10m is a synthetic trace of 10 M allocations in one pool with
// 2,000 call stacks, and its index (built once per test binary; the build
// time is reported by BenchmarkMemIndexBuild10M).
func memTrace10m(b *testing.B) (*model.Trace, *analysis.MemIndex) {
	mem10m.once.Do(func() {
		t := synthtrace.Make(synthtrace.Spec{Zones: 10_000, Threads: 4, Seed: 1})
		t = synthtrace.AddDeep(t, synthtrace.MemSpec{Allocs: 10_000_000, Pools: -1, Seed: 1})
		start := time.Now()
		mem10m.mi = analysis.NewMemIndex(t)
		mem10m.build = time.Since(start)
		mem10m.t = t
		start = time.Now()
		for _, x := range mem10m.mi.Pools {
			for k := analysis.MemBySize; k <= analysis.MemByFree; k++ {
				x.List(analysis.MemListQuery{Sort: k, Limit: 1})
			}
		}
		mem10m.sorts = time.Since(start)
	})
	return mem10m.t, mem10m.mi
}

func BenchmarkMemIndexBuild10M(b *testing.B) {
	t, _ := memTrace10m(b)
	b.ReportAllocs()
	for b.Loop() {
		analysis.NewMemIndex(t)
	}
	b.ReportMetric(mem10m.build.Seconds(), "first-build-s")
	b.ReportMetric(mem10m.sorts.Seconds(), "sort-orders-s")
}

// BenchmarkMemQuery10M: every memory query the page makes, on a 10 M
// allocation trace, after the index exists. The target is <= 100 ms each.
func BenchmarkMemQuery10M(b *testing.B) {
	t, mi := memTrace10m(b)
	x := mi.Pools[0]
	for _, p := range mi.Pools {
		if p.Len() > x.Len() {
			x = p
		}
	}
	mid := t.Metadata.LastTime / 2
	// The sort orders are built once, on first use (memTrace10m): not
	// part of a query.
	mi.Tree(x, analysis.MemSelect{Filter: analysis.MemAll, Time: 0}, false)
	mi.Tree(x, analysis.MemSelect{Filter: analysis.MemLeaks, Time: 0}, true)
	live := x.UsageAt(mid).Live
	cases := []struct {
		name string
		fn   func()
	}{
		{"UsageAt", func() { x.UsageAt(mid) }},
		{"ListAllTime", func() { x.List(analysis.MemListQuery{Offset: 5_000_000, Limit: 100}) }},
		{"ListAllSizeDesc", func() {
			x.List(analysis.MemListQuery{Sort: analysis.MemBySize, Desc: true, Offset: 2_000_000, Limit: 100})
		}},
		{"ListActiveTime", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, Limit: 100})
		}},
		{"ListActiveTimeLastPage", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, Offset: int(live) - 100, Limit: 100})
		}},
		{"ListActiveSizeDesc", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, Sort: analysis.MemBySize, Desc: true, Limit: 100})
		}},
		{"ListActiveLifetimeLastPage", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, Sort: analysis.MemByLifetime, Offset: int(live) - 100, Limit: 100})
		}},
		{"ListLeaksSize", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemLeaks}, Sort: analysis.MemBySize, Limit: 100})
		}},
		{"ListRangeSize", func() {
			x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemRange, Time: mid, End: mid + mid/10}, Sort: analysis.MemBySize, Desc: true, Limit: 100})
		}},
		{"TreeRangeBottomUp", func() {
			mi.Tree(x, analysis.MemSelect{Filter: analysis.MemRange, Time: mid, End: mid + mid/10}, true)
		}},
		{"TreeActiveTopDown", func() { mi.Tree(x, analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, false) }},
		{"TreeActiveBottomUp", func() { mi.Tree(x, analysis.MemSelect{Filter: analysis.MemActive, Time: mid}, true) }},
		{"TreeAllCached", func() { mi.Tree(x, analysis.MemSelect{Filter: analysis.MemAll, Time: 0}, false).Pruned(2000) }},
		{"TreeLeaksCached", func() { mi.Tree(x, analysis.MemSelect{Filter: analysis.MemLeaks, Time: 0}, true).Pruned(2000) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
			b.ReportMetric(float64(x.Len()), "allocs")
		})
	}
}
