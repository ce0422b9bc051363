package symbols

import (
	"context"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ltoBinary builds testdata/src/a2llto with Clang -O2 -g -flto (lld).
func ltoBinary(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"clang", "ld.lld"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the Clang -flto unit-discovery test needs clang and lld", tool)
		}
	}
	dir := srcPath(t, "a2llto")
	return build(t, "a2llto", "clang", func(out string) []string {
		return []string{"-O2", "-g", "-flto", "-fuse-ld=lld", "-fdebug-prefix-map=" + dir + "=/src",
			"-o", out, filepath.Join(dir, "a.c"), filepath.Join(dir, "b.c"), filepath.Join(dir, "c.c")}
	})
}

func symAddrs(t *testing.T, bin string, names ...string) []uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, n := range names {
		found := false
		for _, s := range syms {
			if s.Name == n && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				out, found = append(out, s.Value), true
				break
			}
		}
		if !found {
			t.Fatalf("%s: no function symbol %s", bin, n)
		}
	}
	return out
}

// a2lText prints frames as addr2line -f -i does (function, then file:line).
func a2lText(res []Result) string {
	var b strings.Builder
	for _, r := range res {
		if len(r.Frames) == 0 {
			b.WriteString("??\n??:0\n")
		}
		for _, f := range r.Frames {
			fn, file, line := f.Function, f.File, "?"
			if fn == "" {
				fn = "??"
			}
			if file == "" && !f.EmptyFile {
				file = "??"
			}
			if f.Line > 0 {
				line = fmt.Sprint(f.Line)
			}
			fmt.Fprintf(&b, "%s\n%s:%s\n", fn, file, line)
		}
	}
	return b.String()
}

// In a Clang -flto build, units whose ranges are DW_FORM_rnglistx lists
// have none for binutils 2.40, and a unit parsed while another unit's
// scan looks for an abstract origin further on is never tried again:
// addr2line answers its addresses from the symbol table. Which units are
// lost depends on what was asked first, so the session must replay that
// in input order: asked after main, b.c's functions have no line; asked
// first, they do. Compared with a live addr2line when it is 2.40.
func TestAddr2lineLTOUnitDiscovery(t *testing.T) {
	bin := ltoBinary(t)
	ad := symAddrs(t, bin, "main", "b_work", "b_cold")
	mainFirst := []uint64{ad[0], ad[1], ad[2]}
	bFirst := []uint64{ad[1], ad[0], ad[2]}
	resolve := func(addrs []uint64) []Result {
		r, err := New(WithAddr2line(true), WithDebugDirs(), WithDemangle(false))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Addr2line(Image{Path: bin}).Resolve(context.Background(), addrs)
	}
	line := func(res Result) (string, int) {
		if len(res.Frames) == 0 {
			return "", 0
		}
		return res.Frames[0].File, res.Frames[0].Line
	}

	m := resolve(mainFirst)
	if f, l := line(m[0]); f != "/src/a.c" || l == 0 {
		t.Errorf("main: %s:%d, want a line of /src/a.c", f, l)
	}
	for i, name := range []string{"b_work", "b_cold"} {
		res := m[i+1]
		if len(res.Frames) != 1 || res.Frames[0].Function != name || res.Frames[0].Line != 0 ||
			strings.HasSuffix(res.Frames[0].File, "b.c") {
			t.Errorf("%s after main: %+v, want the symbol-table answer (no line, not b.c)", name, res.Frames)
		}
	}
	b := resolve(bFirst)
	for i, k := range []int{0, 2} {
		name := []string{"b_work", "b_cold"}[i]
		if f, l := line(b[k]); f != "/src/b.c" || l == 0 {
			t.Errorf("%s asked first: %s:%d, want a line of /src/b.c", name, f, l)
		}
	}

	// The default mode answers from DWARF whatever the order.
	r, err := New(WithDebugDirs(), WithDemangle(false))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, res := range r.Resolve(context.Background(), []Request{{Image: Image{Path: bin}, Addr: ad[1]}}) {
		if f, l := line(res); f != "/src/b.c" || l == 0 {
			t.Errorf("default mode, b_work: %s:%d, want a line of /src/b.c", f, l)
		}
	}

	if _, err := exec.LookPath("addr2line"); err != nil {
		return
	}
	v, _ := exec.Command("addr2line", "--version").Output()
	if !strings.Contains(string(v), " 2.40") {
		t.Logf("addr2line is not binutils 2.40 (%s): not compared", strings.SplitN(string(v), "\n", 2)[0])
		return
	}
	for _, order := range [][]uint64{mainFirst, bFirst} {
		args := []string{"-f", "-i", "-e", bin}
		for _, a := range order {
			args = append(args, fmt.Sprintf("%#x", a))
		}
		want, err := exec.Command("addr2line", args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := a2lText(resolve(order)); got != string(want) {
			t.Errorf("order %#x:\ngot:\n%s\naddr2line:\n%s", order, got, want)
		}
	}
}

// GCC defines the virtual member of a local class of an inlined function
// template inside the template's abstract instance; binutils scans every
// DIE, so that member is a function of its own, with the lambda inlined
// into it: two frames at its entry, the outer one named create at line 13
// of the source. Compared with a live addr2line when it is 2.40.
func TestAddr2lineLocalClassInAbstractInstance(t *testing.T) {
	bin := cBinary(t, "a2labslocal", "g++", "a2labslocal.cpp", "-O2")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var lo, size uint64
	for _, s := range syms {
		if strings.HasSuffix(s.Name, "4Impl6createEi") && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			lo, size = s.Value, s.Size
		}
	}
	if size == 0 {
		t.Fatalf("%s: no Impl::create symbol", bin)
	}
	var addrs []uint64
	for a := lo; a < lo+size; a++ {
		addrs = append(addrs, a)
	}
	r, err := New(WithAddr2line(true), WithDebugDirs(), WithDemangle(true))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := r.Addr2line(Image{Path: bin}).Resolve(context.Background(), addrs)
	if fr := res[0].Frames; len(fr) != 2 || fr[1].Function != "create" || fr[1].Line != 13 {
		t.Errorf("entry of Impl::create: %+v, want two frames, the outer create at line 13", fr)
	}
	if _, err := exec.LookPath("addr2line"); err != nil {
		return
	}
	if v, _ := exec.Command("addr2line", "--version").Output(); !strings.Contains(string(v), " 2.40") {
		return
	}
	args := []string{"-f", "-i", "-C", "-e", bin}
	for _, a := range addrs {
		args = append(args, fmt.Sprintf("%#x", a))
	}
	want, err := exec.Command("addr2line", args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := a2lText(res); got != string(want) {
		t.Errorf("got:\n%s\naddr2line:\n%s", got, want)
	}
}
