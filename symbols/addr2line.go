package symbols

import (
	"cmp"
	"context"
	"debug/elf"
	"slices"
	"sort"
)

// addr2line mode (WithAddr2line) answers as binutils 2.40 addr2line does,
// where that differs from the frames a Tracy client sends (the default):
//
//   - The innermost function is the one with the smallest address range
//     containing the address, among all subprograms and inlined
//     subroutines of the unit, ranges merged as arange_add merges adjacent
//     ones; equal lengths go to the later DIE (bfd/dwarf2.c,
//     lookup_address_in_function_table). The callers are the enclosing
//     function DIEs of that one (caller_func), not a walk down the tree.
//   - A function whose DWARF name is not a linkage name (C++ functions
//     without DW_AT_linkage_name: static, anonymous-namespace, clones) is
//     named by the ELF symbol binutils' elf_find_function picks for the
//     address. If that symbol starts at the function's first range, the
//     function keeps the symbol's name from then on; either way binutils
//     marks it as named, so later queries print its DWARF name unless
//     renamed. That state lives in an Addr2line session.
//   - File names are composed as DWARF gives them, nothing cleaned.

// a2lUnit is a unit's function table for addr2line mode.
type a2lUnit struct {
	spans []a2lSpan // every merged range of every function, sorted by lo
	nodes []a2lNode // by fnNode index
}

// a2lSpan is one range; wm is the highest hi of it and all before it, so
// a backward scan stops where no earlier range can reach the address.
type a2lSpan struct {
	lo, hi, wm uint64
	node       int32
}

type a2lNode struct {
	low     uint64 // binutils' arange.low: the first range after merging
	parent  int32  // caller_func for inlined subroutines, else -1
	linkage bool   // binutils' is_linkage
}

func (a *a2lUnit) finish() *a2lUnit {
	// Ranges are appended in DIE order (node order); sorting on (lo,
	// node) keeps that order among equal starts without a stable sort.
	slices.SortFunc(a.spans, func(p, q a2lSpan) int {
		if c := cmp.Compare(p.lo, q.lo); c != 0 {
			return c
		}
		return cmp.Compare(p.node, q.node)
	})
	var wm uint64
	for i := range a.spans {
		wm = max(wm, a.spans[i].hi)
		a.spans[i].wm = wm
	}
	a.spans, a.nodes = slices.Clip(a.spans), slices.Clip(a.nodes)
	return a
}

// find returns the node binutils picks for addr, or -1.
func (a *a2lUnit) find(addr uint64) int32 {
	sp := a.spans
	k := sort.Search(len(sp), func(i int) bool { return sp[i].lo > addr }) - 1
	best, bestLen := int32(-1), uint64(0)
	for j := k; j >= 0 && sp[j].wm > addr; j-- {
		s := &sp[j]
		if addr < s.hi {
			if l := s.hi - s.lo; best < 0 || l < bestLen || (l == bestLen && s.node > best) {
				best, bestLen = s.node, l
			}
		}
	}
	return best
}

// a2lUnitFor picks the unit binutils answers addr from when several
// units' ranges hold it (GNU ld points the debug info of discarded COMDAT
// copies at the kept one): the first in .debug_info order that has a line
// or a function there, where unitFor takes the smallest range.
func (x *dwarfIndex) a2lUnitFor(addr uint64) *cuIndex {
	rs := x.ranges
	i := sort.Search(len(rs), func(i int) bool { return rs[i].lo > addr }) - 1
	if i < 0 {
		return nil
	}
	var cand [8]int32
	cs := cand[:0]
	for k := i; k >= i-int(rs[i].back) && k >= 0; k-- {
		if addr < rs[k].hi {
			cs = append(cs, rs[k].idx)
		}
	}
	if len(cs) <= 1 {
		if len(cs) == 0 {
			return nil
		}
		return x.units[cs[0]]
	}
	slices.Sort(cs)
	for _, ui := range cs {
		cu := x.units[ui]
		x.buildLines(cu)
		x.buildFuncs(cu)
		if _, _, _, _, ok := cu.line(addr); ok {
			return cu
		}
		if cu.a2l != nil && cu.a2l.find(addr) >= 0 {
			return cu
		}
	}
	return x.units[cs[0]]
}

