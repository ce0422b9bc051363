package symbols

import (
	"bufio"
	"bytes"
	"debug/pe"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
)

// PE files as a C toolchain writes them: a DLL built by MinGW from
// testdata/src/pedll.c with
//
//	x86_64-w64-mingw32-gcc -g -O2 -shared -nostdlib -Wl,--build-id \
//	    -Wl,-e,DllMainCRTStartup -o work.dll pedll.c
//	x86_64-w64-mingw32-strip -o work-stripped.dll work.dll
//
// (DWARF in PE sections, an export table, a CodeView RSDS record from
// --build-id). Both are checked in, 20 KB together, so the tests need no
// MinGW toolchain; the Go-built PE of TestPE has neither exports nor
// CodeView. testdata/pe/work.dll.addr2line holds binutils addr2line's
// answers (its PE reader, not ours) for every line row of the DLL and the
// byte after it; the test checks the golden against a live addr2line where
// one is installed, and -update rewrites it.

const (
	peDLL      = "testdata/pe/work.dll"
	peStripped = "testdata/pe/work-stripped.dll"
	peGolden   = "testdata/pe/work.dll.addr2line"
	// peBreakpad is the RSDS GUID and age in Breakpad form, as
	// `objdump -p` prints them ("signature 4670feda... age 1").
	peBreakpad = "4670FEDA0F752F9ECF51F023800F030D1"
	peBase     = 0x251f50000
)

// peLineAddrs returns the file addresses (image base included) of the
// DLL's DWARF line rows and the byte after each, read with debug/pe and
// debug/dwarf rather than through this package.
func peLineAddrs(t *testing.T, path string) []uint64 {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	var addrs []uint64
	for _, a := range symtest.DWARFLineAddrs(d) {
		addrs = append(addrs, a, a+1)
	}
	slices.Sort(addrs)
	return slices.Compact(addrs)
}

