package symbols

import (
	"debug/pe"
	"encoding/binary"
	"fmt"
	"io"
)

// PE/COFF: ids come from the CodeView (RSDS) debug directory entry; names
// from the COFF symbol table (MinGW, Go) and the export directory. PDB files
// are not read: MSVC binaries resolve to export names only.

func readPE(r io.ReaderAt) (f *pe.File, id ID, base uint64, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("%w: PE: %v", ErrMalformed, p)
		}
	}()
	f, err = pe.NewFile(r)
	if err != nil {
		return nil, ID{}, 0, fmt.Errorf("%w: %v", ErrUnsupportedFormat, err)
	}
	var dirs []pe.DataDirectory
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		base, dirs = uint64(oh.ImageBase), oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	case *pe.OptionalHeader64:
		base, dirs = oh.ImageBase, oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	}
	if len(dirs) > 6 && dirs[6].Size >= 28 {
		d := peRead(f, dirs[6].VirtualAddress, dirs[6].Size)
		for len(d) >= 28 {
			typ := binary.LittleEndian.Uint32(d[12:])
			size := binary.LittleEndian.Uint32(d[16:])
			rva := binary.LittleEndian.Uint32(d[20:])
			if typ == 2 { // IMAGE_DEBUG_TYPE_CODEVIEW
				cv := peRead(f, rva, size)
				if len(cv) >= 24 && string(cv[:4]) == "RSDS" {
					id = ID{Kind: IDPE, Bytes: append([]byte(nil), cv[4:24]...)}
				}
			}
			d = d[28:]
		}
	}
	return f, id, base, nil
}

// peRead reads size bytes at an RVA, nil when out of range.
func peRead(f *pe.File, rva, size uint32) []byte {
	if size > 64<<20 {
		return nil
	}
	for _, s := range f.Sections {
		if rva >= s.VirtualAddress && uint64(rva)+uint64(size) <= uint64(s.VirtualAddress)+uint64(max(s.VirtualSize, s.Size)) {
			d, err := s.Data()
			if err != nil {
				return nil
			}
			off := rva - s.VirtualAddress
			if uint64(off)+uint64(size) > uint64(len(d)) {
				return nil
			}
			return d[off : off+size]
		}
	}
	return nil
}

func peSymbols(f *pe.File, base uint64) []sym {
	var out []sym
	for _, s := range f.Symbols {
		if s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
			continue
		}
		sec := f.Sections[s.SectionNumber-1]
		if sec.Characteristics&0x20 == 0 { // IMAGE_SCN_CNT_CODE
			continue
		}
		out = append(out, sym{addr: base + uint64(sec.VirtualAddress) + uint64(s.Value), name: s.Name})
	}
	// Export directory.
	var dirs []pe.DataDirectory
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		dirs = oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	case *pe.OptionalHeader64:
		dirs = oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	}
	if len(dirs) == 0 || dirs[0].Size < 40 {
		return out
	}
	ed := peRead(f, dirs[0].VirtualAddress, 40)
	if ed == nil {
		return out
	}
	le := binary.LittleEndian
	nfun, nnames := le.Uint32(ed[20:]), le.Uint32(ed[24:])
	if nfun > 1<<20 || nnames > 1<<20 {
		return out
	}
	funcs := peRead(f, le.Uint32(ed[28:]), 4*nfun)
	names := peRead(f, le.Uint32(ed[32:]), 4*nnames)
	ords := peRead(f, le.Uint32(ed[36:]), 2*nnames)
	if funcs == nil || names == nil || ords == nil {
		return out
	}
	for i := uint32(0); i < nnames; i++ {
		ord := uint32(le.Uint16(ords[2*i:]))
		if ord >= nfun {
			continue
		}
		rva := le.Uint32(funcs[4*ord:])
		nameRVA := le.Uint32(names[4*i:])
		nb := peRead(f, nameRVA, 1)
		if nb == nil || rva == 0 {
			continue
		}
		out = append(out, sym{addr: base + uint64(rva), name: peCString(f, nameRVA)})
	}
	return out
}

func peCString(f *pe.File, rva uint32) string {
	var b []byte
	for n := uint32(0); n < 4096; n++ {
		c := peRead(f, rva+n, 1)
		if c == nil || c[0] == 0 {
			break
		}
		b = append(b, c[0])
	}
	return string(b)
}
