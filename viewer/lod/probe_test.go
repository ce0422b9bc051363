package lod

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/synthtrace"
)

// countSrc is a thread's zones with a counter of the zone reads a query
// makes (each probe of a search or gallop reads one start or end), so the
// cost of a query can be reasoned about in probes, not only in noisy time.
type countSrc struct {
	cpuSrc
	n *int
}

func (s countSrc) start(i uint32) int64 { *s.n++; return s.cpuSrc.start(i) }
func (s countSrc) end(i uint32) int64   { *s.n++; return s.cpuSrc.end(i) }

// queryProbes answers q over every CPU lane of ix as Index.Timeline's first
// pass does and returns the zone reads and the items.
func queryProbes(ix *Index, q Query) (probes, items int) {
	if q.MinPx == 0 {
		q.MinPx = DefaultMinPx
	}
	var cur []uint32
	var scr []Item
	for th := range ix.cpu {
		var l Lane
		items += laneItems(countSrc{cpuSrc{&ix.trace.Threads[th].Zones, ix.last}, &probes}, &ix.cpu[th], &q, &l, &cur, &scr)
	}
	return probes, items
}

// TestQueryProbes: the probe counter sees every read (a query that draws
// items reads at least one zone per item) and the counted walk gives the
// same items as Index.Timeline.
func TestQueryProbes(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 200_000, Threads: 16, MaxDepth: 20, Seed: 7})
	ix := Build(tr)
	last := tr.Metadata.LastTime
	for _, q := range []Query{{T0: 0, T1: last, Width: 2000}, {T0: last / 2, T1: last/2 + last/1000, Width: 2000}} {
		p, n := queryProbes(ix, q)
		var tl Timeline
		if err := ix.Timeline(q, &tl); err != nil {
			t.Fatal(err)
		}
		if n != tl.Items() {
			t.Errorf("%+v: counted walk drew %d items, Timeline %d", q, n, tl.Items())
		}
		if n == 0 || p < n {
			t.Errorf("%+v: %d probes for %d items: the counter misses reads", q, p, n)
		}
		t.Logf("window %d ns: %d items, %d probes (%.1f a item)", q.T1-q.T0, n, p, float64(p)/float64(n))
	}
}

// BenchmarkTimelineOffsets is BenchmarkTimeline's 0.1% window three ways,
// to tell memory latency from work: "random" (a different window every
// request, 4,096 offsets: what a user panning sees, and no cache of answers
// could hit), "slide7" (the 7 offsets BenchmarkTimeline cycles through) and
// "fixed" (one window again and again: its zones stay in cache, so this is
// the query's floor with no memory latency). It reports probes (zone reads)
// and items per request, averaged over the offsets.
func BenchmarkTimelineOffsets(b *testing.B) {
	for _, zones := range []int{1_000_000, 10_000_000, 100_000_000} {
		if zones > 10_000_000 && testing.Short() {
			continue
		}
		for _, mode := range []string{"random", "slide7", "fixed"} {
			for _, variant := range []string{"mip", "nomip"} {
				b.Run(fmt.Sprintf("zones=%dM/window0.1%%/%s/%s", zones/1_000_000, mode, variant), func(b *testing.B) {
					ix := synthIndex(b, zones)
					if variant == "mip" {
						ix = synthMipIndex(ix)
					}
					tr := ix.Trace()
					last := tr.Metadata.LastTime
					span := last / 1000
					var offs []int64
					switch mode {
					case "random":
						r := rand.New(rand.NewPCG(1, 2))
						for range 4096 {
							offs = append(offs, r.Int64N(last-span))
						}
					case "slide7":
						for i := range 7 {
							offs = append(offs, (last-span)/7*int64(i))
						}
					default:
						offs = []int64{(last - span) / 7 * 3}
					}
					probes, items := 0, 0
					for _, t0 := range offs[:min(len(offs), 256)] {
						p, n := queryProbes(ix, Query{T0: t0, T1: t0 + span, Width: 2000})
						probes += p
						items += n
					}
					nq := float64(min(len(offs), 256))
					var tl Timeline
					var buf []byte
					b.ReportAllocs()
					b.ResetTimer()
					c0, n := threadCPU(), 0
					for i := 0; b.Loop(); i++ {
						n++
						t0 := offs[i%len(offs)]
						if err := ix.Timeline(Query{T0: t0, T1: t0 + span, Width: 2000}, &tl); err != nil {
							b.Fatal(err)
						}
						buf = tl.AppendBinary(buf[:0], tr)
					}
					if c1 := threadCPU(); c0 >= 0 && c1 >= 0 && n > 0 {
						b.ReportMetric(float64(c1-c0)/float64(n), "cpu-ns/op")
					}
					runtime.UnlockOSThread()
					b.ReportMetric(float64(probes)/nq, "probes")
					b.ReportMetric(float64(items)/nq, "items")
				})
			}
		}
	}
}

