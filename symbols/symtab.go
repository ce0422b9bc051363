package symbols

import "sort"

// sym is one entry of a flattened symbol table (ELF .symtab/.dynsym, Mach-O
// nlist, PE COFF symbols and exports), addresses in the file's own space.
type sym struct {
	addr, size uint64
	name       string
	file       string // source file from ELF STT_FILE symbols, if any
}

// symtab is sorted by address; duplicates at one address keep the entry
// covering the least (the innermost) and the first name.
type symtab []sym

func newSymtab(s []sym) symtab {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].addr != s[j].addr {
			return s[i].addr < s[j].addr
		}
		return s[i].size < s[j].size
	})
	out := s[:0]
	for _, e := range s {
		if n := len(out); n > 0 && out[n-1].addr == e.addr {
			continue
		}
		out = append(out, e)
	}
	return symtab(out)
}

// find returns the symbol covering addr: the nearest one at or below it,
// unless that symbol has a size and addr lies beyond it.
func (t symtab) find(addr uint64) (sym, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].addr > addr }) - 1
	if i < 0 {
		return sym{}, false
	}
	s := t[i]
	if s.size > 0 && addr >= s.addr+s.size {
		return sym{}, false
	}
	return s, true
}
