package symbols

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Mach-O and PE binaries come from Go's cross-compiler, which writes DWARF
// into both formats and an LC_UUID into Mach-O: no Apple or MinGW toolchain
// needed.

func symAddr(t *testing.T, r *Resolver, img Image, name string) uint64 {
	t.Helper()
	o, err := r.object(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range o.syms {
		if s.name == name {
			return s.addr - o.relBase
		}
	}
	t.Fatalf("%s: no symbol %s", img.Path, name)
	return 0
}

func checkWork(t *testing.T, r *Resolver, img Image) {
	t.Helper()
	a := symAddr(t, r, img, "main.work")
	res := r.Lookup(img, a+16)
	if res.Err != nil || len(res.Frames) == 0 {
		t.Fatalf("main.work+16: %+v", res)
	}
	f := res.Frames[len(res.Frames)-1]
	if f.Function != "main.work" || !strings.HasSuffix(f.File, "main.go") || f.Line < 14 || f.Line > 20 || f.FuncAddr != a {
		t.Fatalf("main.work+16 resolved to %+v (entry %#x)", f, a)
	}
}

func machoBinary(t *testing.T) string {
	t.Helper()
	src := goSrcDir(t)
	return build(t, "goprog-darwin", "go", func(out string) []string {
		return []string{"build", "-C", src, "-o", out, "."}
	})
}

func TestMachOAndDSYM(t *testing.T) {
	t.Setenv("GOOS", "darwin")
	t.Setenv("GOARCH", "arm64")
	bin := machoBinary(t)
	r, _ := New(WithDebugDirs())
	defer r.Close()
	img := Image{Path: bin}
	m, err := r.Module(img)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID.Kind != IDMachO || len(m.ID.Bytes) != 16 || m.Base == 0 || m.DebugPath != bin {
		t.Fatalf("module %+v", m)
	}
	checkWork(t, r, img)

	// An image without DWARF (section renamed, UUID kept) next to a dSYM
	// bundle holding the original.
	dir := t.TempDir()
	orig, _ := os.ReadFile(bin)
	img2 := bytes.Replace(orig, []byte("__debug_info\x00"), []byte("__xebug_info\x00"), 1)
	img2 = bytes.Replace(img2, []byte("__zdebug_info"), []byte("__xdebug_info"), 1)
	if bytes.Equal(img2, orig) {
		t.Fatal("no __debug_info section name found to hide")
	}
	p := filepath.Join(dir, "prog")
	os.WriteFile(p, img2, 0o755)
	dsym := filepath.Join(dir, "prog.dSYM", "Contents", "Resources", "DWARF", "prog")
	copyFile(t, bin, dsym)
	r2, _ := New(WithDebugDirs())
	defer r2.Close()
	m2, err := r2.Module(Image{Path: p})
	if err != nil || m2.DebugPath != dsym {
		t.Fatalf("dSYM not used: %+v, %v", m2, err)
	}
	checkWork(t, r2, Image{Path: p})

	// A dSYM with a different UUID is rejected.
	bad := bytes.Replace(orig, m.ID.Bytes, bytes.Repeat([]byte{0xAB}, 16), 1)
	os.WriteFile(dsym, bad, 0o644)
	r3, _ := New(WithDebugDirs())
	defer r3.Close()
	m3, err := r3.Module(Image{Path: p})
	if err != nil || m3.DebugPath != "" || !errors.Is(m3.Err, ErrBuildIDMismatch) {
		t.Fatalf("mismatching dSYM: %+v, %v", m3, err)
	}
	// Asking by breakpad id (what the symbol server receives) matches.
	bp := ID{Kind: IDBreakpad, Bytes: []byte(m.ID.Breakpad())}
	if _, err := r.Module(Image{Path: bin, ID: bp}); err != nil {
		t.Fatalf("lookup by breakpad id %s: %v", bp, err)
	}
}

func TestPE(t *testing.T) {
	t.Setenv("GOOS", "windows")
	t.Setenv("GOARCH", "amd64")
	src := goSrcDir(t)
	bin := build(t, "goprog.exe", "go", func(out string) []string {
		return []string{"build", "-C", src, "-o", out, "."}
	})
	r, _ := New(WithDebugDirs())
	defer r.Close()
	img := Image{Path: bin}
	m, err := r.Module(img)
	if err != nil {
		t.Fatal(err)
	}
	if m.Base != 0x140000000 {
		t.Errorf("PE image base %#x", m.Base)
	}
	checkWork(t, r, img)
}

func TestIDFormats(t *testing.T) {
	// A PE GUID is stored little-endian in its first three fields.
	pe := ID{Kind: IDPE, Bytes: []byte{0x8c, 0xec, 0xe4, 0x44, 0x41, 0x2f, 0x2b, 0x49, 0x93, 0x69, 0xd6, 0xb9, 0xa0, 0x59, 0x57, 0x7c, 2, 0, 0, 0}}
	if got := pe.Breakpad(); got != "44E4EC8C2F41492B9369D6B9A059577C2" {
		t.Errorf("PE breakpad id %s", got)
	}
	// ELF build ids are treated the same way, age 0 (what samply and the
	// Breakpad tools do).
	elfID := ID{Kind: IDGNU, Bytes: []byte{0x11, 0x00, 0x9b, 0xc7, 0xa4, 0xf4, 0x4e, 0xd7, 0x36, 0xb7, 0x9a, 0x41, 0x0d, 0x05, 0xd8, 0xf6, 0xd8, 0xfe, 0x07, 0x44}}
	if got := elfID.Breakpad(); got != "C79B0011F4A4D74E36B79A410D05D8F60" {
		t.Errorf("ELF breakpad id %s", got)
	}
	if !elfID.Equal(ID{Kind: IDBreakpad, Bytes: []byte("c79b0011f4a4d74e36b79a410d05d8f60")}) {
		t.Error("breakpad id does not match its ELF id")
	}
	if elfID.Equal(ID{Kind: IDGo, Bytes: elfID.Bytes}) {
		t.Error("ids of different kinds matched")
	}
	for _, s := range []string{"11009bc7a4f44ed736b79a410d05d8f6d8fe0744", "go:abc/def", "breakpad:C79B0011F4A4D74E36B79A410D05D8F60"} {
		id, err := ParseID(s)
		if err != nil || id.IsZero() {
			t.Errorf("ParseID(%q) = %v, %v", s, id, err)
		}
	}
	if _, err := ParseID("zz"); err == nil {
		t.Error("ParseID accepted non-hex")
	}
}
