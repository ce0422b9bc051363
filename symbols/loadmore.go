package symbols

import (
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
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
		if d, err := machoDWARF(f); err == nil {
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
		d, err := machoDWARF(df)
		if err != nil {
			dc.file.Close()
			nf.Rejected = append(nf.Rejected, fmt.Errorf("%s: %w", p, err))
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
		if d, err := peDWARF(f); err == nil {
			if err := o.setDWARF(d, c.path); err != nil {
				o.debugErr = err
			}
		} else {
			o.debugErr = fmt.Errorf("%s: %w", c.path, err)
		}
	} else {
		o.debugErr = fmt.Errorf("%s: %w (PDB files are not supported)", c.path, ErrNoDebugInfo)
	}
	return nil
}

func machoDWARF(f *macho.File) (*dwSections, error) {
	var names []string
	for _, s := range f.Sections {
		if s.Seg == "__DWARF" || strings.HasPrefix(s.Name, "__debug_") || strings.HasPrefix(s.Name, "__zdebug_") {
			names = append(names, s.Name)
		}
	}
	return namedDWARFSections(f.ByteOrder == binary.BigEndian, names, func(name string) ([]byte, error) {
		return f.Section(name).Data()
	})
}

func peDWARF(f *pe.File) (*dwSections, error) {
	var names []string
	for _, s := range f.Sections {
		names = append(names, s.Name)
	}
	return namedDWARFSections(false, names, func(name string) ([]byte, error) {
		s := f.Section(name)
		d, err := s.Data()
		if err != nil {
			return nil, err
		}
		// PE sections are padded to the file alignment; DWARF parsers
		// must not read the padding as more units.
		if s.VirtualSize != 0 && s.VirtualSize < uint32(len(d)) {
			d = d[:s.VirtualSize]
		}
		return d, nil
	})
}
