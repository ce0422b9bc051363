package symbols

import (
	"debug/gosym"
	"io"
	"sync"
)

// object is one opened image with whatever debug information was found and
// verified for it. It is immutable after open (the DWARF index builds units
// lazily but behind sync.Once), so any number of goroutines may look up.
type object struct {
	path      string // the image file used (may be the debug file itself)
	debugPath string // where DWARF came from ("" if none)
	id        ID
	format    string // "elf", "macho", "pe"
	// relBase turns an image-relative address into the file's address
	// space: 0 for ELF (load bias convention), the image base for PE, the
	// __TEXT address for Mach-O.
	relBase uint64
	// serverBase is the file address of module offset 0 in the symbol
	// server's convention (where file offset 0 is mapped).
	serverBase uint64
	dw         *dwarfIndex
	// dwLazy, when set, builds the DWARF index on first need: a Go binary
	// whose pclntab and inline tree answer most addresses by themselves
	// need not inflate and index its DWARF at all.
	dwLazy    func() (*dwarfIndex, error)
	dwOnce    sync.Once
	dwLate    *dwarfIndex
	dwLateErr error
	syms      symtab
	a2lSyms   *a2lSymtab   // addr2line mode (ELF): the symbols binutils names functions by
	gotab     *gosym.Table // read through goTable
	gotabInit func() *gosym.Table
	gotabOnce sync.Once
	goinl     *goInlTree // inline tree of a Go binary; nil when unknown
	// debugErr says why no DWARF is used although the image might have
	// had some (a split debug file rejected for its id, or not found).
	debugErr error
	closers  []io.Closer
}

func (o *object) close() {
	for _, c := range o.closers {
		c.Close()
	}
}

func (o *object) setDWARF(d *dwSections, from string) error {
	x, err := newDwarfIndex(d)
	if err != nil {
		return err
	}
	o.dw, o.debugPath = x, from
	return nil
}

// goTable returns the debug/gosym table, building it now if deferred.
func (o *object) goTable() *gosym.Table {
	if o.gotabInit != nil {
		o.gotabOnce.Do(func() { o.gotab = o.gotabInit() })
	}
	return o.gotab
}

// dwarf returns the DWARF index, building it now if it was deferred.
func (o *object) dwarf() *dwarfIndex {
	if o.dwLazy == nil {
		return o.dw
	}
	o.dwOnce.Do(func() { o.dwLate, o.dwLateErr = o.dwLazy() })
	return o.dwLate
}

// lookup resolves a file address. It returns frames (innermost first) with
// FuncAddr still in file addresses.
func (o *object) lookup(addr uint64, inlines bool, out []Frame) ([]Frame, error) {
	return o.lookupMeta(addr, inlines, out, nil)
}

// lookupMeta is lookup; meta non-nil asks for addr2line mode (the DWARF
// index must be in it too), with one a2lMeta per frame.
func (o *object) lookupMeta(addr uint64, inlines bool, out []Frame, meta *[]a2lMeta) ([]Frame, error) {
	start := len(out)
	if meta != nil && o.a2lSyms != nil {
		return o.lookupA2L(addr, 0, inlines, out, meta)
	}
	if o.goinl != nil {
		// The pclntab with the runtime's inline tree gives the same
		// frames as Go's DWARF (held to it by TestGoStrippedPclntab),
		// without inflating anything.
		var ok bool
		if out, ok = o.goinl.lookup(addr, inlines, out); ok {
			return out, nil
		}
	}
	var dwErr error
	if dw := o.dwarf(); dw != nil {
		out, _, dwErr = dw.lookup(addr, inlines, out)
		if len(out) > start && out[start].Function != "" {
			return out, nil
		}
	} else if o.dwLateErr != nil {
		dwErr = o.dwLateErr
	}
	if gt := o.goTable(); gt != nil && len(out) == start {
		var ok bool
		if out, ok = goLookup(gt, o.goinl, addr, inlines, out); ok {
			return out, nil
		}
	}
	// A symbol names a line DWARF could not place in a function only when
	// its extent is known (ELF sizes): a size-less one (COFF, Mach-O nlist)
	// reaches up to the next symbol, over alignment padding that the line
	// table covers and no function does (binutils leaves those unnamed too).
	if s, ok := o.syms.find(addr); ok && (len(out) == start || s.size > 0) {
		if len(out) > start {
			out[start].Function, out[start].FuncAddr, out[start].HasFuncAddr = s.name, s.addr, true
		} else {
			out = append(out, Frame{Function: s.name, File: s.file, FuncAddr: s.addr, HasFuncAddr: true})
		}
	}
	if len(out) == start {
		if dwErr != nil {
			return out, dwErr
		}
		if o.debugErr != nil {
			return out, o.debugErr
		}
		return out, ErrAddressNotFound
	}
	if out[start].Line == 0 && o.debugErr != nil {
		return out, o.debugErr
	}
	return out, dwErr
}

// symbolList returns all symbols (file addresses) for the compact symbol
// table: the symbol table, or the DWARF functions when it is stripped.
func (o *object) symbolList() []sym {
	if len(o.syms) > 0 {
		return o.syms
	}
	var out []sym
	if gt := o.goTable(); gt != nil {
		for _, f := range gt.Funcs {
			out = append(out, sym{addr: f.Entry, size: f.End - f.Entry, name: f.Name})
		}
	}
	if dw := o.dwarf(); dw != nil && len(out) == 0 {
		for _, cu := range dw.units {
			dw.buildFuncs(cu)
			for _, n := range cu.nodes {
				if !n.inlined {
					out = append(out, sym{addr: n.entry, name: dw.name(n.name)})
				}
			}
		}
	}
	return newSymtab(out)
}

// lookupA2L is lookup the way binutils addr2line answers (ELF, DWARF).
// unit is what an Addr2line session chose (Request.a2lUnit), 0 if none.
func (o *object) lookupA2L(addr uint64, unit int32, inlines bool, out []Frame, meta *[]a2lMeta) ([]Frame, error) {
	start := len(out)
	*meta = (*meta)[:0]
	var dwErr error
	if dw := o.dwarf(); dw != nil {
		out, _, dwErr = dw.lookupUnit(addr, unit, inlines, out, meta)
	} else if o.dwLateErr != nil {
		dwErr = o.dwLateErr
	}
	if len(*meta) != len(out)-start {
		// A unit read before addr2line mode (cannot happen) or not in it.
		*meta = (*meta)[:0]
		for range out[start:] {
			*meta = append(*meta, a2lMeta{})
		}
	}
	var m *a2lMeta
	if len(out) > start {
		m = &(*meta)[0]
	}
	// elf_find_function runs when DWARF gave no function or a name that is
	// not a linkage name.
	if m == nil || m.unit == 0 || !m.linkage {
		if s, ok := o.a2lSyms.find(addr); ok {
			switch {
			case m == nil:
				out = append(out, Frame{Function: s.name, File: s.file, EmptyFile: s.hasFile && s.file == "",
					FuncAddr: s.value, HasFuncAddr: true})
				*meta = append(*meta, a2lMeta{})
			case m.unit == 0:
				out[start].Function, out[start].FuncAddr, out[start].HasFuncAddr = s.name, s.value, true
			default:
				m.sym, m.symAddr, m.hasSym, m.symAtLow = s.name, s.value, true, s.value == m.low
			}
		}
	}
	if len(out) == start {
		if dwErr != nil {
			return out, dwErr
		}
		if o.debugErr != nil {
			return out, o.debugErr
		}
		return out, ErrAddressNotFound
	}
	return out, dwErr
}
