package analysis

import (
	"io"
	"testing"

	"github.com/gotracy/gotracy/model"
)

// fuzzTrace turns bytes into a trace: a script of zone begins and ends
// (possibly never ended, possibly negative lengths), texts, messages, plot
// points and allocations, then optional corruption of zone subtree links
// and source-location ids, as a damaged capture could leave them.
func fuzzTrace(data []byte) *model.Trace {
	b := model.NewBuilder()
	file := model.IdxRef(b.Intern("f.cpp"))
	ids := []model.SrcLocID{
		b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("A")), File: file, Line: 1}),
		b.AddStaticSrcLoc(2, model.SourceLocation{Function: model.IdxRef(b.Intern("b")), File: file}),
		b.AddDynSrcLoc(model.SourceLocation{Name: model.PtrRef(0xdead), File: file}),
		0, model.EmptySrcLoc, -100, 50,
	}
	now := int64(0)
	for i := 0; i+2 < len(data); i += 3 {
		op, arg, dt := data[i], data[i+1], int64(int8(data[i+2]))
		now += dt
		th := b.Thread(uint64(1 + op%3))
		switch op >> 2 % 8 {
		case 0, 1, 2:
			b.BeginZone(th, now, ids[int(arg)%len(ids)])
		case 3, 4:
			b.EndZone(th, now)
		case 5:
			if z := b.OpenZone(th); z >= 0 {
				b.SetZoneText(th, z, string(rune('a'+arg%26)))
			}
		case 6:
			b.PlotPoint(uint64(arg%4), now, float64(int8(arg)))
			b.AddMessage(uint64(1+op%3), model.Message{Time: now, Text: model.PtrRef(uint64(arg))})
		case 7:
			if arg%2 == 0 {
				b.MemAlloc(uint64(arg%3), uint64(arg), uint64(arg)*8, now, 1, 0)
			} else {
				b.MemFree(uint64(arg%3), uint64(arg-1), now, 1, 0)
			}
		}
	}
	tr := b.Finish()
	// Corrupt links from the tail of the input.
	for i := 0; i+3 < len(data) && i < 12; i += 4 {
		if len(tr.Threads) == 0 {
			break
		}
		th := &tr.Threads[int(data[i])%len(tr.Threads)]
		if th.Zones.Len() == 0 {
			break
		}
		z := th.Zones.At(int(data[i+1]) % th.Zones.Len())
		if data[i+2]&1 == 1 {
			z.SetNext(uint32(data[i+3]))
		}
	}
	return tr
}

func FuzzWriteCSV(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 1, 10, 12, 0, 5, 20, 2, 3, 12, 0, 1, 24, 7, 1, 28, 2, 9, 1, 3, 4})
	f.Add([]byte{0, 5, 1, 4, 4, 0, 12, 0, 0, 29, 8, 8, 16, 1, 200})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := fuzzTrace(data)
		total := uint64(tr.ZoneCount())
		st := ComputeZoneStats(tr, StatsOptions{KeepZones: true})
		if st.Zones+st.Skipped != total {
			t.Fatalf("counted %d + skipped %d != %d zones", st.Zones, st.Skipped, total)
		}
		for _, o := range []CSVOptions{{}, {SelfTime: true, TruncatedMean: 50}, {Unwrap: true, SelfTime: true, Plots: true},
			{Messages: true}, {GPU: true}, {Filter: "a", Separator: "\t"}} {
			if err := WriteCSV(io.Discard, tr, o); err != nil {
				t.Fatal(err)
			}
		}
		Summarize(tr)
	})
}
