package capture

import (
	"math/rand/v2"
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
	run := func(slow bool) *worker { return applyItems(t, b, slow, len(b)) }
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

// The fast paths (zoneRun, leafZone, leafRun) against the general loop on a
// random stream: several threads switched between with zones open, nesting,
// leaves of repeating and changing source locations, deltas that need the
// 32-bit and 64-bit items, and more zones than a chunk holds, so leaf runs
// cross chunk boundaries. Every thread's zones must agree field for field.
func TestZoneFastPathsMatchProcessRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var refs protocol.TimeRefs
	var b []byte
	srclocs := []uint64{0x1000, 0x1010, 0x1020}
	open := map[uint32]int{} // thread -> open depth
	cur := uint32(1)
	b = refs.AppendThreadContext(b, cur)
	now := int64(1000)
	zones := 0
	target := model.ZoneChunkLen*2 + 1000
	for zones < target {
		switch r := rng.IntN(1000); {
		case r < 2: // another thread, zones of this one left open
			cur = uint32(1 + rng.IntN(3))
			b = refs.AppendThreadContext(b, cur)
		case r < 4:
			now += 70000 + rng.Int64N(1<<33) // past the 16-bit (and sometimes 32-bit) delta
		case r < 60 && open[cur] < 6:
			now += rng.Int64N(20)
			b = refs.AppendZoneBegin(b, now, srclocs[rng.IntN(len(srclocs))])
			open[cur]++
		case r < 120 && open[cur] > 0:
			now += rng.Int64N(20)
			b = refs.AppendZoneEnd(b, now)
			open[cur]--
			zones++
		default: // a leaf, mostly of the last source location
			sl := srclocs[0]
			if rng.IntN(50) == 0 {
				sl = srclocs[rng.IntN(len(srclocs))]
			}
			now += rng.Int64N(30)
			b = refs.AppendZoneBegin(b, now, sl)
			now += rng.Int64N(30)
			b = refs.AppendZoneEnd(b, now)
			zones++
		}
	}
	for th, d := range open {
		b = refs.AppendThreadContext(b, th)
		for ; d > 0; d-- {
			now++
			b = refs.AppendZoneEnd(b, now)
			zones++
		}
	}
	run := func(slow bool) *worker { return applyItems(t, b, slow, 64<<10) }
	fast, slow := run(false), run(true)
	if fast.events != slow.events || fast.zones != slow.zones {
		t.Fatalf("events %d/%d zones %d/%d", fast.events, slow.events, fast.zones, slow.zones)
	}
	if len(fast.threads) != len(slow.threads) {
		t.Fatalf("threads %d/%d", len(fast.threads), len(slow.threads))
	}
	total := 0
	for id, ft := range fast.threads {
		st := slow.threads[id]
		if st == nil || ft.zones.Len() != st.zones.Len() {
			t.Fatalf("thread %d: zones differ in number", id)
		}
		for i := range ft.zones.Len() {
			if *ft.zones.At(i) != *st.zones.At(i) {
				t.Fatalf("thread %d zone %d: fast %+v, general %+v", id, i, *ft.zones.At(i), *st.zones.At(i))
			}
		}
		total += ft.zones.Len()
	}
	if total != zones {
		t.Fatalf("%d zones stored, %d sent", total, zones)
	}
}

// applyItems runs the items in b through a fresh worker: item by item
// through process (slow), or through processFrame in pieces of about
// piece bytes cut at item boundaries, as the reader hands frames over.
func applyItems(t *testing.T, b []byte, slow bool, piece int) *worker {
	t.Helper()
	w := newWorker(model.New(), newQueryQueue(0, true))
	w.start(hello{welcome: protocol.Welcome{TimerMul: 1, InitEnd: 10, Flags: protocol.FlagCodeTransfer, ExecTime: 1}})
	var d protocol.ItemDecoder
	d.Reset(b, 0)
	from, at := 0, 0
	for {
		it, ok := d.Next()
		if !ok {
			break
		}
		if slow {
			w.events++
			w.process(it)
			continue
		}
		at += len(it.Raw)
		if at-from >= piece {
			if err := w.processFrame(b[from:at], 0); err != nil {
				t.Fatal(err)
			}
			from = at
		}
	}
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	if !slow {
		if err := w.processFrame(b[from:], 0); err != nil {
			t.Fatal(err)
		}
	}
	if w.fail != nil {
		t.Fatal(w.fail)
	}
	return w
}

// TestStoreStringMemo: the memoised interning gives every content one id,
// the one storeString gives it, whatever the order of repeats (the memo
// holds two entries; the third distinct string must still be found).
func TestStoreStringMemo(t *testing.T) {
	w := newWorker(model.New(), newQueryQueue(0, true))
	var m strMemo
	seq := []string{"a", "img", "a", "img", "b", "b", "c", "a", "img", "c", "", "a", ""}
	ids := map[string]model.StrID{}
	for _, s := range seq {
		id := w.storeStringMemo([]byte(s), &m)
		if w.t.Strings[id] != s {
			t.Fatalf("%q stored as %d, which holds %q", s, id, w.t.Strings[id])
		}
		if prev, ok := ids[s]; ok && prev != id {
			t.Fatalf("%q got id %d, earlier %d", s, id, prev)
		}
		ids[s] = id
		if want := w.storeString([]byte(s)); want != id {
			t.Fatalf("%q: memo gave %d, storeString %d", s, id, want)
		}
	}
	seen := map[string]bool{}
	for _, s := range w.t.Strings[1:] { // 0 is the trace's "no string"
		if seen[s] {
			t.Fatalf("%q interned twice", s)
		}
		seen[s] = true
	}
}
