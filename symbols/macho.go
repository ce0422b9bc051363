package symbols

import (
	"debug/macho"
	"fmt"
	"io"
	"strings"
)

const lcUUID = 0x1b

func readMachO(r io.ReaderAt) (f *macho.File, id ID, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("%w: Mach-O: %v", ErrMalformed, p)
		}
	}()
	f, err = macho.NewFile(r)
	if err != nil {
		return nil, ID{}, fmt.Errorf("%w: %v", ErrUnsupportedFormat, err)
	}
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 24 && f.ByteOrder.Uint32(raw) == lcUUID {
			id = ID{Kind: IDMachO, Bytes: append([]byte(nil), raw[8:24]...)}
		}
	}
	return f, id, nil
}

func machoText(f *macho.File) uint64 {
	if s := f.Segment("__TEXT"); s != nil {
		return s.Addr
	}
	return 0
}

func machoSymbols(f *macho.File) []sym {
	if f.Symtab == nil {
		return nil
	}
	var out []sym
	for _, s := range f.Symtab.Syms {
		// N_STAB entries are debugger records; keep only section symbols.
		if s.Type&0xe0 != 0 || s.Type&0x0e != 0x0e || s.Value == 0 || s.Sect == 0 {
			continue
		}
		if int(s.Sect) <= len(f.Sections) && f.Sections[s.Sect-1].Seg != "__TEXT" {
			continue
		}
		// The Mach-O C symbol prefix: "_main", "__ZN3foo3barEv".
		out = append(out, sym{addr: s.Value, name: strings.TrimPrefix(s.Name, "_")})
	}
	return out
}
