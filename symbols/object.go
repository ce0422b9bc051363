package symbols

import (
	"debug/dwarf"
	"debug/gosym"
	"io"
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
	syms       symtab
	gotab      *gosym.Table
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

func (o *object) setDWARF(d *dwarf.Data, from string) error {
	x, err := newDwarfIndex(d)
	if err != nil {
		return err
	}
	o.dw, o.debugPath = x, from
	return nil
}

// lookup resolves a file address. It returns frames (innermost first) with
// FuncAddr still in file addresses.
func (o *object) lookup(addr uint64, inlines bool, out []Frame) ([]Frame, error) {
	start := len(out)
	var dwErr error
	if o.dw != nil {
		out, _, dwErr = o.dw.lookup(addr, inlines, out)
		if len(out) > start && out[start].Function != "" {
			return out, nil
		}
	}
	if o.gotab != nil && len(out) == start {
		var ok bool
		if out, ok = goLookup(o.gotab, addr, out); ok {
			return out, nil
		}
	}
	if s, ok := o.syms.find(addr); ok {
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
	if o.gotab != nil {
		for _, f := range o.gotab.Funcs {
			out = append(out, sym{addr: f.Entry, size: f.End - f.Entry, name: f.Name})
		}
	}
	if o.dw != nil && len(out) == 0 {
		for _, cu := range o.dw.units {
			cu.buildFuncs(o.dw)
			for _, n := range cu.nodes {
				if !n.inlined {
					out = append(out, sym{addr: n.entry, name: n.name})
				}
			}
		}
	}
	return newSymtab(out)
}