// a2lAdd records node idx (read from d, with ranges rs) for addr2line mode.
func (x *dwarfIndex) a2lAdd(cu *cuIndex, a *a2lUnit, d *dieAttrs, rs []addrRange, idx, parent int32, inlined bool, sc *buildScratch) {
	// arange_add: an empty range is dropped, the first fills the head, a
	// later one extends the first range (in list order: head, then the
	// most recently added) it touches, else is inserted after the head.
	var buf [8]addrRange
	ms := buf[:0]
	for _, r := range rs {
		if r.lo == r.hi {
			continue
		}
		if len(ms) == 0 {
			ms = append(ms, r)
			continue
		}
		merged := false
		for i := range ms {
			if r.lo == ms[i].hi {
				ms[i].hi, merged = r.hi, true
				break
			}
			if r.hi == ms[i].lo {
				ms[i].lo, merged = r.lo, true
				break
			}
		}
		if !merged {
			ms = append(ms, addrRange{})
			copy(ms[2:], ms[1:])
			ms[1] = r
		}
	}
	n := a2lNode{parent: -1, linkage: x.a2lLinkage(cu, d, sc)}
	if inlined {
		n.parent = parent
	}
	if len(ms) > 0 {
		n.low = ms[0].lo
	}
	for len(a.nodes) < int(idx) {
		a.nodes = append(a.nodes, a2lNode{parent: -1})
	}
	a.nodes = append(a.nodes, n)
	for _, m := range ms {
		a.spans = append(a.spans, a2lSpan{lo: m.lo, hi: m.hi, node: idx})
	}
}

// cLang reports whether binutils' mangle_style is 0 for a DW_AT_language:
// then a DW_AT_name counts as a linkage name.
func cLang(lang uint16) bool {
	switch lang {
	case 0x1, 0x2, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xc, 0xe, 0xf, 0x12, 0x1d, 0x22, 0x23, 0x8001:
		return true
	}
	return false
}

// a2lLinkage is binutils' is_linkage for a function DIE: a linkage name
// anywhere along its abstract origin / specification chain, or a plain
// name in a C-like unit.
func (x *dwarfIndex) a2lLinkage(cu *cuIndex, d *dieAttrs, sc *buildScratch) bool {
	if x.strRef(cu, d.linkage, d.linkageKind) != 0 {
		return true
	}
	var off uint64
	switch {
	case d.hasOrigin:
		off = d.origin
	case d.hasSpec:
		off = d.spec
	default:
		return x.strRef(cu, d.name, d.nameKind) != 0 && cLang(cu.lang)
	}
	return getOff(&sc.links, off, func() bool { return x.linkageAt(cu, off, 1) })
}

func (x *dwarfIndex) linkageAt(hint *cuIndex, off uint64, depth int) bool {
	u := x.unitAt(off, hint)
	if u == nil || depth > 8 {
		return false
	}
	r := rd{b: x.s.info[:u.end], off: int(off), big: x.s.big}
	a := u.ab.get(r.uleb())
	if a == nil || r.bad {
		return false
	}
	var d dieAttrs
	u.readAttrs(&r, a, &d)
	if r.bad {
		return false
	}
	if x.strRef(u, d.linkage, d.linkageKind) != 0 {
		return true
	}
	if d.hasSpec && x.linkageAt(u, d.spec, depth+1) {
		return true
	}
	if d.hasOrigin && x.linkageAt(u, d.origin, depth+1) {
		return true
	}
	return x.strRef(u, d.name, d.nameKind) != 0 && cLang(u.lang)
}

// a2lMeta is what an Addr2line session needs about a frame beyond Frame.
type a2lMeta struct {
	unit     uint64 // .debug_info offset of the unit + 1; 0: no DWARF function
	node     int32
	linkage  bool
	low      uint64 // innermost: the function's arange.low
	sym      string // innermost: the ELF symbol elf_find_function picks
	symAddr  uint64
	hasSym   bool
	symAtLow bool
}