// formatPEGolden renders answers one address a line:
// "0xADDR<TAB>fn@file:line<TAB>..." innermost frame first.
func formatPEGolden(addrs []uint64, frames [][]refFrame) []byte {
	var b bytes.Buffer
	for i, a := range addrs {
		fmt.Fprintf(&b, "%#x", a)
		for _, f := range frames[i] {
			fmt.Fprintf(&b, "\t%s@%s:%d", f.fn, f.file, f.line)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func parsePEGolden(t *testing.T, data []byte) ([]uint64, [][]refFrame) {
	t.Helper()
	var addrs []uint64
	var frames [][]refFrame
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		a, err := strconv.ParseUint(strings.TrimPrefix(fields[0], "0x"), 16, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", peGolden, sc.Text(), err)
		}
		var fs []refFrame
		for _, f := range fields[1:] {
			fn, fl, ok := strings.Cut(f, "@")
			if !ok {
				t.Fatalf("%s: frame %q", peGolden, f)
			}
			file, line := splitFileLine(fl)
			if file == "??" {
				file = ""
			}
			fs = append(fs, refFrame{fn: fn, file: file, line: line})
		}
		addrs = append(addrs, a)
		frames = append(frames, fs)
	}
	return addrs, frames
}

func TestPEMinGWDWARF(t *testing.T) {
	addrs := peLineAddrs(t, peDLL)
	if len(addrs) < 40 {
		t.Fatalf("only %d line addresses in %s", len(addrs), peDLL)
	}
	if v, err := exec.Command("addr2line", "--version").Output(); err != nil {
		t.Log("addr2line not installed: comparing with the checked-in golden only")
	} else if line, _, _ := strings.Cut(string(v), "\n"); !strings.HasSuffix(strings.TrimSpace(line), " 2.40") {
		// The golden was recorded with binutils 2.40; another release may
		// differ in its own ways, so it is not compared live.
		t.Logf("addr2line is %q, not 2.40: comparing with the checked-in golden only", line)
	} else {
		live := formatPEGolden(addrs, addr2line(t, peDLL, addrs))
		if *update {
			if err := os.WriteFile(peGolden, live, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if old, err := os.ReadFile(peGolden); err != nil || !bytes.Equal(old, live) {
			t.Errorf("%s is not what addr2line prints now (err %v); run with -update", peGolden, err)
		}
	}
	data, err := os.ReadFile(peGolden)
	if err != nil {
		t.Fatal(err)
	}
	gAddrs, want := parsePEGolden(t, data)
	if !slices.Equal(gAddrs, addrs) {
		t.Fatalf("%s lists %d addresses, the DLL has %d line addresses", peGolden, len(gAddrs), len(addrs))
	}

	r, _ := New(WithDebugDirs())
	defer r.Close()
	img := Image{Path: peDLL}
	m, err := r.Module(img)
	if err != nil {
		t.Fatal(err)
	}
	if m.Base != peBase || m.Err != nil || m.DebugPath == "" {
		t.Fatalf("module %+v", m)
	}
	rel := make([]uint64, len(addrs))
	for i, a := range addrs {
		rel[i] = a - m.Base // the resolver takes image-relative addresses
	}
	var inlined int
	for _, fs := range want {
		if len(fs) > 1 {
			inlined++
		}
	}
	if inlined == 0 {
		t.Error("no address has inlined frames: the DLL no longer exercises inlining")
	}
	compareFrames(t, r, img, rel, want, nil)
}

// TestPEMinGWIDs: the CodeView id is read, matches objdump's reading of it,
// survives strip, and a file whose id differs from the image's is refused.
func TestPEMinGWIDs(t *testing.T) {
	r, _ := New(WithDebugDirs())
	defer r.Close()
	for _, p := range []string{peDLL, peStripped} {
		m, err := r.Module(Image{Path: p})
		if err != nil {
			t.Fatal(err)
		}
		if m.ID.Kind != IDPE || m.ID.Breakpad() != peBreakpad {
			t.Errorf("%s: id %v (breakpad %s), want %s", p, m.ID, m.ID.Breakpad(), peBreakpad)
		}
	}
	if _, err := exec.LookPath("objdump"); err == nil {
		out, err := exec.Command("objdump", "-p", peDLL).Output()
		if err != nil {
			t.Fatal(err)
		}
		mm := regexp.MustCompile(`RSDS signature ([0-9a-f]{32}) age (\d+)`).FindSubmatch(out)
		if mm == nil {
			t.Fatalf("objdump -p shows no RSDS record:\n%s", out)
		}
		age, _ := strconv.ParseUint(string(mm[2]), 10, 32)
		if got := strings.ToUpper(string(mm[1])) + strings.ToUpper(strconv.FormatUint(age, 16)); got != peBreakpad {
			t.Errorf("objdump reads the id as %s, we as %s", got, peBreakpad)
		}
	}

	id, _ := ParseID("breakpad:" + peBreakpad)
	if _, err := r.Module(Image{Path: peDLL, ID: id}); err != nil {
		t.Errorf("lookup by its own breakpad id: %v", err)
	}
	wrong, _ := ParseID("breakpad:4670FEDA0F752F9ECF51F023800F030E1")
	_, err := r.Module(Image{Path: peDLL, ID: wrong})
	var me *MismatchError
	if !errors.Is(err, ErrBuildIDMismatch) || !errors.As(err, &me) {
		t.Errorf("a DLL with another id was not refused: %v", err)
	}
	res := r.Lookup(Image{Path: peDLL, ID: wrong}, 0x1010)
	if len(res.Frames) != 0 || !errors.Is(res.Err, ErrBuildIDMismatch) {
		t.Errorf("lookup through a refused DLL: %+v", res)
	}
}

// TestPEMinGWExports: without DWARF or COFF symbols (stripped), names come
// from the export table: every address inside an exported function is named
// after it, with no file or line; code below the first export is unnamed.
func TestPEMinGWExports(t *testing.T) {
	r, _ := New(WithDebugDirs())
	defer r.Close()
	full, strip := Image{Path: peDLL}, Image{Path: peStripped}
	m, err := r.Module(strip)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(m.Err, ErrNoDebugInfo) {
		t.Errorf("stripped DLL: debug error %v, want ErrNoDebugInfo", m.Err)
	}
	// The exports' extents, from the unstripped DLL's own symbol table.
	exports := []string{"work", "recurse", "mix"}
	for _, name := range exports {
		entry := symAddr(t, r, full, name)
		for _, off := range []uint64{0, 1, 8} {
			res := r.Lookup(strip, entry+off)
			if !errors.Is(res.Err, ErrNoDebugInfo) || len(res.Frames) != 1 {
				t.Fatalf("%s+%d in the stripped DLL: %+v", name, off, res)
			}
			f := res.Frames[0]
			if f.Function != name || f.File != "" || f.Line != 0 || !f.HasFuncAddr || f.FuncAddr != entry {
				t.Errorf("%s+%d in the stripped DLL: %+v (entry %#x)", name, off, f, entry)
			}
		}
	}
	// collatz is static and placed before every export.
	c := symAddr(t, r, full, "collatz")
	if c >= symAddr(t, r, full, "work") {
		t.Skip("collatz no longer precedes the exports")
	}
	if res := r.Lookup(strip, c+4); len(res.Frames) != 0 && res.Frames[0].Function != "" {
		t.Errorf("a static function below every export was named %q", res.Frames[0].Function)
	}
}
