package analysis_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
)

// TestSummarizeFromMatchesFresh: over every snapshot of real clients'
// streams replayed into a capture, the summary extended from an earlier
// snapshot's tally (the one just before, or one two before) equals the
// summary made afresh, and the tally walks only the new zones' count.
func TestSummarizeFromMatchesFresh(t *testing.T) {
	for _, name := range []string{"demo", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
			if err != nil {
				t.Fatal(err)
			}
			// A loaded machine may publish few snapshots while the stream
			// arrives; each try paces it slower, so that at least three
			// extensions of a non-empty tally are checked.
			for _, pause := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
				snaps, grown, unended := extendEverySnapshot(t, raw, pause)
				if grown >= 3 {
					t.Logf("paced %v: %d snapshots, %d extended, %d with open zones", pause, snaps, grown, unended)
					return
				}
				t.Logf("paced %v: %d snapshots, %d extended a non-empty tally; slower", pause, snaps, grown)
			}
			t.Fatal("too few snapshots extended a non-empty tally to check the extension")
		})
	}
}

// extendEverySnapshot replays raw into a capture, paced, and checks every
// snapshot's extended summary against a fresh one; it returns how many
// snapshots it saw, how many extended a non-empty tally and how many had
// open zones.
func extendEverySnapshot(t *testing.T, raw []byte, pause time.Duration) (snaps, grown, unended int) {
	t.Helper()
	p := capture.NewPublisher(time.Millisecond)
	p.Latest()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	capDone := make(chan error, 1)
	go func() {
		_, err := capture.Replay(ctx, fixtures.Paced(raw, 4096, pause), capture.WithPublisher(p), capture.WithLocalSources(false))
		capDone <- err
	}()
	var tallies []*analysis.ZoneTally
	var gen uint64
	for final := false; !final; {
		ch := p.Changed()
		s := p.Latest()
		if s != nil && s.Gen != gen {
			gen, final = s.Gen, s.Final
			plots := analysis.PlotsInTracyOrder(s.Trace)
			want := analysis.SummarizePlots(s.Trace, plots)
			var prev *analysis.ZoneTally
			if k := len(tallies) - 1 - snaps%2; k >= 0 {
				prev = tallies[k]
			}
			got, tally := analysis.SummarizeFrom(prev, s.Trace, plots)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("snapshot %d (%d zones): extended summary\n%+v\nwant\n%+v", s.Gen, s.Trace.ZoneCount(), got, want)
			}
			if tally.Zones() != s.Trace.ZoneCount() {
				t.Fatalf("tally counts %d zones, the trace has %d", tally.Zones(), s.Trace.ZoneCount())
			}
			if want.ZonesUnended > 0 {
				unended++
			}
			if prev != nil && prev.Zones() > 0 && prev.Zones() < tally.Zones() {
				grown++
			}
			tallies = append(tallies, tally)
			snaps++
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("the capture did not end")
		}
	}
	if err := <-capDone; err != nil && !errors.Is(err, capture.ErrUnanswered) {
		t.Fatal(err)
	}
	return snaps, grown, unended
}

// growingTree is one thread of n zones in pre-order whose nesting deepens
// as it goes (so the deepest zones come late, under ancestors open across
// many snapshots) with some zero-length leaves; prefixTrace is its prefix
// after m zones as a capture publishes it.
func growingTree(n int, seed uint64) []model.Zone {
	r := rand.New(rand.NewPCG(seed, 7))
	zs := make([]model.Zone, 0, n)
	var gen func(depth int, t *int64)
	gen = func(depth int, t *int64) {
		if len(zs) >= n {
			return
		}
		i := len(zs)
		start := *t
		zs = append(zs, model.MakeZone(start, 0, 1, 0, 0))
		*t += 1 + int64(r.IntN(3))
		maxDepth := 2 + len(zs)/1500
		if depth < maxDepth {
			for range r.IntN(4) {
				gen(depth+1, t)
			}
		}
		end := *t
		if len(zs) == i+1 && r.IntN(8) == 0 {
			end = start // a zero-length leaf
		}
		*t++
		zs[i].SetEnd(end)
		zs[i].SetNext(uint32(len(zs)))
	}
	var t int64
	for len(zs) < n {
		gen(0, &t)
	}
	return zs
}

func prefixTrace(full []model.Zone, m int, lastOpen bool) *model.Trace {
	zs := slices.Clone(full[:m])
	if m > 0 {
		// Published just after zone m-1 began (and, with lastOpen, before
		// it ended): what ends later is open, its subtree ending at m.
		now := zs[m-1].Start()
		for i := range zs {
			if zs[i].End() > now || int(zs[i].Next()) > m || (i == m-1 && lastOpen) {
				zs[i].SetNext(uint32(m))
				zs[i].SetEnd(-1)
			}
		}
	}
	tr := model.New()
	tr.Threads = []model.Thread{{ID: 9, Zones: model.ZonesOf(zs...)}}
	return tr
}

// TestSummarizeFromSynthetic: on a thread whose nesting deepens over time
// and whose open zones span snapshots, each extended summary equals the
// fresh one, prefix after prefix.
func TestSummarizeFromSynthetic(t *testing.T) {
	full := growingTree(60_000, 5)
	r := rand.New(rand.NewPCG(1, 2))
	var tally *analysis.ZoneTally
	for m := 0; m < len(full); {
		m = min(len(full), m+r.IntN(3000))
		tr := prefixTrace(full, m, r.IntN(2) == 0)
		want := analysis.SummarizePlots(tr, nil)
		got, next := analysis.SummarizeFrom(tally, tr, nil)
		if got.Zones != want.Zones || got.ZonesUnended != want.ZonesUnended || got.ZonesZeroLength != want.ZonesZeroLength || got.MaxZoneDepth != want.MaxZoneDepth {
			t.Fatalf("prefix %d: extended zones/unended/zero/depth %d %d %d %d, fresh %d %d %d %d", m,
				got.Zones, got.ZonesUnended, got.ZonesZeroLength, got.MaxZoneDepth, want.Zones, want.ZonesUnended, want.ZonesZeroLength, want.MaxZoneDepth)
		}
		tally = next
	}
}
