package capture

import (
	"bytes"
	"context"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// GPU zones: a Vulkan-style (multi-threaded) context with a nested pair of
// serial zones whose GPU timestamps arrive later, with a GPU clock that
// runs at 2 ns per tick from its own origin.
func TestGPUZones(t *testing.T) {
	var refs protocol.TimeRefs
	var b []byte
	b = protocol.AppendGpuNewContext(b, 1000, 100, 0, 2, 3, 0, model.GpuVulkan)
	b, _ = protocol.AppendSingleString(b, "gpu ctx")
	b = protocol.AppendGpuContextName(b, 3)
	b = protocol.AppendGpuZoneBeginSerial(b, refs.Delta(protocol.TimeSerial, 2000), 5, 1, 3, 0x100)
	b = protocol.AppendGpuZoneBeginSerial(b, refs.Delta(protocol.TimeSerial, 2100), 5, 3, 3, 0x100)
	b = protocol.AppendGpuZoneEndSerial(b, refs.Delta(protocol.TimeSerial, 2200), 5, 4, 3)
	b = protocol.AppendGpuZoneEndSerial(b, refs.Delta(protocol.TimeSerial, 2300), 5, 2, 3)
	for _, q := range []struct {
		gpu int64
		id  uint16
	}{{1000, 1}, {1100, 3}, {1200, 4}, {1500, 2}} {
		b = protocol.AppendGpuTime(b, refs.Delta(protocol.TimeGPU, q.gpu), q.id, 3)
	}
	b = protocol.AppendTerminate(b)
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	// The stream has no answers for these: the replay says so.
	wantUnanswered(t, err, "1 source locations")
	check := func(tr *model.Trace) {
		t.Helper()
		if len(tr.GpuContexts) != 1 {
			t.Fatalf("%d GPU contexts", len(tr.GpuContexts))
		}
		g := tr.GpuContexts[0]
		if tr.Str(g.Name) != "gpu ctx" || g.Count != 2 || g.Type != model.GpuVulkan || g.Period != 2 || len(g.Timelines) != 1 {
			t.Fatalf("context %+v", g)
		}
		zs := g.Timelines[0].Zones
		if g.Timelines[0].Thread != 5 || len(zs) != 2 {
			t.Fatalf("timeline %+v", g.Timelines[0])
		}
		// GPU ns = 2*tick + (cpu(1000) - 2*100) = 2*tick + 800.
		want := []model.GpuZone{
			{CPUStart: 2000, CPUEnd: 2300, GPUStart: 2800, GPUEnd: 3800, Next: 2, SrcLoc: 1, QueryID: 1},
			{CPUStart: 2100, CPUEnd: 2200, GPUStart: 3000, GPUEnd: 3200, Next: 2, SrcLoc: 1, QueryID: 3},
		}
		for i := range want {
			z := zs[i]
			z.Thread = 0
			if z != want[i] {
				t.Errorf("zone %d = %+v, want %+v", i, z, want[i])
			}
		}
	}
	check(res.Trace)
	var file bytes.Buffer
	if err := tracefile.Write(&file, res.Trace); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	check(back)
}
