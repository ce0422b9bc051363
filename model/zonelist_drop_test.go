package model

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// dropRef is the reference a DropFront test checks a list against: per
// zone still held, its start (unique) and its subtree size.
type dropRef struct {
	start []int64
	size  []int
	root  []bool
}

// appendTree appends a top-level zone with kids children (each childless)
// to l and ref, numbering starts from *next.
func appendTree(l *ZoneList, ref *dropRef, next *int64, kids int) {
	root, _ := l.AppendZero()
	*l.At(root) = MakeZone(*next, *next+int64(kids)+1, 1, 0, 0)
	ref.start, ref.size, ref.root = append(ref.start, *next), append(ref.size, kids+1), append(ref.root, true)
	*next++
	for range kids {
		i := l.Append(MakeZone(*next, *next+1, 2, 0, 0))
		l.SetNextOf(l.At(i), i+1)
		ref.start, ref.size, ref.root = append(ref.start, *next), append(ref.size, 1), append(ref.root, false)
		*next++
	}
	l.SetNextOf(l.At(root), l.Len())
}

func checkDropRef(t *testing.T, l *ZoneList, ref *dropRef) {
	t.Helper()
	if l.Len() != len(ref.start) {
		t.Fatalf("Len = %d, want %d", l.Len(), len(ref.start))
	}
	for i := range ref.start {
		z := l.At(i)
		if z.Start() != ref.start[i] || l.NextOf(z) != i+ref.size[i] {
			t.Fatalf("zone %d: start %d next %d, want start %d next %d", i, z.Start(), l.NextOf(z), ref.start[i], i+ref.size[i])
		}
	}
	// The other ways to read it agree with At.
	n := 0
	for i, z := range l.All() {
		if z != l.At(i) {
			t.Fatalf("All yields zone %d at another address", i)
		}
		n++
	}
	if n != l.Len() {
		t.Fatalf("All yields %d zones, want %d", n, l.Len())
	}
	m := 0
	for _, c := range l.Chunks() {
		for j := range c {
			if &c[j] != l.At(m+j) {
				t.Fatalf("Chunks: zone %d at another address", m+j)
			}
		}
		if len(c) > 0 && &l.Run(m)[0] != &c[0] {
			t.Fatalf("Run(%d) does not start at its zone", m)
		}
		m += len(c)
	}
	if m != l.Len() {
		t.Fatalf("Chunks hold %d zones, want %d", m, l.Len())
	}
	var roots []int
	for i := range Roots(l) {
		roots = append(roots, i)
	}
	var want []int
	for i, r := range ref.root {
		if r {
			want = append(want, i)
		}
	}
	if !slices.Equal(roots, want) {
		t.Fatalf("Roots yields %d zones, want the %d trees", len(roots), len(want))
	}
}

// encodeList is a byte image of what a list holds, to compare a shared
// copy before and after the owner went on.
func encodeList(l *ZoneList) []byte {
	var b []byte
	for i, z := range l.All() {
		b = binary.LittleEndian.AppendUint64(b, uint64(z.Start()))
		b = binary.LittleEndian.AppendUint64(b, uint64(z.End()))
		b = binary.LittleEndian.AppendUint64(b, uint64(l.NextOf(z)-i))
	}
	return b
}

// TestZoneListDropFront: a list that appends trees and drops whole
// top-level trees from its front, over many chunks and many drops, keeps
// every index and subtree link valid without rewriting a zone, releases
// the chunks wholly dropped (memory bounded by what it holds plus a chunk
// at each end), and never writes what a Share copy taken earlier holds.
func TestZoneListDropFront(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l ZoneList
	var ref dropRef
	var next int64 = 1
	type shared struct {
		l   ZoneList
		img []byte
	}
	var shares []shared
	const window = ZoneChunkLen + ZoneChunkLen/2
	for round := range 60 {
		for l.Len() < window {
			appendTree(&l, &ref, &next, rng.IntN(4))
		}
		// Drop a random number of whole trees from the front.
		want := rng.IntN(l.Len() / 2)
		d := 0
		for d < want {
			d += ref.size[d]
		}
		l.DropFront(d)
		ref.start, ref.size, ref.root = ref.start[d:], ref.size[d:], ref.root[d:]
		if round%7 == 0 {
			checkDropRef(t, &l, &ref)
		}
		if held := l.footprint(); held > l.Len()+2*ZoneChunkLen {
			t.Fatalf("round %d: %d zones held in chunks for %d kept", round, held, l.Len())
		}
		if round%10 == 0 {
			s := l.Share()
			shares = append(shares, shared{s, encodeList(&s)})
		}
	}
	checkDropRef(t, &l, &ref)
	for k, s := range shares {
		if !bytes.Equal(encodeList(&s.l), s.img) {
			t.Fatalf("share %d changed after the owner dropped and appended", k)
		}
	}
	// Dropping everything leaves an empty list that goes on numbering
	// from zero.
	l.DropFront(l.Len())
	ref = dropRef{}
	if l.Len() != 0 || len(l.Chunks()) != 0 {
		t.Fatalf("after dropping everything: Len %d, %d chunks", l.Len(), len(l.Chunks()))
	}
	appendTree(&l, &ref, &next, 3)
	checkDropRef(t, &l, &ref)
}

