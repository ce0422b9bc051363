package symbols

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// NormalizePath of Tracy 0.14's client, case by case (TracyCallstack.cpp).
func TestTracyNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/../c/./d.cpp":                         "/a/c/d.cpp",
		"/work/public/client/../libbacktrace/x.cpp": "/work/public/libbacktrace/x.cpp",
		"/a//b/":       "/a/b",
		"/..":          "/",
		"/a/../../b":   "/b",
		"/":            "/",
		"/a/b.cpp":     "/a/b.cpp",
		"/a/.hidden/x": "/a/.hidden/x",
		"rel/../x.cpp": "rel/../x.cpp", // relative paths are sent as they are
		"":             "",
	} {
		if got := tracyNormalizePath(in); got != want {
			t.Errorf("tracyNormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRawJoin(t *testing.T) {
	for _, c := range [][3]string{
		{"/src/client", "../libbacktrace/dwarf.cpp", "/src/client/../libbacktrace/dwarf.cpp"},
		{"", "a.c", "a.c"},
		{"/x/", "a.c", "/x//a.c"}, // concat_filename's "%s/%s"
		{`C:\src`, "a.c", `C:\src\a.c`},
	} {
		if got := rawJoin(c[0], c[1]); got != c[2] {
			t.Errorf("rawJoin(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// Among ranges containing the address the shortest wins, equal lengths go
// to the later DIE, and the watermark stops the scan only where no earlier
// range reaches the address.
func TestA2lUnitFind(t *testing.T) {
	a := &a2lUnit{}
	a.spans = []a2lSpan{
		{lo: 0x100, hi: 0x400, node: 0}, // function
		{lo: 0x110, hi: 0x120, node: 1}, // inlined, short
		{lo: 0x200, hi: 0x300, node: 2}, // inlined
		{lo: 0x200, hi: 0x300, node: 3}, // same range, later DIE
		{lo: 0x500, hi: 0x600, node: 4},
	}
	a.finish()
	for addr, want := range map[uint64]int32{0x100: 0, 0x115: 1, 0x150: 0, 0x250: 3, 0x350: 0, 0x450: -1, 0x500: 4, 0x600: -1, 0x50: -1} {
		if got := a.find(addr); got != want {
			t.Errorf("find(%#x) = %d, want %d", addr, got, want)
		}
	}
}

func TestBetterFit(t *testing.T) {
	fn := a2lSym{value: 0x100, size: 0x20, fn: true, typed: true}
	notype := a2lSym{value: 0x100, size: 0x10}
	small := a2lSym{value: 0x100, size: 0x8, fn: true, typed: true}
	if betterFit(&fn, &notype, 0x104) {
		t.Error("an untyped symbol replaced a function covering the address")
	}
	if !betterFit(&fn, &small, 0x104) {
		t.Error("the smaller function covering the address did not win")
	}
	if betterFit(&fn, &small, 0x10c) {
		t.Error("a symbol not covering the address replaced one that does")
	}
	short := a2lSym{value: 0x100, size: 1}
	if !betterFit(&short, &fn, 0x110) {
		t.Error("when the current one falls short, the larger symbol must win")
	}
}

// a2lNames resolves addrs in one Addr2line session of the checked-in GCC
// binary and returns the innermost function names.
func a2lNames(t *testing.T, addrs ...uint64) []string {
	t.Helper()
	r, err := New(WithAddr2line(true), WithDebugDirs())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := r.Addr2line(Image{Path: "testdata/a2l-gcc.elf"})
	var out []string
	for _, res := range s.Resolve(context.Background(), addrs) {
		if res.Err != nil || len(res.Frames) == 0 {
			t.Fatalf("no answer: %v", res.Err)
		}
		out = append(out, res.Frames[0].Function)
	}
	return out
}

// binutils names a function without a linkage name by the ELF symbol at
// the address the first time it meets it, and keeps that name only when
// the symbol starts at the function's first range: scale's hot part
// starts at 0x1200 (symbol _ZL5scalePiii), its cold part at 0x1060
// (_ZL5scalePiii.cold). addr2line 2.40 prints exactly these sequences.
func TestAddr2lineSessionState(t *testing.T) {
	for _, c := range []struct {
		addrs []uint64
		want  []string
	}{
		{[]uint64{0x1060, 0x1204, 0x1062}, []string{"scale(int*, int, int) [clone .cold]", "scale", "scale"}},
		{[]uint64{0x1204, 0x1060}, []string{"scale(int*, int, int)", "scale(int*, int, int)"}},
	} {
		got := a2lNames(t, c.addrs...)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%#x: got %q, want %q", c.addrs, got, c.want)
		}
	}
	if _, err := exec.LookPath("addr2line"); err == nil {
		out, err := exec.Command("addr2line", "-f", "-C", "-e", "testdata/a2l-gcc.elf", "0x1060", "0x1204", "0x1062").Output()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if i%2 == 0 {
				names = append(names, l)
			}
		}
		if want := "scale(int*, int, int) [clone .cold]|scale|scale"; strings.Join(names, "|") != want {
			t.Errorf("installed addr2line prints %q, this test expects %q", names, want)
		}
	}
}

// Frames for traces (the default mode) are what a Tracy client sends:
// DWARF names and paths through Tracy's NormalizePath.
func TestTraceFramesNormalised(t *testing.T) {
	r, err := New(WithDebugDirs())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := Image{Path: "testdata/a2l-gcc.elf"}
	sawHelper := false
	for a := uint64(0x1060); a < 0x1268; a++ {
		res := r.Lookup(img, a)
		for _, f := range res.Frames {
			if strings.Contains(f.File, "/../") || strings.Contains(f.File, "/./") {
				t.Fatalf("%#x: file %q is not normalised", a, f.File)
			}
			if strings.HasSuffix(f.File, "/a2l/helper.h") {
				sawHelper = true
			}
		}
	}
	// libbacktrace names a function by its DWARF name, never by the ELF
	// symbol binutils substitutes.
	if res := r.Lookup(img, 0x1204); len(res.Frames) == 0 || res.Frames[0].Function != "scale" {
		t.Errorf("0x1204: got %+v, want the DWARF name scale", res.Frames)
	}
	if !sawHelper {
		t.Error("no frame in helper.h (reached through sub/../helper.h)")
	}
}

func TestDemangleGlobalCtors(t *testing.T) {
	for in, want := range map[string]string{
		"_GLOBAL__I_000101":       "global constructors keyed to 000101",
		"_GLOBAL__D_a":            "global destructors keyed to a",
		"_GLOBAL__I__Z3foov":      "global constructors keyed to foo()",
		"_GLOBAL__sub_I_000101_x": "_GLOBAL__sub_I_000101_x",
	} {
		if got := demangleName(in); got != want {
			t.Errorf("demangleName(%q) = %q, want %q", in, got, want)
		}
	}
}
