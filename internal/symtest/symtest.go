package symtest

import (
	"bufio"
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Source is a C program with real functions, a function inlined twice deep
// at -O2, and a recursion, so that frames have one to three levels.
const Source = `#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) int square(int x) {
	return x * x + 1;
}

static inline __attribute__((always_inline)) int twice(int x) {
	return square(x) + square(x + 1);
}

__attribute__((noinline)) int leaf(int x) {
	if (x > 1000) abort();
	return twice(x) * 3;
}

__attribute__((noinline)) int middle(int x) {
	int s = 0;
	for (int i = 0; i < x; i++) s += leaf(i);
	return s;
}

__attribute__((noinline)) int recurse(int n) {
	if (n <= 0) return middle(3);
	return recurse(n - 1) + 1;
}

int main(int argc, char **argv) {
	printf("%d\n", recurse(argc + 2));
	return 0;
}
`

// BuildC compiles Source with gcc -g, the given flags, and the GNU build id
// buildID (hex, e.g. "0123abcd"; "" leaves gcc's default) into dir, and
// returns the binary's path.
func BuildC(t testing.TB, dir, name, buildID string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(Source), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-g"}, flags...)
	if buildID != "" {
		args = append(args, "-Wl,--build-id=0x"+buildID)
	}
	args = append(args, "-o", out, src)
	cmd := exec.Command("gcc", args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

// LineAddrs returns the distinct addresses of the binary's DWARF line rows
// (read with debug/dwarf, not through package symbols), at most max of
// them, evenly spaced.
func LineAddrs(t testing.TB, path string, max int) []uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	return Thin(DWARFLineAddrs(d), max)
}

// DWARFLineAddrs returns the distinct, sorted, non-zero addresses of the
// line rows of every compile unit in d (end-of-sequence rows excluded), for
// any object format debug/* opens.
func DWARFLineAddrs(d *dwarf.Data) []uint64 {
	seen := map[uint64]bool{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		if lr, err := d.LineReader(e); err == nil && lr != nil {
			var le dwarf.LineEntry
			for lr.Next(&le) == nil {
				if !le.EndSequence && le.Address != 0 {
					seen[le.Address] = true
				}
			}
		}
		r.SkipChildren()
	}
	out := make([]uint64, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Thin returns at most max of addrs, evenly spaced (all of them when max
// is 0 or they are fewer).
func Thin(addrs []uint64, max int) []uint64 {
	if max <= 0 || len(addrs) <= max {
		return addrs
	}
	thin := make([]uint64, 0, max)
	for i := range max {
		thin = append(thin, addrs[i*len(addrs)/max])
	}
	return thin
}

// Frame is one level as addr2line prints it.
type Frame struct {
	Function string
	File     string
	Line     int
}

// Addr2Line runs `addr2line -a -f -i -C -e bin` over addrs and returns the
// levels of each, innermost first.
func Addr2Line(t testing.TB, bin string, addrs []uint64) [][]Frame {
	t.Helper()
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line (binutils) not installed")
	}
	var in bytes.Buffer
	for _, a := range addrs {
		in.WriteString("0x" + strconv.FormatUint(a, 16) + "\n")
	}
	cmd := exec.Command("addr2line", "-a", "-f", "-i", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20) // demangled C++ template names can be long
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var res [][]Frame
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "0x") {
			t.Fatalf("addr2line output line %d: want an address, got %q", i, lines[i])
		}
		i++
		var fs []Frame
		for i+1 < len(lines) && !strings.HasPrefix(lines[i], "0x") {
			file, line := SplitFileLine(lines[i+1])
			fs = append(fs, Frame{Function: lines[i], File: file, Line: line})
			i += 2
		}
		res = append(res, fs)
	}
	if len(res) != len(addrs) {
		t.Fatalf("addr2line answered %d addresses, asked %d", len(res), len(addrs))
	}
	return res
}

// SplitFileLine splits addr2line's "file:line (discriminator N)" into file
// and line; "??" becomes "".
func SplitFileLine(s string) (string, int) {
	if i := strings.Index(s, " (discriminator"); i >= 0 {
		s = s[:i]
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, _ := strconv.Atoi(s[i+1:])
	if s[:i] == "??" {
		return "", n
	}
	return s[:i], n
}

// Known reports whether addr2line named a function and a line: the
// addresses a differential test compares (compiler-generated code without
// a line, "??", is left out).
func Known(fs []Frame) bool {
	return len(fs) > 0 && fs[0].Function != "??" && fs[0].Line != 0
}
