package symbols

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzResolveELF feeds corrupted ELF files through the whole path a real
// image takes (identification, symbol table, DWARF index, lookups, the
// compact symbol table). Any panic fails; errors are fine. The seeds are
// tiny static binaries with DWARF 4 and 5 and an inlined function at
// 0x401000.
func FuzzResolveELF(f *testing.F) {
	var addrs []uint64
	for a := uint64(0x400ff0); a < 0x401080; a += 3 {
		addrs = append(addrs, a)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzResolve(t, data, addrs) })
}

// FuzzResolvePE is FuzzResolveELF for PE images; the seeds are the MinGW
// DLLs of testdata/pe (with and without DWARF), whose code is at RVA 0x1000.
func FuzzResolvePE(f *testing.F) {
	var addrs []uint64
	for a := uint64(0x1000); a < 0x1600; a += 7 {
		addrs = append(addrs, a)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzResolve(t, data, addrs) })
}

// FuzzResolveMachO is FuzzResolveELF for Mach-O images; the seeds are
// small images built by tinyMachO (a symbol table and an LC_UUID, with and
// without a DWARF segment), whose code is at __TEXT-relative 0x400.
func FuzzResolveMachO(f *testing.F) {
	var addrs []uint64
	for a := uint64(0x3f0); a < 0x520; a += 5 {
		addrs = append(addrs, a)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzResolve(t, data, addrs) })
}

// fuzzResolve writes data as an image and takes it through everything a
// real image goes through: any panic fails; errors are fine.
func fuzzResolve(t *testing.T, data []byte, addrs []uint64) {
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("one input took %v", d)
		}
	}()
	p := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(WithDebugDirs(), WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := Image{Path: p}
	var reqs []Request
	for _, a := range addrs {
		reqs = append(reqs, Request{Image: img, Addr: a})
	}
	for _, res := range r.Resolve(context.Background(), reqs) {
		for _, fr := range res.Frames {
			_ = fr.Function + fr.File
		}
	}
	r.SymbolTable(img)
	r.Module(img)
	// addr2line mode reads more of the DWARF (abstract origins for the
	// linkage rule, every range for the smallest-range rule) and the
	// symbol table its own way, with mapped sections.
	ra, err := New(WithDebugDirs(), WithWorkers(1), WithAddr2line(true), WithMappedFiles(true))
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	for _, res := range ra.Addr2line(img).Resolve(context.Background(), addrs) {
		for _, fr := range res.Frames {
			_ = fr.Function + fr.File
		}
	}
}

// The seeds themselves must resolve, or the fuzzer starts from nothing.
func TestFuzzSeedsResolve(t *testing.T) {
	for _, name := range []string{"dwarf4-inline", "dwarf5-inline"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzResolveELF", name))
		if err != nil {
			t.Fatal(err)
		}
		data, err := parseFuzzBytes(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := filepath.Join(t.TempDir(), "img")
		os.WriteFile(p, data, 0o644)
		r, _ := New(WithDebugDirs())
		res := r.Lookup(Image{Path: p}, 0x401010)
		r.Close()
		if res.Err != nil || len(res.Frames) == 0 || res.Frames[len(res.Frames)-1].Function != "f" || res.Frames[0].File != "/src/tiny.c" {
			t.Errorf("%s: %+v", name, res)
		}
	}
}
