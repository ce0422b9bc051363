package symbols

import (
	"context"
	"debug/elf"
	"math/rand"
	"slices"
	"testing"
)

// findSpan answers from back, which prepSpans derives; findRange, the
// plain look-back window, is the reference. Random tables with many
// overlapping and equal ranges (as the linker leaves at address 0) and
// long overlap chains must give the same index for every address.
func TestFindSpanMatchesFindRange(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		n := 1 + rng.Intn(200)
		var spans []span
		for i := 0; i < n; i++ {
			var lo, size uint64
			switch rng.Intn(4) {
			case 0: // a cluster at address 0
				lo, size = 0, uint64(rng.Intn(64))
			case 1: // a range covering many others
				lo, size = uint64(rng.Intn(4000)), uint64(rng.Intn(3000))
			default: // functions one after another
				lo, size = uint64(rng.Intn(4000)), 1+uint64(rng.Intn(40))
			}
			spans = append(spans, span{lo: lo, hi: lo + size, idx: int32(i)})
		}
		prepSpans(spans)
		ref := make([]addrRange, len(spans))
		for i, s := range spans {
			ref[i] = addrRange{s.lo, s.hi, s.idx}
		}
		for addr := uint64(0); addr < 7100; addr++ {
			if got, want := findSpan(spans, addr), findRange(ref, addr); got != want {
				t.Fatalf("table %d, address %d: findSpan %d, findRange %d", iter, addr, got, want)
			}
		}
	}
	if findSpan(nil, 5) != -1 {
		t.Error("empty table")
	}
}

// elfSymbolTable must read what debug/elf's Symbols and DynamicSymbols
// read, names included, for a C and a Go binary.
func TestELFSymbolTableMatchesDebugELF(t *testing.T) {
	for _, bin := range []string{
		cBinary(t, "c-O2", "gcc", "inline.c", "-O2"),
		goBinary(t, "goprog", ""),
	} {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range []elf.SectionType{elf.SHT_SYMTAB, elf.SHT_DYNSYM} {
			var want []elf.Symbol
			if typ == elf.SHT_SYMTAB {
				want, _ = f.Symbols()
			} else {
				want, _ = f.DynamicSymbols()
			}
			got := elfSymbolTable(f, typ)
			if len(got) != len(want) || len(want) == 0 && typ == elf.SHT_SYMTAB {
				t.Fatalf("%s %v: %d symbols, debug/elf %d", bin, typ, len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				if g.Name != w.Name || g.Info != w.Info || g.Other != w.Other || g.Section != w.Section ||
					g.Value != w.Value || g.Size != w.Size {
					t.Fatalf("%s %v symbol %d: got %+v, want %+v", bin, typ, i, g, w)
				}
			}
		}
		f.Close()
	}
}

// Resolve packs the frames of many results into shared slabs; each
// result's frames must be its own (capped, so appending to one cannot
// overwrite the next) and equal to what Lookup answers alone.
func TestResolveSlabsMatchLookup(t *testing.T) {
	bin := cBinary(t, "cxx-O2", "g++", "templates.cpp", "-O2")
	addrs := lineAddrs(t, bin, 0)
	var reqs []Request
	for i := 0; i < 3; i++ { // more than one chunk, and repeats
		for _, a := range addrs {
			reqs = append(reqs, Request{Image: Image{Path: bin}, Addr: a})
		}
	}
	reqs = append(reqs, Request{Image: Image{Path: bin}, Addr: 1}) // no frames
	r, _ := New(WithDebugDirs())
	defer r.Close()
	res := r.Resolve(context.Background(), reqs)
	for i := range res {
		if len(res[i].Frames) != cap(res[i].Frames) {
			t.Fatalf("result %d: %d frames with capacity %d", i, len(res[i].Frames), cap(res[i].Frames))
		}
		res[i].Frames = append(res[i].Frames, Frame{Function: "appended"})
	}
	for i, q := range reqs {
		want := r.Lookup(q.Image, q.Addr)
		got := res[i].Frames[:len(res[i].Frames)-1]
		if !slices.Equal(got, want.Frames) || (res[i].Err == nil) != (want.Err == nil) {
			t.Fatalf("address %#x: Resolve %+v (%v), Lookup %+v (%v)", q.Addr, got, res[i].Err, want.Frames, want.Err)
		}
	}
}
