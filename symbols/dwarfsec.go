package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// dwSections holds the DWARF sections the index reads, decompressed. Only
// these are loaded: location lists, frame tables and type units, which
// are most of a Go binary's DWARF, are never read or inflated.
type dwSections struct {
	info, abbrev, str, lineStr, line, ranges, rnglists, addr, strOffsets []byte
	big                                                                  bool // big-endian
}

// slot maps the suffix after ".debug_" (or the Mach-O "__debug_",
// truncated to 16 bytes) to the field it fills; nil for sections the index
// does not read.
func (s *dwSections) slot(name string) *[]byte {
	switch name {
	case "info":
		return &s.info
	case "abbrev":
		return &s.abbrev
	case "str":
		return &s.str
	case "line_str", "line_st": // Mach-O: "__debug_line_str" fits
		return &s.lineStr
	case "line":
		return &s.line
	case "ranges":
		return &s.ranges
	case "rnglists":
		return &s.rnglists
	case "addr":
		return &s.addr
	case "str_offsets", "str_offs": // Mach-O truncates to "__debug_str_offs"
		return &s.strOffsets
	}
	return nil
}

// maxInflate bounds a compressed section's claimed size, so a corrupt
// header cannot make us allocate gigabytes: deflate and zstd cannot expand
// much beyond 1:1100, and no real DWARF section reaches 4 GiB.
func maxInflate(compressed int) uint64 {
	return min(uint64(compressed)*1100+(1<<20), 4<<30)
}

// inflate decompresses a zlib or zstd stream of a known size.
func inflate(kind uint32, src []byte, size uint64) ([]byte, error) {
	if size > maxInflate(len(src)) {
		return nil, fmt.Errorf("%w: compressed section claims %d bytes from %d", ErrMalformed, size, len(src))
	}
	out := sectionBuf(size)
	var r io.Reader
	switch kind {
	case 1: // ELFCOMPRESS_ZLIB
		zr, err := zlib.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("%w: zlib: %v", ErrMalformed, err)
		}
		defer zr.Close()
		r = zr
	case 2: // ELFCOMPRESS_ZSTD
		zr, err := zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(size+1))
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrMalformed, err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("%w: unknown section compression %d", ErrMalformed, kind)
	}
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("%w: inflating section: %v", ErrMalformed, err)
	}
	return out, nil
}

// unzdebug handles the GNU ".zdebug_" convention: "ZLIB", a big-endian
// 64-bit size, then a zlib stream.
func unzdebug(d []byte) ([]byte, error) {
	if len(d) < 12 || string(d[:4]) != "ZLIB" {
		return nil, fmt.Errorf("%w: .zdebug section without ZLIB header", ErrMalformed)
	}
	return inflate(1, d[12:], binary.BigEndian.Uint64(d[4:12]))
}

// elfDWARFSections reads the DWARF sections of an ELF file from r, the
// file the elf.File was opened on. Reading the raw bytes ourselves lets
// us inflate only the sections we use, with the klauspost decoders
// (faster than the compress/zlib decoder debug/elf uses).
func elfDWARFSections(f *elf.File, r io.ReaderAt) (*dwSections, error) {
	return elfDWARFSectionsMapped(f, r, false)
}

