package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The DWARF reader fuzz target works below the ELF layer, so mutations
// land in the unit headers, abbreviations, DIEs, line programs and range
// lists themselves. An input is the sections .debug_info, _abbrev, _str,
// _line_str, _line, _ranges, _rnglists, _addr and _str_offsets, each
// preceded by its length as a little-endian uint32.

func packSections(s *dwSections) []byte {
	var b bytes.Buffer
	for _, d := range [][]byte{s.info, s.abbrev, s.str, s.lineStr, s.line, s.ranges, s.rnglists, s.addr, s.strOffsets} {
		binary.Write(&b, binary.LittleEndian, uint32(len(d)))
		b.Write(d)
	}
	return b.Bytes()
}

func unpackSections(data []byte) *dwSections {
	s := &dwSections{}
	for _, p := range []*[]byte{&s.info, &s.abbrev, &s.str, &s.lineStr, &s.line, &s.ranges, &s.rnglists, &s.addr, &s.strOffsets} {
		if len(data) < 4 {
			break
		}
		n := binary.LittleEndian.Uint32(data)
		data = data[4:]
		if uint64(n) > uint64(len(data)) {
			n = uint32(len(data))
		}
		*p, data = data[:n], data[n:]
	}
	return s
}

func FuzzDWARF(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		x, err := newDwarfIndex(unpackSections(data))
		if err != nil {
			return
		}
		var out []Frame
		for a := uint64(0x400ff0); a < 0x401080; a += 3 {
			out, _, _ = x.lookup(a, true, out[:0])
		}
		for _, cu := range x.units {
			x.buildFuncs(cu)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("one input took %v", d)
		}
	})
}

// TestFuzzDWARFSeeds checks that the checked-in seeds are the sections of
// the ELF seeds and still resolve; with -update-dwarf-seeds it rewrites
// them.
func TestFuzzDWARFSeeds(t *testing.T) {
	for _, name := range []string{"dwarf4-inline", "dwarf5-inline"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzResolveELF", name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := parseFuzzBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.NewFile(bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		s, err := elfDWARFSections(ef, bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		packed := packSections(s)
		seed := filepath.Join("testdata", "fuzz", "FuzzDWARF", name)
		if os.Getenv("UPDATE_DWARF_SEEDS") != "" {
			os.MkdirAll(filepath.Dir(seed), 0o755)
			if err := os.WriteFile(seed, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", packed)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sb, err := os.ReadFile(seed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseFuzzBytes(sb)
		if err != nil || !bytes.Equal(got, packed) {
			t.Fatalf("%s: stale seed (rerun with UPDATE_DWARF_SEEDS=1): %v", seed, err)
		}
		x, err := newDwarfIndex(unpackSections(got))
		if err != nil {
			t.Fatal(err)
		}
		fr, ok, err := x.lookup(0x401010, true, nil)
		if !ok || err != nil || fr[len(fr)-1].Function != "f" || fr[0].File != "/src/tiny.c" {
			t.Errorf("%s: %+v %v %v", name, fr, ok, err)
		}
	}
}
