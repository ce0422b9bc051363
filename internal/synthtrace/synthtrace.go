// Package synthtrace makes large, deterministic synthetic traces for the
// viewer's tests and benchmarks: many threads, zones nested up to a chosen
// depth, long zones mixed with bursts of tiny ones, frames, a plot and
// messages. Zones are written straight into each thread's ZoneList, so a
// hundred million of them take seconds, not minutes.
package synthtrace

import (
	"fmt"
	"math/rand/v2"

	"github.com/gotracy/gotracy/model"
)

// Spec says what to make.
type Spec struct {
	Zones    int    // total zones over all threads (approximately: each thread gets Zones/Threads)
	Threads  int    // default 8
	MaxDepth int    // deepest nesting, default 20
	Seed     uint64 // the same seed gives the same trace
	// Frames are marked every FrameNs (default 16 ms).
	FrameNs int64
}

// Make builds the trace.
func Make(s Spec) *model.Trace {
	if s.Threads <= 0 {
		s.Threads = 8
	}
	if s.MaxDepth <= 0 {
		s.MaxDepth = 20
	}
	if s.FrameNs <= 0 {
		s.FrameNs = 16_000_000
	}
	b := model.NewBuilder()
	locs := make([]model.SrcLocID, 24)
	for i := range locs {
		color := uint32(0)
		if i%5 == 0 {
			color = uint32(0x203040 + i*0x102030)
		}
		locs[i] = b.AddStaticSrcLoc(uint64(0x1000+i), model.SourceLocation{
			Name:     model.IdxRef(b.Intern(fmt.Sprintf("zone_%02d", i))),
			Function: model.IdxRef(b.Intern(fmt.Sprintf("pkg.func%02d", i))),
			File:     model.IdxRef(b.Intern("synth.go")),
			Line:     uint32(100 + i),
			Color:    color,
		})
	}
	t := b.Trace()
	per := max(1, s.Zones/s.Threads)
	var last int64
	for th := 0; th < s.Threads; th++ {
		tid := uint64(1000 + th)
		b.SetThreadName(tid, fmt.Sprintf("worker-%d", th))
		ti := b.Thread(tid)
		g := gen{r: rand.New(rand.NewPCG(s.Seed, uint64(th))), zl: &t.Threads[ti].Zones, locs: locs, maxDepth: s.MaxDepth, budget: per}
		g.zl.Grow(per)
		tm := int64(1000 + th*137)
		for g.budget > 0 {
			tm = g.tree(0, tm, g.rootDur()) + int64(g.r.IntN(20_000))
		}
		last = max(last, tm)
	}
	for f := int64(0); f <= last; f += s.FrameNs {
		b.FrameMark(0, f)
	}
	pl := uint64(0x9000)
	b.SetPtrString(pl, "synthetic value")
	r := rand.New(rand.NewPCG(s.Seed, 99))
	step := max(last/20000, 1)
	for tm, v := int64(0), 0.0; tm <= last; tm += step {
		v += r.NormFloat64()
		b.PlotPoint(pl, tm, v)
	}
	b.Observe(last)
	for i := int64(0); i < 200; i++ {
		b.AddMessage(1000, model.Message{Time: last / 200 * i, Text: model.IdxRef(b.Intern(fmt.Sprintf("message %d", i))), Color: 0xFFFFFFFF})
	}
	return b.Finish()
}

type gen struct {
	r        *rand.Rand
	zl       *model.ZoneList
	locs     []model.SrcLocID
	maxDepth int
	budget   int
}

// rootDur: mostly long top-level zones (a frame's work), some short.
func (g *gen) rootDur() int64 {
	if g.r.IntN(4) == 0 {
		return int64(200 + g.r.IntN(5_000))
	}
	return int64(200_000 + g.r.IntN(8_000_000))
}

// tree writes a zone at [s, s+d) with children and returns its end.
func (g *gen) tree(depth int, s, d int64) int64 {
	i := g.zl.Append(model.MakeZone(s, s+d, g.locs[(depth*7+g.r.IntN(3))%len(g.locs)], 0, 0))
	g.budget--
	if depth+1 < g.maxDepth && d > 400 && g.budget > 0 {
		switch k := g.r.IntN(10); {
		case k < 2 && d > 20_000: // a burst of tiny zones
			n := min(g.budget, 50+g.r.IntN(400), int(d/200))
			each := d / int64(n+1)
			for c := 0; c < n; c++ {
				cs := s + int64(c)*each + each/4
				g.zl.Append(model.MakeZone(cs, cs+max(1, each/2), g.locs[(depth+1)%len(g.locs)], 0, uint32(g.zl.Len()+1)))
				g.budget--
			}
		default: // a few nested children
			n := 1 + g.r.IntN(4)
			slot := d / int64(n)
			for c := 0; c < n && g.budget > 0; c++ {
				cs := s + int64(c)*slot + slot/10
				g.tree(depth+1, cs, slot*7/10)
			}
		}
	}
	g.zl.At(i).SetNext(uint32(g.zl.Len()))
	return s + d
}
