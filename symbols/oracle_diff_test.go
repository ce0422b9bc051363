package symbols

import (
	"debug/elf"
	"os"
	"reflect"
	"testing"
)

// oracleIndexes opens bin both ways: the std-based oracle and the
// production index.
func oracleIndexes(t testing.TB, bin string) (*stdIndex, *dwarfIndex) {
	t.Helper()
	f, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ef, err := elf.NewFile(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ef.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	old, err := newStdIndex(d)
	if err != nil {
		t.Fatal(err)
	}
	s, err := elfDWARFSections(ef, f)
	if err != nil {
		t.Fatal(err)
	}
	x, err := newDwarfIndex(s)
	if err != nil {
		t.Fatal(err)
	}
	return old, x
}

// compareWithOracle checks that both indexes give identical frames
// (function, file, line, column, discriminator, inlining, entry) for every
// address given, and for each address plus one.
func compareWithOracle(t *testing.T, bin string, addrs []uint64) {
	old, x := oracleIndexes(t, bin)
	bad := 0
	var a1, a2 []Frame
	for _, base := range addrs {
		for _, a := range [...]uint64{base, base + 1} {
			var ok1, ok2 bool
			var e1, e2 error
			a1, ok1, e1 = old.lookup(a, true, a1[:0])
			a2, ok2, e2 = x.lookup(a, true, a2[:0])
			if ok1 != ok2 || (e1 == nil) != (e2 == nil) || !reflect.DeepEqual(a1, a2) {
				bad++
				if bad <= 10 {
					t.Errorf("%#x:\n oracle %v %v %+v\n new    %v %v %+v", a, ok1, e1, a1, ok2, e2, a2)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d addresses differ from the debug/dwarf oracle", bad, 2*len(addrs))
	}
	if len(addrs) < 20 {
		t.Fatalf("only %d addresses", len(addrs))
	}
	t.Logf("%d addresses agree", 2*len(addrs))
}

func TestIndexMatchesStdOracle(t *testing.T) {
	cases := []struct {
		name, compiler, src string
		flags               []string
	}{
		{"c-O0", "gcc", "inline.c", []string{"-O0"}},
		{"c-O2", "gcc", "inline.c", []string{"-O2"}},
		{"c-O2-dwarf4", "gcc", "inline.c", []string{"-O2", "-gdwarf-4"}},
		{"c-O2-compressed", "gcc", "inline.c", []string{"-O2", "-gz"}},
		{"c-O2-zlib-gnu", "gcc", "inline.c", []string{"-O2", "-gz=zlib-gnu"}},
		{"cxx-O2", "g++", "templates.cpp", []string{"-O2"}},
		{"cxx-O0", "g++", "templates.cpp", []string{"-O0"}},
		{"cxx-O2-dwarf4", "g++", "templates.cpp", []string{"-O2", "-gdwarf-4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := cBinary(t, c.name, c.compiler, c.src, c.flags...)
			compareWithOracle(t, bin, lineAddrs(t, bin, 0))
		})
	}
	t.Run("go", func(t *testing.T) {
		bin := goBinary(t, "goprog", "")
		compareWithOracle(t, bin, lineAddrs(t, bin, 20000))
	})
}