// elfDWARFSectionsMapped is elfDWARFSections; with mapped (WithMappedFiles)
// and r an *os.File it maps the file's DWARF bytes instead of reading them
// into fresh memory: in a fresh process the page faults of copying a
// section cost more than indexing it. The mapping is never unmapped, as
// names in returned Frames point into it.
func elfDWARFSectionsMapped(f *elf.File, r io.ReaderAt, mapped bool) (*dwSections, error) {
	s := &dwSections{big: f.ByteOrder == binary.BigEndian}
	var m []byte
	var mOff uint64
	if of, ok := r.(*os.File); ok && mapped {
		lo, hi := ^uint64(0), uint64(0)
		for _, sec := range f.Sections {
			if (strings.HasPrefix(sec.Name, ".debug_") || strings.HasPrefix(sec.Name, ".zdebug_")) && sec.Type != elf.SHT_NOBITS && sec.FileSize > 0 {
				lo, hi = min(lo, sec.Offset), max(hi, sec.Offset+sec.FileSize)
			}
		}
		// Only bytes inside the file: touching a mapped page past its end
		// raises SIGBUS (a malformed header may claim any extent).
		if st, err := of.Stat(); err != nil || !st.Mode().IsRegular() || hi > uint64(st.Size()) {
			lo, hi = 0, 0
		}
		if lo < hi {
			mOff = lo &^ 0xfff
			if b, err := mapFile(of, int64(mOff), int(hi-mOff)); err == nil {
				m = b
			}
		}
	}
	for _, sec := range f.Sections {
		var suffix string
		zd := false
		switch {
		case strings.HasPrefix(sec.Name, ".debug_"):
			suffix = sec.Name[len(".debug_"):]
		case strings.HasPrefix(sec.Name, ".zdebug_"):
			suffix, zd = sec.Name[len(".zdebug_"):], true
		default:
			continue
		}
		slot := s.slot(suffix)
		if slot == nil || sec.Type == elf.SHT_NOBITS {
			continue
		}
		if sec.FileSize > 1<<32 {
			return nil, fmt.Errorf("%w: section %s: %d bytes", ErrMalformed, sec.Name, sec.FileSize)
		}
		var raw []byte
		if m != nil && sec.Offset >= mOff && sec.Offset-mOff+sec.FileSize <= uint64(len(m)) {
			raw = m[sec.Offset-mOff : sec.Offset-mOff+sec.FileSize : sec.Offset-mOff+sec.FileSize]
		} else {
			raw = sectionBuf(sec.FileSize)
			if _, err := r.ReadAt(raw, int64(sec.Offset)); err != nil {
				return nil, fmt.Errorf("%w: section %s: %v", ErrMalformed, sec.Name, err)
			}
		}
		var err error
		switch {
		case sec.Flags&elf.SHF_COMPRESSED != 0:
			raw, err = elfUncompress(f, raw)
		case zd:
			raw, err = unzdebug(raw)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", sec.Name, err)
		}
		*slot = raw
	}
	if len(s.info) == 0 {
		return nil, fmt.Errorf("%w: no .debug_info", ErrNoDebugInfo)
	}
	return s, nil
}

// elfUncompress inflates an SHF_COMPRESSED section (Elf32/64_Chdr header).
func elfUncompress(f *elf.File, raw []byte) ([]byte, error) {
	bo := f.ByteOrder
	if f.Class == elf.ELFCLASS64 {
		if len(raw) < 24 {
			return nil, fmt.Errorf("%w: short compression header", ErrMalformed)
		}
		return inflate(bo.Uint32(raw), raw[24:], bo.Uint64(raw[8:]))
	}
	if len(raw) < 12 {
		return nil, fmt.Errorf("%w: short compression header", ErrMalformed)
	}
	return inflate(bo.Uint32(raw), raw[12:], uint64(bo.Uint32(raw[4:])))
}

// namedDWARFSections gathers DWARF sections through a per-format reader
// (Mach-O "__debug_info", PE ".debug_info"), inflating ".zdebug"/
// "__zdebug" ones.
func namedDWARFSections(big bool, names []string, data func(name string) ([]byte, error)) (*dwSections, error) {
	s := &dwSections{big: big}
	for _, name := range names {
		var suffix string
		zd := false
		for _, p := range [...]string{".debug_", "__debug_", ".zdebug_", "__zdebug_"} {
			if strings.HasPrefix(name, p) {
				suffix, zd = name[len(p):], strings.Contains(p, "zdebug")
				break
			}
		}
		slot := s.slot(suffix)
		if slot == nil {
			continue
		}
		d, err := data(name)
		if err != nil {
			return nil, fmt.Errorf("%w: section %s: %v", ErrMalformed, name, err)
		}
		if zd {
			if d, err = unzdebug(d); err != nil {
				return nil, fmt.Errorf("section %s: %w", name, err)
			}
		}
		*slot = d
	}
	if len(s.info) == 0 {
		return nil, fmt.Errorf("%w: no debug info section", ErrNoDebugInfo)
	}
	return s, nil
}
