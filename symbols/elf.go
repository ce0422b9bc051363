package symbols

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// elfInfo is what the locator needs to know about an ELF file before
// deciding to use it: its ids, whether it carries DWARF, and where its split
// debug file might be.
type elfInfo struct {
	f         *elf.File
	gnuID     []byte
	goID      string
	debuglink string
	crc       uint32
	hasDWARF  bool
	hasSymtab bool
}

func (e *elfInfo) id() ID {
	if len(e.gnuID) > 0 {
		return ID{Kind: IDGNU, Bytes: e.gnuID}
	}
	if e.goID != "" {
		return ID{Kind: IDGo, Bytes: []byte(e.goID)}
	}
	return ID{}
}

// matches reports whether the file is the build the caller asked for. A Go
// build id is also accepted against a file that has both ids.
func (e *elfInfo) matches(want ID) bool {
	if want.IsZero() {
		return true
	}
	switch want.Kind {
	case IDGNU:
		return bytes.Equal(want.Bytes, e.gnuID)
	case IDGo:
		return string(want.Bytes) == e.goID
	case IDBreakpad:
		return len(e.gnuID) > 0 && want.Equal(ID{Kind: IDGNU, Bytes: e.gnuID})
	}
	return false
}

func readELFInfo(r io.ReaderAt) (info *elfInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			info, err = nil, fmt.Errorf("%w: ELF: %v", ErrMalformed, p)
		}
	}()
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedFormat, err)
	}
	info = &elfInfo{f: f}
	for _, s := range f.Sections {
		switch {
		case s.Type == elf.SHT_NOTE:
			if d, err := s.Data(); err == nil {
				parseNotes(d, f.ByteOrder, info)
			}
		case s.Name == ".gnu_debuglink":
			if d, err := s.Data(); err == nil {
				if i := bytes.IndexByte(d, 0); i > 0 {
					info.debuglink = string(d[:i])
					off := (i + 4) &^ 3
					if off+4 <= len(d) {
						info.crc = f.ByteOrder.Uint32(d[off:])
					}
				}
			}
		case s.Name == ".debug_info" || s.Name == ".zdebug_info":
			info.hasDWARF = s.Type != elf.SHT_NOBITS && s.Size > 0
		case s.Type == elf.SHT_SYMTAB:
			info.hasSymtab = true
		}
	}
	if len(info.gnuID) == 0 {
		// Sections may be stripped; notes survive in PT_NOTE segments.
		for _, p := range f.Progs {
			if p.Type == elf.PT_NOTE && p.Filesz < 1<<20 {
				d := make([]byte, p.Filesz)
				if _, err := p.ReadAt(d, 0); err == nil {
					parseNotes(d, f.ByteOrder, info)
				}
			}
		}
	}
	return info, nil
}

func parseNotes(d []byte, bo binary.ByteOrder, info *elfInfo) {
	for len(d) >= 12 {
		namesz, descsz, typ := bo.Uint32(d), bo.Uint32(d[4:]), bo.Uint32(d[8:])
		d = d[12:]
		na := (uint64(namesz) + 3) &^ 3
		da := (uint64(descsz) + 3) &^ 3
		if na > uint64(len(d)) || na+uint64(descsz) > uint64(len(d)) {
			return
		}
		name := strings.TrimRight(string(d[:namesz]), "\x00")
		desc := d[na : na+uint64(descsz)]
		switch {
		case name == "GNU" && typ == 3: // NT_GNU_BUILD_ID
			info.gnuID = append([]byte(nil), desc...)
		case name == "Go" && typ == 4: // Go build id note
			info.goID = string(desc)
		}
		if na+da > uint64(len(d)) {
			return
		}
		d = d[na+da:]
	}
}

