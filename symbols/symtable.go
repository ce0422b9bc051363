package symbols

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// CompactSymbolTable is the Firefox profiler's "SymbolTableAsTuple": every
// symbol of a library as three flat arrays, so a whole libxul (hundreds of
// thousands of names) crosses the wire as one buffer instead of one JSON
// object per symbol. The name of Addr[i] is Buffer[Index[i]:Index[i+1]].
type CompactSymbolTable struct {
	// Addr holds library-relative addresses (the symbol server's module
	// offsets), ascending.
	Addr []uint32
	// Index has len(Addr)+1 byte offsets into Buffer; the last is len(Buffer).
	Index []uint32
	// Buffer is all names, UTF-8, concatenated in address order.
	Buffer []byte
}

// SymbolTable builds the compact symbol table of the image: the symbol table
// (or, for stripped images, the DWARF or pclntab function list), names
// demangled as the Resolver is configured. Symbols below the module base or
// beyond 4 GiB from it cannot be expressed and are dropped.
func (r *Resolver) SymbolTable(img Image) (*CompactSymbolTable, error) {
	o, err := r.object(img)
	if err != nil {
		return nil, err
	}
	syms := o.symbolList()
	t := &CompactSymbolTable{}
	type ent struct {
		addr uint32
		name string
	}
	ents := make([]ent, 0, len(syms))
	for _, s := range syms {
		if s.addr < o.serverBase || s.addr-o.serverBase > 0xffffffff {
			continue
		}
		name := s.name
		if r.o.demangle {
			name = r.demangle(name)
		}
		ents = append(ents, ent{uint32(s.addr - o.serverBase), name})
	}
	sort.SliceStable(ents, func(i, j int) bool { return ents[i].addr < ents[j].addr })
	t.Addr = make([]uint32, 0, len(ents))
	t.Index = make([]uint32, 0, len(ents)+1)
	for i, e := range ents {
		if i > 0 && ents[i-1].addr == e.addr {
			continue
		}
		t.Addr = append(t.Addr, e.addr)
		t.Index = append(t.Index, uint32(len(t.Buffer)))
		t.Buffer = append(t.Buffer, e.name...)
	}
	t.Index = append(t.Index, uint32(len(t.Buffer)))
	return t, nil
}

// Lookup returns the name covering a library-relative address.
func (t *CompactSymbolTable) Lookup(addr uint32) (string, bool) {
	i := sort.Search(len(t.Addr), func(i int) bool { return t.Addr[i] > addr }) - 1
	if i < 0 {
		return "", false
	}
	return string(t.Buffer[t.Index[i]:t.Index[i+1]]), true
}

// AppendBinary appends the table as little-endian u32 count, count addresses,
// count+1 indices, then the buffer: the layout the profiler's typed arrays
// take without copying.
func (t *CompactSymbolTable) AppendBinary(b []byte) ([]byte, error) {
	if len(t.Index) != len(t.Addr)+1 {
		return b, fmt.Errorf("symbols: compact symbol table: %d addresses, %d indices", len(t.Addr), len(t.Index))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Addr)))
	for _, a := range t.Addr {
		b = binary.LittleEndian.AppendUint32(b, a)
	}
	for _, a := range t.Index {
		b = binary.LittleEndian.AppendUint32(b, a)
	}
	return append(b, t.Buffer...), nil
}