// a2lChain appends the frames of addr in cu the addr2line way.
func (x *dwarfIndex) a2lChain(cu *cuIndex, addr uint64, inlines bool, out []Frame, meta *[]a2lMeta,
	file string, line, col, disc int, hasLine bool) ([]Frame, bool) {
	a := cu.a2l
	n := a.find(addr)
	if n < 0 {
		if !hasLine {
			return out, false
		}
		*meta = append(*meta, a2lMeta{})
		return append(out, Frame{File: file, Line: line, Column: col, Discriminator: disc}), true
	}
	root := n
	for d := 0; d < 256 && a.nodes[root].parent >= 0; d++ {
		root = a.nodes[root].parent
	}
	entry := cu.nodes[root].entry
	nd := &a.nodes[n]
	out = append(out, Frame{Function: x.name(cu.nodes[n].name), File: file, Line: line, Column: col,
		Discriminator: disc, Inlined: nd.parent >= 0, FuncAddr: entry, HasFuncAddr: true})
	*meta = append(*meta, a2lMeta{unit: cu.off + 1, node: n, linkage: nd.linkage, low: nd.low})
	if !inlines {
		return out, true
	}
	for d := 0; d < 256 && a.nodes[n].parent >= 0; d++ {
		in := &cu.nodes[n]
		p := a.nodes[n].parent
		out = append(out, Frame{Function: x.name(cu.nodes[p].name), File: cu.file(in.callFile),
			Line: int(in.callLine), Column: int(in.callCol), Inlined: a.nodes[p].parent >= 0,
			FuncAddr: entry, HasFuncAddr: true})
		*meta = append(*meta, a2lMeta{unit: cu.off + 1, node: p, linkage: a.nodes[p].linkage})
		n = p
	}
	return out, true
}

// a2lSymtab is the symbol table as binutils' elf_find_function sees it:
// .symtab (or .dynsym when there is none), symbols kept per section with
// their own sizes.
type a2lSymtab struct {
	secs []a2lSec
	syms map[uint16][]a2lSym // sorted by value, table order among equals
}

type a2lSec struct {
	addr, end uint64
	idx       uint16
}

type a2lSym struct {
	value, size uint64
	name, file  string
	hasFile     bool // file is named by an STT_FILE symbol (LTO's are "")
	fn, typed   bool
}

func newA2lSymtab(f *elf.File) *a2lSymtab {
	t := &a2lSymtab{syms: map[uint16][]a2lSym{}}
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Size > 0 && i < 0xff00 {
			t.secs = append(t.secs, a2lSec{s.Addr, s.Addr + s.Size, uint16(i)})
		}
	}
	ss := elfSymbolTable(f, elf.SHT_SYMTAB)
	if len(ss) == 0 {
		ss = elfSymbolTable(f, elf.SHT_DYNSYM)
	}
	// elf_find_function gives a symbol the file of the STT_FILE symbol
	// before it, for a global only until a file symbol follows the first
	// other symbol.
	const nothingSeen, symbolSeen, fileAfterSymbol = 0, 1, 2
	state, file, hasFile := nothingSeen, "", false
	for _, s := range ss {
		typ := elf.ST_TYPE(s.Info)
		if typ == elf.STT_FILE {
			file, hasFile = s.Name, true
			if state == symbolSeen {
				state = fileAfterSymbol
			}
			continue
		}
		if state == nothingSeen {
			state = symbolSeen
		}
		switch typ {
		case elf.STT_SECTION, elf.STT_FILE, elf.STT_OBJECT, elf.STT_TLS, elf.STT_COMMON:
			continue
		}
		if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		// _bfd_elf_maybe_function_sym: hidden local untyped zero-size
		// symbols (annobin markers) are not functions; other zero sizes
		// count as 1.
		size := s.Size
		if size == 0 {
			if elf.ST_BIND(s.Info) == elf.STB_LOCAL && typ == elf.STT_NOTYPE && elf.ST_VISIBILITY(s.Other) == elf.STV_HIDDEN {
				continue
			}
			size = 1
		}
		sec := uint16(s.Section)
		e := a2lSym{value: s.Value, size: size, name: s.Name,
			fn: typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC, typed: typ != elf.STT_NOTYPE}
		if hasFile && (elf.ST_BIND(s.Info) == elf.STB_LOCAL || state != fileAfterSymbol) {
			e.file, e.hasFile = file, true
		}
		t.syms[sec] = append(t.syms[sec], e)
	}
	for k, v := range t.syms {
		slices.SortStableFunc(v, func(p, q a2lSym) int { return cmp.Compare(p.value, q.value) })
		t.syms[k] = v
	}
	return t
}

