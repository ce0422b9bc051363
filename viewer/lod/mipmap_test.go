package lod

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
)

// buildWithMipmaps is Build with the mipmaps on (Build leaves them off).
func buildWithMipmaps(t *testing.T, tr *model.Trace) *Index {
	t.Helper()
	ix := Build(tr).withMipmaps()
	stored := 0
	for i := range ix.cpu {
		if m := ix.cpu[i].mip; m != nil {
			for _, l := range m.levels {
				for _, r := range l {
					stored += len(r.first)
				}
			}
		}
	}
	if stored == 0 {
		t.Fatal("the mipmaps store no run: the test would check nothing")
	}
	return ix
}

// TestMipmapMatchesNaive: with mipmaps the walk jumps over stored runs, and
// every item is still the reference's (synthetic trees at many zooms, and a
// dense heavy thread), while it reads fewer zones.
func TestMipmapMatchesNaive(t *testing.T) {
	for _, tr := range []*model.Trace{
		synthtrace.Make(synthtrace.Spec{Zones: 200_000, Threads: 4, MaxDepth: 20, Seed: 11}),
		heavyTrace(300_000, 12),
	} {
		ix := buildWithMipmaps(t, tr)
		plain := withoutMipmaps(ix)
		last := tr.Metadata.LastTime
		r := rand.New(rand.NewPCG(5, 5))
		qs := []Query{{T0: 0, T1: last, Width: 2000}, {T0: 0, T1: last, Width: 100, MinPx: 1}, {T0: last / 2, T1: last/2 + last/1000, Width: 2000}}
		for range 40 {
			span := max(int64(float64(last)*math.Pow(10, -4*r.Float64())), 10)
			t0 := r.Int64N(last) - span/3
			qs = append(qs, Query{T0: t0, T1: t0 + span, Width: 200 + r.IntN(2000), MinPx: []float64{0, 1, 2, 5}[r.IntN(4)]})
		}
		fewer := false
		for _, q := range qs {
			checkAgainstNaive(t, tr, ix, q)
			pm, nm := queryProbes(ix, q)
			pp, np := queryProbes(plain, q)
			if nm != np {
				t.Fatalf("%+v: %d items with mipmaps, %d without", q, nm, np)
			}
			fewer = fewer || pm < pp
		}
		if !fewer {
			t.Error("the mipmaps never saved a zone read")
		}
	}
}

// FuzzMipmapTimeline is FuzzTimeline with the mipmaps on: a zone tree from
// the input (each byte opens a child, closes the current zone, or leaves a
// gap), one window, every item against the reference.
func FuzzMipmapTimeline(f *testing.F) {
	siblings := make([]byte, 0, 1200)
	for i := range 600 {
		siblings = append(siblings, 0, 1)
		if i%97 == 0 {
			siblings = append(siblings, 2, 0, 0, 1, 1) // a gap, a nested pair
		}
	}
	f.Add(siblings, int64(0), int64(1<<20), uint16(100))
	f.Add(siblings, int64(300), int64(900), uint16(7))
	f.Add([]byte{0, 0, 1, 1, 0, 2, 1}, int64(0), int64(100), uint16(10))
	f.Fuzz(func(t *testing.T, shape []byte, t0, span int64, width uint16) {
		if len(shape) > 8192 {
			shape = shape[:8192]
		}
		b := model.NewBuilder()
		th := b.Thread(1)
		loc := b.AddStaticSrcLoc(1, model.SourceLocation{Line: 1})
		tm := int64(0)
		for _, c := range shape {
			switch c % 4 {
			case 0:
				b.BeginZone(th, tm, loc)
			case 1:
				b.EndZone(th, tm)
			case 2:
				tm += int64(c) * 3
			}
			tm += int64(c%16) + 1
		}
		b.Observe(tm)
		tr := b.Finish()
		if span <= 0 || span > 1<<40 || t0 < -1<<40 || t0 > 1<<40 {
			return
		}
		q := Query{T0: t0, T1: t0 + span, Width: int(width%4000) + 1}
		checkAgainstNaive(t, tr, Build(tr).withMipmaps(), q)
	})
}
