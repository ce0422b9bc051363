package symbols

import (
	"debug/elf"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
)

// TestDifferentialRust compares a rustc-built program (std's code inlined
// into it, v0 and legacy mangled names) with binutils addr2line -C on its
// line addresses in its code. It needs rustc, which CI does not install; the Rust
// demangler's own corpus test (internal/rustdemangle) runs everywhere.
func TestDifferentialRust(t *testing.T) {
	for _, opt := range []string{"0", "2"} {
		t.Run("O"+opt, func(t *testing.T) {
			bin := build(t, "rustprog-O"+opt, "rustc", func(out string) []string {
				return []string{"-g", "-C", "opt-level=" + opt, "-o", out, srcPath(t, "rustprog.rs")}
			})
			addrs := textAddrs(t, bin, lineAddrs(t, bin, 0), 3000)
			compareWithAddr2line(t, bin, addrs)
		})
	}
}

// textAddrs keeps the addresses inside the binary's executable sections,
// at most max of them evenly spaced. Rust's prebuilt std ships DWARF for
// code the linker then discarded; those rows keep addresses near 0 that
// no call stack can hold.
func textAddrs(t *testing.T, bin string, addrs []uint64, max int) []uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in []uint64
	for _, a := range addrs {
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR != 0 && a >= s.Addr && a < s.Addr+s.Size {
				in = append(in, a)
				break
			}
		}
	}
	return symtest.Thin(in, max)
}