// probeSites is countSrc's slow twin for reasoning: it names, for every
// zone read, the walker functions it came from (the search or gallop and
// its caller), so a test can say where a query's probes go.
type probeSites struct {
	cpuSrc
	by map[string]int
}

func (s probeSites) note() {
	pc := make([]uintptr, 16)
	n := runtime.Callers(3, pc)
	fr := runtime.CallersFrames(pc[:n])
	var names []string
	for len(names) < 2 {
		f, more := fr.Next()
		name := f.Function
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		if strings.Contains(f.Function, "walker") && !strings.HasPrefix(name, "func") {
			names = append(names, name)
		}
		if !more {
			break
		}
	}
	s.by[strings.Join(names, "<")]++
}

func (s probeSites) start(i uint32) int64 { s.note(); return s.cpuSrc.start(i) }
func (s probeSites) end(i uint32) int64   { s.note(); return s.cpuSrc.end(i) }

// TestQueryProbeSites logs where a 0.1% window's zone reads go; it checks
// only that the sites add up to the plain counter's total.
func TestQueryProbeSites(t *testing.T) {
	zones := 200_000
	if s := os.Getenv("GOTRACY_PROBE_ZONES"); s != "" {
		zones, _ = strconv.Atoi(s)
	}
	tr := synthtrace.Make(synthtrace.Spec{Zones: zones, Threads: 16, MaxDepth: 20, Seed: 42})
	ix := Build(tr)
	last := tr.Metadata.LastTime
	span := last / 1000
	for _, t0 := range []int64{(last - span) / 7 * 3, last / 3} {
		q := Query{T0: t0, T1: t0 + span, Width: 2000, MinPx: DefaultMinPx}
		ps := probeSites{by: map[string]int{}}
		var cur []uint32
		var scr []Item
		items := 0
		for th := range ix.cpu {
			var l Lane
			ps.cpuSrc = cpuSrc{&tr.Threads[th].Zones, ix.last}
			items += laneItems(ps, &ix.cpu[th], &q, &l, &cur, &scr)
		}
		total, _ := queryProbes(ix, q)
		sum := 0
		for _, n := range ps.by {
			sum += n
		}
		if sum != total {
			t.Errorf("sites add up to %d probes, the counter says %d", sum, total)
		}
		t.Logf("%d zones, window at %d: %d items, %d probes: %v", tr.ZoneCount(), t0, items, total, ps.by)
	}
}

// withoutMipmaps is ix with its mipmaps left off, sharing everything else.
func withoutMipmaps(ix *Index) *Index {
	c := ix.shallowCopy()
	for i := range c.cpu {
		c.cpu[i].mip = nil
	}
	return c
}

var mipCache struct {
	of, ix *Index
}

// synthMipIndex is ix with mipmaps, built once per index.
func synthMipIndex(ix *Index) *Index {
	if mipCache.of != ix {
		start := time.Now()
		mipCache.of, mipCache.ix = ix, ix.withMipmaps()
		n := ix.trace.ZoneCount()
		fmt.Fprintf(os.Stderr, "mipmaps of %d zones: built in %v, %.3f B/zone\n", n, time.Since(start), float64(mipCache.ix.Bytes()-ix.Bytes())/float64(n))
	}
	return mipCache.ix
}
