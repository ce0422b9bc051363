package capture

import (
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// The fast path's item sizes are the protocol's.
func TestZoneRunSizes(t *testing.T) {
	if got := protocol.Specs[protocol.ZoneBegin16].Size; got != zoneBegin16Size {
		t.Errorf("ZoneBegin16 is %d bytes, zoneRun takes %d", got, zoneBegin16Size)
	}
	if got := protocol.Specs[protocol.ZoneEnd16].Size; got != zoneEnd16Size {
		t.Errorf("ZoneEnd16 is %d bytes, zoneRun takes %d", got, zoneEnd16Size)
	}
}

// zoneRun and the general loop make the same zones from the same items:
// nested ZoneBegin16/ZoneEnd16 runs through processFrame (fast path) and
// item by item through process must agree zone for zone.
func TestZoneRunMatchesProcess(t *testing.T) {
	var refs protocol.TimeRefs
	var b []byte
	b = refs.AppendThreadContext(b, 3)
	want := 0
	for i := range 2000 {
		b = refs.AppendZoneBegin(b, int64(1000+i*10), 0x1000)
		if i%3 == 0 {
			b = refs.AppendZoneBegin(b, int64(1002+i*10), 0x1010)
			b = refs.AppendZoneEnd(b, int64(1004+i*10))
			want++
		}
		b = refs.AppendZoneEnd(b, int64(1008+i*10))
		want++
	}
	run := func(slow bool) *worker {
		w := newWorker(model.New(), newQueryQueue(0, true))
		w.start(hello{welcome: protocol.Welcome{TimerMul: 1, InitEnd: 10, Flags: protocol.FlagCodeTransfer, ExecTime: 1}})
		if slow {
			var d protocol.ItemDecoder
			d.Reset(b, 0)
			for {
				it, ok := d.Next()
				if !ok {
					break
				}
				w.events++
				w.process(it)
			}
			if d.Err() != nil {
				t.Fatal(d.Err())
			}
		} else if err := w.processFrame(b, 0); err != nil {
			t.Fatal(err)
		}
		if w.fail != nil {
			t.Fatal(w.fail)
		}
		return w
	}
	fast, slow := run(false), run(true)
	if fast.events != slow.events || fast.zones != slow.zones || fast.zones != uint64(want) {
		t.Fatalf("events %d/%d zones %d/%d (want %d)", fast.events, slow.events, fast.zones, slow.zones, want)
	}
	ft, st := fast.currentThread(), slow.currentThread()
	if ft.zones.Len() != want || ft.zones.Len() != st.zones.Len() {
		t.Fatalf("zones %d/%d", ft.zones.Len(), st.zones.Len())
	}
	for i := range ft.zones.Len() {
		if *ft.zones.At(i) != *st.zones.At(i) {
			t.Fatalf("zone %d: fast %+v, general %+v", i, *ft.zones.At(i), *st.zones.At(i))
		}
	}
}