// TestZoneListOriginWraps: the stored Next is index+origin modulo 2^32, so
// a list that dropped more than 4G zones over its life (a flight recorder
// running for hours at full rate) still links its zones right.
func TestZoneListOriginWraps(t *testing.T) {
	l := ZoneList{org: math.MaxUint32 - 5}
	var ref dropRef
	var next int64 = 1
	for range 10 {
		appendTree(&l, &ref, &next, 2)
	}
	checkDropRef(t, &l, &ref)
	l.DropFront(3)
	ref.start, ref.size, ref.root = ref.start[3:], ref.size[3:], ref.root[3:]
	checkDropRef(t, &l, &ref)
	if !HasChildren(&l, 0) || HasChildren(&l, 1) {
		t.Fatal("HasChildren wrong across the origin's wrap")
	}
}

// TestZoneListRecyclesDroppedChunks: a list whose front is dropped as fast
// as it grows (a flight recorder's window) reuses the chunks it let go, so
// over a stream forty windows long it allocates about one window of chunks
// plus a constant, not the stream; chunks a Share copy was given are never
// reused (the copies read the same zones at the end), and the list stays
// exact.
func TestZoneListRecyclesDroppedChunks(t *testing.T) {
	allocated := ZoneChunkBytesAllocated()
	rng := rand.New(rand.NewPCG(3, 4))
	var l ZoneList
	var ref dropRef
	var next int64 = 1
	type shared struct {
		l   ZoneList
		img []byte
	}
	var shares []shared
	const window = 2*ZoneChunkLen + ZoneChunkLen/3
	appended := 0
	for round := 0; appended < 40*window; round++ {
		for l.Len() < window {
			appendTree(&l, &ref, &next, rng.IntN(8))
		}
		appended += l.Len() - window/2
		// Drop whole trees down to about half a window.
		d := 0
		for l.Len()-d > window/2 {
			d += ref.size[d]
		}
		l.DropFront(d)
		ref.start, ref.size, ref.root = ref.start[d:], ref.size[d:], ref.root[d:]
		if round%9 == 0 {
			checkDropRef(t, &l, &ref)
		}
		if round%25 == 3 {
			s := l.Share()
			shares = append(shares, shared{s, encodeList(&s)})
			// A copy that drops keeps nothing for reuse: the owner
			// still holds what it drops.
			c := l.Share()
			c.DropFront(c.Len())
			if c.FreeChunks() != 0 {
				t.Fatalf("a Share copy kept %d dropped chunks for reuse", c.FreeChunks())
			}
		}
	}
	checkDropRef(t, &l, &ref)
	for k, s := range shares {
		if !bytes.Equal(encodeList(&s.l), s.img) {
			t.Fatalf("share %d changed: a chunk it holds was reused", k)
		}
	}
	allocated = ZoneChunkBytesAllocated() - allocated
	zb := int64(unsafe.Sizeof(Zone{}))
	// One window, the chunk partly dropped at each end, and per share the
	// chunks it pins (up to a window's, which then cannot be reused).
	bound := (int64(window) + 2*ZoneChunkLen + int64(len(shares))*(window+2*ZoneChunkLen)) * zb
	if allocated > bound {
		t.Fatalf("allocated %d MB of chunks over a stream of %d MB (window %d MB): bound %d MB",
			allocated>>20, int64(appended)*zb>>20, int64(window)*zb>>20, bound>>20)
	}
	if l.FreeChunks() > maxFreeChunks {
		t.Fatalf("%d chunks kept for reuse", l.FreeChunks())
	}
	t.Logf("allocated %d MB of chunks over a stream of %d MB, window %d MB, %d shares", allocated>>20, int64(appended)*zb>>20, int64(window)*zb>>20, len(shares))
}

// TestZoneListTakeFreeChunks: a list copying another one that drops what
// it has read writes into the chunks let go, so the copy allocates one
// chunk, not the list; chunks a Share copy was given are never written
// (the copy allocates those); Trim lets the spare chunks go.
func TestZoneListTakeFreeChunks(t *testing.T) {
	for _, shareChunks := range []int{0, 3} {
		var old ZoneList
		const n = 6 * ZoneChunkLen
		var sh ZoneList
		for i := range n {
			if i == shareChunks*ZoneChunkLen && shareChunks > 0 {
				sh = old.Share()
			}
			old.Append(MakeZone(int64(i), int64(i)+1, 1, 0, 0))
		}
		allocated := ZoneChunkBytesAllocated()
		var nl ZoneList
		nl.Grow(n)
		nl.TakeFreeChunks(&old)
		for old.Len() > 0 {
			c := old.Run(0)
			for k := range c {
				nl.Append(c[k])
			}
			old.DropFront(len(c))
			nl.TakeFreeChunks(&old)
		}
		allocated = ZoneChunkBytesAllocated() - allocated
		for i := range n {
			if z := nl.At(i); z.Start() != int64(i) {
				t.Fatalf("share %d: zone %d starts at %d after the copy", shareChunks, i, z.Start())
			}
		}
		for i := range sh.Len() {
			if z := sh.At(i); z.Start() != int64(i) {
				t.Fatalf("the share's zone %d was written: starts at %d", i, z.Start())
			}
		}
		// The copy's first chunk is new (nothing was let go yet); each
		// later one is a chunk just let go, unless a share may read it.
		want := int64(max(1, shareChunks+1)) * ZoneChunkLen * 22
		if allocated != want {
			t.Errorf("%d chunks shared: the copy of 6 chunks allocated %.1f chunks, want %d", shareChunks, float64(allocated)/(ZoneChunkLen*22), want/(ZoneChunkLen*22))
		}
		if nl.FreeChunks() == 0 {
			t.Errorf("%d chunks shared: the copy kept no spare chunk", shareChunks)
		}
		nl.Trim()
		if nl.FreeChunks() != 0 {
			t.Errorf("Trim kept %d spare chunks", nl.FreeChunks())
		}
	}
}
