package symbols

import (
	"debug/gosym"
)

// newGoTable wraps debug/gosym, recovering from its panics on corrupt input.
func newGoTable(pclntab, symtab []byte, text uint64) (t *gosym.Table) {
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	lt := gosym.NewLineTable(pclntab, text)
	tab, err := gosym.NewTable(symtab, lt)
	if err != nil || len(tab.Funcs) == 0 {
		return nil
	}
	return tab
}

// goLookup resolves through the pclntab: file and line from its tables,
// and, when the inline tree could be read, the chain of inlined calls
// innermost first (the outer frames' positions are those of the call
// sites), as the DWARF path gives it.
func goLookup(t *gosym.Table, g *goInlTree, addr uint64, inlines bool, out []Frame) (res []Frame, ok bool) {
	defer func() {
		if recover() != nil {
			res, ok = out, false
		}
	}()
	fn := t.PCToFunc(addr)
	if fn == nil {
		return out, false
	}
	file, line, _ := t.PCToLine(addr)
	if line <= 0 {
		// Padding after a function: pcvalue tables answer -1.
		file, line = "", 0
	}
	var buf [8]goInlCall
	var calls []goInlCall
	if g != nil && line > 0 {
		if f, ok := g.fn(addr); ok {
			calls = g.calls(f, addr, buf[:0])
		}
	}
	name := fn.Name
	if len(calls) > 0 {
		name = calls[0].name
	}
	out = append(out, Frame{Function: name, File: file, Line: line, Inlined: len(calls) > 0, FuncAddr: fn.Entry, HasFuncAddr: true})
	if !inlines {
		return out, true
	}
	for i, c := range calls {
		name := fn.Name
		if i+1 < len(calls) {
			name = calls[i+1].name
		}
		f, l, _ := t.PCToLine(c.parentPC)
		out = append(out, Frame{Function: name, File: f, Line: l, Inlined: i+1 < len(calls), FuncAddr: fn.Entry, HasFuncAddr: true})
	}
	return out, true
}