// find is elf_find_function for addr: within the first allocated section
// holding addr, the symbol starting nearest at or below it, ties broken
// by better_fit.
func (t *a2lSymtab) find(addr uint64) (a2lSym, bool) {
	if t == nil {
		return a2lSym{}, false
	}
	sec := -1
	for _, s := range t.secs {
		if addr >= s.addr && addr < s.end {
			sec = int(s.idx)
			break
		}
	}
	if sec < 0 {
		return a2lSym{}, false
	}
	ss := t.syms[uint16(sec)]
	k := sort.Search(len(ss), func(i int) bool { return ss[i].value > addr }) - 1
	if k < 0 {
		return a2lSym{}, false
	}
	j := k
	for j > 0 && ss[j-1].value == ss[k].value {
		j--
	}
	best := ss[j]
	for j++; j <= k; j++ {
		if betterFit(&best, &ss[j], addr) {
			best = ss[j]
		}
	}
	return best, true
}

// betterFit is binutils' better_fit for two symbols at the same address.
func betterFit(cur, s *a2lSym, addr uint64) bool {
	if cur.value+cur.size <= addr {
		return s.size > cur.size
	}
	if s.value+s.size > addr {
		if cur.fn != s.fn {
			return s.fn
		}
		if cur.typed != s.typed {
			return s.typed
		}
		return s.size < cur.size
	}
	return false
}

// Addr2line is a session answering one image's addresses in order, as one
// run of binutils addr2line does, including the naming state binutils
// keeps between queries (see WithAddr2line). Its Resolver must have been
// made with WithAddr2line(true); otherwise it answers as Resolve does. A
// session is not safe for concurrent use.
type Addr2line struct {
	r     *Resolver
	img   Image
	named map[a2lKey]string // functions binutils has named: the name it now prints ("" = its DWARF name)
	reqs  []Request
}

type a2lKey struct {
	unit uint64
	node int32
}

// Addr2line starts a session for img.
func (r *Resolver) Addr2line(img Image) *Addr2line {
	return &Addr2line{r: r, img: img, named: map[a2lKey]string{}}
}

// Resolve answers image-relative addresses, in order.
func (a *Addr2line) Resolve(ctx context.Context, addrs []uint64) []Result {
	a.reqs = a.reqs[:0]
	for _, ad := range addrs {
		a.reqs = append(a.reqs, Request{Image: a.img, Addr: ad})
	}
	// Which unit answers depends on what binutils has read so far, so it
	// is decided here, in input order; the lookups then run in parallel.
	if o, err := a.r.object(a.img); err == nil && o.a2lSyms != nil && a.r.o.a2l {
		if dw := o.dwarf(); dw != nil && dw.a2l {
			s := dw.a2lUnitsFor()
			for i := range a.reqs {
				u := s.choose(a.reqs[i].Addr + o.relBase)
				if u >= 0 {
					u++
				}
				a.reqs[i].a2lUnit = u
			}
		}
	}
	res := a.r.Resolve(ctx, a.reqs)
	for i := range res {
		a.apply(&res[i])
	}
	return res
}

func (a *Addr2line) apply(res *Result) {
	for i := range res.Frames {
		if i >= len(res.a2l) {
			break
		}
		m := &res.a2l[i]
		if m.unit == 0 {
			continue
		}
		k := a2lKey{m.unit, m.node}
		name, seen := a.named[k]
		if i == 0 && !m.linkage && !seen {
			if m.hasSym {
				res.Frames[0].Function = m.sym
				if m.symAtLow {
					a.named[k] = m.sym
				} else {
					a.named[k] = ""
				}
			} else {
				a.named[k] = ""
			}
			continue
		}
		if seen && name != "" {
			res.Frames[i].Function = name
		}
	}
	res.a2l = nil
}