// elfSymbols flattens .symtab and .dynsym function-like symbols. Like
// binutils, a symbol covers the rest of its own section up to the next
// symbol (sizes are not trusted: padding after a function is attributed to
// it), and local symbols carry the name of the preceding STT_FILE symbol as
// their source file.
func elfSymbols(f *elf.File) []sym {
	var out []sym
	add := func(ss []elf.Symbol) {
		file := ""
		// binutils gives globals a file only until a file symbol follows
		// the first function symbol (after that, file symbols describe
		// locals of later objects, not the globals).
		const nothingSeen, symbolSeen, fileAfterSymbol = 0, 1, 2
		state := nothingSeen
		for _, s := range ss {
			t := elf.ST_TYPE(s.Info)
			if t == elf.STT_FILE {
				file = s.Name
				if state == symbolSeen {
					state = fileAfterSymbol
				}
				continue
			}
			if (t != elf.STT_FUNC && t != elf.STT_NOTYPE && t != elf.STT_GNU_IFUNC) ||
				s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || s.Value == 0 || s.Name == "" {
				continue
			}
			if t == elf.STT_NOTYPE && (strings.HasPrefix(s.Name, "$") || strings.HasPrefix(s.Name, ".L")) {
				continue
			}
			if state == nothingSeen {
				state = symbolSeen
			}
			size := s.Size
			if int(s.Section) < len(f.Sections) {
				sec := f.Sections[s.Section]
				if s.Value < sec.Addr || s.Value >= sec.Addr+sec.Size || sec.Flags&elf.SHF_ALLOC == 0 {
					continue
				}
				size = sec.Addr + sec.Size - s.Value
			}
			e := sym{addr: s.Value, size: size, name: s.Name}
			if elf.ST_BIND(s.Info) == elf.STB_LOCAL || state != fileAfterSymbol {
				e.file = file
			}
			out = append(out, e)
		}
	}
	add(elfSymbolTable(f, elf.SHT_SYMTAB))
	add(elfSymbolTable(f, elf.SHT_DYNSYM))
	return out
}

// elfSymbolTable reads the symbols of the first section of type typ
// (SHT_SYMTAB or SHT_DYNSYM), the null symbol left out, as debug/elf's
// Symbols and DynamicSymbols do; but names share the string table's bytes
// instead of being copied one by one (a Go binary has tens of thousands),
// and versions are not read. A malformed table gives what could be read.
func elfSymbolTable(f *elf.File, typ elf.SectionType) []elf.Symbol {
	var sec *elf.Section
	for _, s := range f.Sections {
		if s.Type == typ {
			sec = s
			break
		}
	}
	if sec == nil || sec.Link == 0 || int(sec.Link) >= len(f.Sections) {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil
	}
	strs, err := f.Sections[sec.Link].Data()
	if err != nil {
		return nil
	}
	bo := f.ByteOrder
	size := 24
	if f.Class == elf.ELFCLASS32 {
		size = 16
	}
	n := len(data) / size
	if n <= 1 {
		return nil
	}
	out := make([]elf.Symbol, 0, n-1)
	for i := 1; i < n; i++ {
		e := data[i*size : (i+1)*size]
		var s elf.Symbol
		if size == 24 {
			s = elf.Symbol{Info: e[4], Other: e[5], Section: elf.SectionIndex(bo.Uint16(e[6:])),
				Value: bo.Uint64(e[8:]), Size: bo.Uint64(e[16:])}
		} else {
			s = elf.Symbol{Value: uint64(bo.Uint32(e[4:])), Size: uint64(bo.Uint32(e[8:])),
				Info: e[12], Other: e[13], Section: elf.SectionIndex(bo.Uint16(e[14:]))}
		}
		s.Name = strAt(strs, uint64(bo.Uint32(e)))
		out = append(out, s)
	}
	return out
}

// elfGoTable reads a Go pclntab, which survives `-ldflags=-s -w` because the
// runtime needs it for tracebacks. When the inline tree can be read, the
// debug/gosym table (which decodes every function up front) is only built
// if a lookup falls back to it.
func (o *object) elfGoTable(f *elf.File) {
	s := f.Section(".gopclntab")
	if s == nil {
		s = f.Section(".data.rel.ro.gopclntab")
	}
	if s == nil {
		return
	}
	d, err := s.Data()
	if err != nil {
		return
	}
	var text uint64
	if t := f.Section(".text"); t != nil {
		text = t.Addr
	}
	var symtab []byte
	if st := f.Section(".gosymtab"); st != nil {
		symtab, _ = st.Data()
	}
	if o.goinl = newGoInlTree(f, d, s.Addr); o.goinl != nil {
		o.gotabInit = func() *gosym.Table { return newGoTable(d, symtab, text) }
		return
	}
	o.gotab = newGoTable(d, symtab, text)
}

// elfServerBase is the address that samply and the Firefox profiler count
// "module offsets" from: the virtual address at which file offset 0 is
// mapped (0 for PIE and shared objects).
func elfServerBase(f *elf.File) uint64 {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			return p.Vaddr - p.Off
		}
	}
	return 0
}
