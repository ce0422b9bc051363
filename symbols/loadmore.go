package symbols

import (
	"fmt"
	"path/filepath"
)

// loadMachO uses the image's own DWARF if it has any, else the dSYM bundle
// beside it or in a search directory, accepted only with the same LC_UUID.
func (l *locator) loadMachO(o *object, c *candidate) error {
	f, _, err := readMachO(c.file)
	if err != nil {
		return err
	}
	o.relBase = machoText(f)
	o.serverBase = o.relBase
	o.syms = newSymtab(machoSymbols(f))
	if s := f.Section("__gopclntab"); s != nil {
		if d, err := s.Data(); err == nil {
			var text uint64
			if t := f.Section("__text"); t != nil {
				text = t.Addr
			}
			o.gotab = newGoTable(d, nil, text)
		}
	}
	if f.Section("__debug_info") != nil || f.Section("__zdebug_info") != nil {
		if d, err := f.DWARF(); err == nil {
			if err := o.setDWARF(d, c.path); err != nil {
				o.debugErr = err
			}
			return nil
		}
	}
	base := filepath.Base(c.path)
	dirs := []string{filepath.Dir(c.path)}
	dirs = append(dirs, l.o.searchDirs...)
	nf := &NotFoundError{Image: c.path + " (dSYM)"}
	for _, d := range dirs {
		p := filepath.Join(d, base+".dSYM", "Contents", "Resources", "DWARF", base)
		nf.Searched = append(nf.Searched, p)
		if !l.allowed(p) {
			continue
		}
		dc, err := openCandidate(p)
		if err != nil {
			continue
		}
		if dc.format != "macho" || !c.id.IsZero() && !dc.id.Equal(c.id) {
			nf.Rejected = append(nf.Rejected, &MismatchError{Path: p, Want: c.id, Got: dc.id})
			dc.file.Close()
			continue
		}
		df, _, err := readMachO(dc.file)
		if err != nil {
			dc.file.Close()
			nf.Rejected = append(nf.Rejected, err)
			continue
		}
		d, err := df.DWARF()
		if err != nil {
			dc.file.Close()
			nf.Rejected = append(nf.Rejected, fmt.Errorf("%s: %w: %v", p, ErrMalformed, err))
			continue
		}
		o.closers = append(o.closers, dc.file)
		if err := o.setDWARF(d, p); err != nil {
			o.debugErr = err
		}
		return nil
	}
	o.debugErr = nf
	return nil
}

// loadPE reads COFF symbols and exports and any DWARF (MinGW, Go). PDB files
// are not supported.
func (l *locator) loadPE(o *object, c *candidate) error {
	f, _, base, err := readPE(c.file)
	if err != nil {
		return err
	}
	o.relBase, o.serverBase = base, base
	o.syms = newSymtab(peSymbols(f, base))
	if f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil {
		if d, err := f.DWARF(); err == nil {
			if err := o.setDWARF(d, c.path); err != nil {
				o.debugErr = err
			}
		}
	} else {
		o.debugErr = fmt.Errorf("%s: %w (PDB files are not supported)", c.path, ErrNoDebugInfo)
	}
	return nil
}
