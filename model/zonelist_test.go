package model

import (
	"slices"
	"testing"
)

func zoneN(i int) Zone {
	return MakeZone(int64(i), int64(i)+1, SrcLocID(i%100), uint32(i), uint32(i+1))
}

func checkList(t *testing.T, l *ZoneList, n int) {
	t.Helper()
	if l.Len() != n {
		t.Fatalf("Len = %d, want %d", l.Len(), n)
	}
	for _, i := range []int{0, n / 3, n - 1} {
		if n > 0 && *l.At(i) != zoneN(i) {
			t.Fatalf("At(%d) = start %d", i, l.At(i).Start())
		}
	}
	count := 0
	for i, z := range l.All() {
		if i != count || *z != zoneN(i) {
			t.Fatalf("All: index %d (want %d) start %d", i, count, z.Start())
		}
		count++
	}
	if count != n {
		t.Fatalf("All yielded %d, want %d", count, n)
	}
	cs := l.Chunks()
	total := 0
	for k, c := range cs {
		if k < len(cs)-1 && len(c) != ZoneChunkLen {
			t.Fatalf("chunk %d of %d holds %d zones", k, len(cs), len(c))
		}
		total += len(c)
	}
	if total != n {
		t.Fatalf("chunks hold %d zones, want %d", total, n)
	}
}

// Appending across chunk boundaries keeps every zone at its index, never
// moves a full chunk, and Trim leaves no spare capacity.
func TestZoneListAppend(t *testing.T) {
	for _, n := range []int{0, 1, 64, 65, ZoneChunkLen - 1, ZoneChunkLen, ZoneChunkLen + 1, 3*ZoneChunkLen + 17} {
		var l ZoneList
		var first *Zone
		for i := range n {
			if got := l.Append(zoneN(i)); got != i {
				t.Fatalf("Append returned %d, want %d", got, i)
			}
			if i == ZoneChunkLen-1 {
				first = l.At(0)
			}
		}
		if first != nil && first != l.At(0) {
			t.Fatalf("n=%d: a full chunk moved", n)
		}
		checkList(t, &l, n)
		l.Trim()
		checkList(t, &l, n)
		if k := len(l.chunks) - 1; k >= 0 && l.used != len(l.last) {
			t.Fatalf("n=%d: after Trim room for %d", n, len(l.last)-l.used)
		}
		// Appending after Trim still works.
		l.Append(zoneN(n))
		checkList(t, &l, n+1)
	}
}

// Grow allocates every chunk once at its final size.
func TestZoneListGrow(t *testing.T) {
	n := 2*ZoneChunkLen + 5
	var l ZoneList
	l.Grow(n)
	for i := range n {
		l.Append(zoneN(i))
		if i == 0 && len(l.chunks[0]) != ZoneChunkLen {
			t.Fatalf("first chunk holds %d", len(l.chunks[0]))
		}
	}
	checkList(t, &l, n)
	if c := l.chunks[2]; len(c) != 5 {
		t.Fatalf("last chunk holds %d, want 5", len(c))
	}
	small := ZonesOf(zoneN(0), zoneN(1), zoneN(2))
	checkList(t, &small, 3)
	small.Grow(10)
	if len(small.chunks[0]) != 13 {
		t.Fatalf("Grow on a small list: room %d, want 13", len(small.chunks[0]))
	}
	checkList(t, &small, 3)
}

func TestZonesOfSlice(t *testing.T) {
	zs := make([]Zone, ZoneChunkLen+3)
	for i := range zs {
		zs[i] = zoneN(i)
	}
	l := ZonesOf(zs...)
	checkList(t, &l, len(zs))
	if !slices.Equal(l.Slice(), zs) {
		t.Fatal("Slice differs from the input")
	}
	if e := ZonesOf(); e.Len() != 0 || len(e.Slice()) != 0 || len(e.Chunks()) != 0 {
		t.Fatal("empty list")
	}
}

// The capture's hot path appends one zone per ZoneBegin; it must not
// allocate except for new chunks.
func BenchmarkZoneListAppend(b *testing.B) {
	b.ReportAllocs()
	var l ZoneList
	z := zoneN(1)
	for b.Loop() {
		if l.Len() == 16*ZoneChunkLen {
			l = ZoneList{}
		}
		l.Append(z)
	}
}
