package symbols

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// tinyMachO builds a minimal 64-bit x86-64 Mach-O executable: a __TEXT
// segment at 0x100000000 whose __text section holds 0x100 bytes at
// 0x100000400, a symbol table with _main (0x100000400) and _work
// (0x100000480), and an LC_UUID. Go's cross-compiled binaries are over a
// megabyte, too big to fuzz; this is a few hundred bytes.
func tinyMachO(uuid [16]byte) []byte {
	const (
		textOff  = 0x400
		textSize = 0x100
		base     = 0x100000000
	)
	le := binary.LittleEndian
	var cmds bytes.Buffer
	// LC_SEGMENT_64 __TEXT with one section.
	seg := make([]byte, 72+80)
	le.PutUint32(seg[0:], 0x19)
	le.PutUint32(seg[4:], uint32(len(seg)))
	copy(seg[8:24], "__TEXT")
	le.PutUint64(seg[24:], base)
	le.PutUint64(seg[32:], 0x1000)
	le.PutUint64(seg[40:], 0)
	le.PutUint64(seg[48:], textOff+textSize)
	le.PutUint32(seg[56:], 5)
	le.PutUint32(seg[60:], 5)
	le.PutUint32(seg[64:], 1)
	sec := seg[72:]
	copy(sec[0:16], "__text")
	copy(sec[16:32], "__TEXT")
	le.PutUint64(sec[32:], base+textOff)
	le.PutUint64(sec[40:], textSize)
	le.PutUint32(sec[48:], textOff)
	le.PutUint32(sec[52:], 4)
	le.PutUint32(sec[64:], 0x80000400) // S_ATTR_PURE_INSTRUCTIONS | SOME_INSTRUCTIONS
	cmds.Write(seg)
	// Symbols after the code.
	strtab := []byte("\x00_main\x00_work\x00")
	symOff := uint32(textOff + textSize)
	syms := make([]byte, 2*16)
	for i, s := range []struct {
		strx  uint32
		value uint64
	}{{1, base + textOff}, {7, base + textOff + 0x80}} {
		e := syms[i*16:]
		le.PutUint32(e[0:], s.strx)
		e[4] = 0x0f // N_SECT | N_EXT
		e[5] = 1
		le.PutUint64(e[8:], s.value)
	}
	st := make([]byte, 24)
	le.PutUint32(st[0:], 0x2) // LC_SYMTAB
	le.PutUint32(st[4:], 24)
	le.PutUint32(st[8:], symOff)
	le.PutUint32(st[12:], 2)
	le.PutUint32(st[16:], symOff+uint32(len(syms)))
	le.PutUint32(st[20:], uint32(len(strtab)))
	cmds.Write(st)
	u := make([]byte, 24)
	le.PutUint32(u[0:], 0x1b) // LC_UUID
	le.PutUint32(u[4:], 24)
	copy(u[8:], uuid[:])
	cmds.Write(u)

	hdr := make([]byte, 32)
	le.PutUint32(hdr[0:], 0xfeedfacf)
	le.PutUint32(hdr[4:], 0x01000007) // x86-64
	le.PutUint32(hdr[8:], 3)
	le.PutUint32(hdr[12:], 2) // MH_EXECUTE
	le.PutUint32(hdr[16:], 3)
	le.PutUint32(hdr[20:], uint32(cmds.Len()))
	out := append(hdr, cmds.Bytes()...)
	for len(out) < textOff {
		out = append(out, 0)
	}
	for i := 0; i < textSize; i++ {
		out = append(out, 0x90) // nop
	}
	out = append(out, syms...)
	return append(out, strtab...)
}

// TestTinyMachO: the generated seed is a Mach-O the standard library and
// the Resolver read, with both symbols and the UUID, so the fuzzer starts
// from an image that resolves. With GOTRACY_GEN_CORPUS=1 it rewrites the
// FuzzResolveMachO seeds.
func TestTinyMachO(t *testing.T) {
	uuid := [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	b := tinyMachO(uuid)
	f, err := macho.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if f.Symtab == nil || len(f.Symtab.Syms) != 2 {
		t.Fatalf("symtab %+v", f.Symtab)
	}
	p := filepath.Join(t.TempDir(), "tiny")
	os.WriteFile(p, b, 0o644)
	r, _ := New(WithDebugDirs())
	defer r.Close()
	m, err := r.Module(Image{Path: p})
	if err != nil || m.ID.Kind != IDMachO || !bytes.Equal(m.ID.Bytes, uuid[:]) {
		t.Fatalf("module %+v, %v", m, err)
	}
	for addr, want := range map[uint64]string{0x400: "main", 0x47f: "main", 0x480: "work", 0x4ff: "work"} {
		res := r.Lookup(Image{Path: p}, addr)
		if len(res.Frames) == 0 || res.Frames[len(res.Frames)-1].Function != want {
			t.Errorf("%#x: %+v, want %s", addr, res, want)
		}
	}
	if os.Getenv("GOTRACY_GEN_CORPUS") == "" {
		return
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzResolveMachO")
	os.MkdirAll(dir, 0o755)
	seeds := map[string][]byte{"tiny": b}
	noUUID := bytes.Clone(b)
	binary.LittleEndian.PutUint32(noUUID[16:], 2) // drop the last command
	seeds["tiny-no-uuid"] = noUUID
	seeds["tiny-truncated"] = b[:len(b)-20]
	for name, s := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPESeedsResolve: the PE fuzz seeds have code in the fuzzed range.
func TestPESeedsResolve(t *testing.T) {
	for _, name := range []string{"work.dll", "work-stripped.dll"} {
		r, _ := New(WithDebugDirs())
		hit := 0
		for a := uint64(0x1000); a < 0x1600; a += 7 {
			if res := r.Lookup(Image{Path: filepath.Join("testdata", "pe", name)}, a); len(res.Frames) > 0 && res.Frames[len(res.Frames)-1].Function != "" {
				hit++
			}
		}
		r.Close()
		if hit < 10 {
			t.Errorf("%s: only %d of the fuzzed addresses resolve", name, hit)
		}
	}
}
