package main

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// a2lAddrs lists the addresses the golden of bin holds: every line-table
// address and the byte after it, and every 13th byte of .text (mid
// instruction, padding, clone and cold parts).
func a2lAddrs(t *testing.T, bin string) []string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var addrs []string
	add := func(a uint64) {
		if !seen[a] {
			seen[a] = true
			addrs = append(addrs, fmt.Sprintf("%x", a))
		}
	}
	r := d.Reader()
	for {
		e, _ := r.Next()
		if e == nil {
			break
		}
		if lr, _ := d.LineReader(e); lr != nil {
			var le dwarf.LineEntry
			for lr.Next(&le) == nil {
				add(le.Address)
				add(le.Address + 1)
			}
		}
		r.SkipChildren()
	}
	if s := f.Section(".text"); s != nil {
		for a := s.Addr; a < s.Addr+s.Size; a += 13 {
			add(a)
		}
	}
	return addrs
}

// The checked-in binaries (source in symbols/testdata/src/a2l, built with
// g++ 12 and clang 14 at -O2 -g) hold what the rules of addr2line mode are
// about: functions without a linkage name named by their ELF symbol
// (anonymous namespace, static, GCC .part/.isra/.constprop clones), the
// smallest-range rule for inlined code, Clang's DWARF 5 rnglistx ranges
// that binutils 2.40 does not read, and a header path through "..". The
// goldens are binutils 2.40 addr2line's output; with -update they are
// rewritten from the installed addr2line, and where that is installed the
// golden must still equal it.
func TestSymbolsResolveGoldens(t *testing.T) {
	for _, name := range []string{"a2l-gcc", "a2l-clang"} {
		t.Run(name, func(t *testing.T) {
			bin, _ := filepath.Abs("../../symbols/testdata/" + name + ".elf")
			golden := "../../symbols/testdata/" + name + ".addr2line.txt"
			addrs := a2lAddrs(t, bin)
			args := append([]string{"-e", bin, "-a", "-f", "-i", "-C"}, addrs...)
			live := ""
			if _, err := exec.LookPath("addr2line"); err == nil {
				out, err := exec.Command("addr2line", args...).Output()
				if err != nil {
					t.Fatal(err)
				}
				live = string(out)
			}
			if updatingGolden() {
				if live == "" {
					t.Fatal("-update needs binutils addr2line")
				}
				if err := os.WriteFile(golden, []byte(live), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if live != "" && live != string(want) && a2lVersion() == "2.40" {
				t.Errorf("%s is stale: binutils 2.40 now prints otherwise:\n%s", golden, lineDiff(string(want), live))
			}
			out, errOut, code := runCLI(t, append([]string{"symbols", "resolve"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out != string(want) {
				t.Errorf("output differs from binutils 2.40 addr2line (%s):\n%s", golden, lineDiff(out, string(want)))
			}
			if n := strings.Count(string(want), "\n"); n < 500 {
				t.Errorf("golden has %d lines: the address list lost its addresses", n)
			}
		})
	}
}

// a2lVersion is the installed binutils release ("2.40"), "" if unknown.
func a2lVersion() string {
	out, err := exec.Command("addr2line", "--version").Output()
	if err != nil {
		return ""
	}
	first, _, _ := bytes.Cut(out, []byte("\n"))
	f := strings.Fields(string(first))
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
