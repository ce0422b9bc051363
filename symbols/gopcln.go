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

// goLookup resolves through the pclntab. The pclntab's file/line tables
// already describe the innermost inlined position; the function is the
// outermost one, as the inline tree needs runtime funcdata we do not decode.
func goLookup(t *gosym.Table, addr uint64, out []Frame) (res []Frame, ok bool) {
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
	return append(out, Frame{Function: fn.Name, File: file, Line: line, FuncAddr: fn.Entry, HasFuncAddr: true}), true
}
