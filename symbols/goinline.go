package symbols

import (
	"debug/elf"
	"encoding/binary"
	"math/bits"
	"sync"
)

// goInlTree decodes the Go runtime's inline tree from a binary's pclntab
// and funcdata, which survive stripping (the runtime needs them for
// tracebacks), so a stripped Go binary yields inlined frames like its
// DWARF would. Facts used (Go 1.20+ layouts, pclntab magic 0xfffffff1):
//
//   - pcHeader: magic, 2 pad bytes, pc quantum, pointer size, then nfunc,
//     nfiles, textStart and the offsets of funcnametab, cutab, filetab,
//     pctab and the func table, each pointer-sized;
//   - the func table: nfunc+1 (entryoff, funcoff) uint32 pairs;
//   - _func: entryOff, nameOff, args, deferreturn, pcsp, pcfile, pcln,
//     npcdata, cuOffset, startLine (4 bytes each), funcID, flag, pad,
//     nfuncdata (1 byte each), pcdata[npcdata] uint32, funcdata[nfuncdata]
//     uint32 (offsets from moduledata.gofunc; ^0 is none);
//   - PCDATA_InlTreeIndex = 2 maps a pc to an index into the function's
//     FUNCDATA_InlTree = 3 array of 16-byte inlinedCall{funcID, pad[3],
//     nameOff, parentPc, startLine}; parentPc (from the entry) is an
//     instruction at the call site, whose own index gives the next level;
//   - moduledata (found in .noptrdata by its first word, the pcHeader
//     address) holds gofunc as its 41st word.
type goInlTree struct {
	bo                 binary.ByteOrder
	big                bool // bo is big-endian; u32 avoids the interface call
	quantum            uint64
	text               uint64
	nfunc              int
	names, pctab, ftab []byte
	cutab, files       []byte
	pcln               []byte
	gofunc             []byte // from moduledata.gofunc to the end of its section
	funcs              [goTabShards]goTabShard
}

type goInlCall struct {
	name     string
	parentPC uint64
}

const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
)

// newGoInlTree returns nil when the binary's layout is not one it knows.
func newGoInlTree(f *elf.File, pcln []byte, pclnAddr uint64) (g *goInlTree) {
	defer func() {
		if recover() != nil {
			g = nil
		}
	}()
	bo := f.ByteOrder
	if len(pcln) < 8 || bo.Uint32(pcln) != 0xfffffff1 {
		return nil
	}
	ps := int(pcln[7])
	if ps != 8 && ps != 4 || len(pcln) < 8+8*ps {
		return nil
	}
	word := func(b []byte, i int) uint64 {
		if ps == 8 {
			return bo.Uint64(b[i*8:])
		}
		return uint64(bo.Uint32(b[i*4:]))
	}
	h := pcln[8:]
	nfunc := word(h, 0)
	off := func(i int) []byte {
		o := word(h, i)
		if o > uint64(len(pcln)) {
			panic("offset")
		}
		return pcln[o:]
	}
	g = &goInlTree{bo: bo, big: bo == binary.BigEndian, quantum: uint64(pcln[6]), text: word(h, 2), names: off(3), cutab: off(4), files: off(5), pctab: off(6), pcln: off(7)}
	if nfunc > uint64(len(g.pcln))/8 || g.quantum == 0 {
		return nil
	}
	g.nfunc = int(nfunc)
	g.ftab = g.pcln[:(g.nfunc+1)*8]
	// Find moduledata: a word equal to the pcHeader address followed by
	// the funcnametab slice pointing into the pclntab.
	const gofuncWord, textWord = 40, 22
	for _, name := range [...]string{".go.module", ".noptrdata"} {
		nd := f.Section(name)
		if nd == nil || nd.Type == elf.SHT_NOBITS || nd.Size > 64<<20 {
			continue
		}
		data, err := nd.Data()
		if err != nil {
			continue
		}
		if g.fromModuledata(f, data, pcln, ps, word, pclnAddr, word(h, 3)) {
			return g
		}
	}
	return nil
}

// fromModuledata finds moduledata in data and sets gofunc from it.
func (g *goInlTree) fromModuledata(f *elf.File, data, pcln []byte, ps int, word func([]byte, int) uint64, pclnAddr, nameOff uint64) bool {
	const gofuncWord, textWord = 40, 22
	for i := 0; i+(gofuncWord+2)*ps <= len(data); i += ps {
		m := data[i:]
		// Go 1.26 leaves pcHeader.textStart zero; moduledata.text has it.
		if word(m, 0) != pclnAddr || word(m, 1) != pclnAddr+nameOff || g.text != 0 && word(m, textWord) != g.text {
			continue
		}
		// moduledata.rodata pins the layout up to gofunc, which follows it.
		if ro := f.Section(".rodata"); ro == nil || word(m, 39) != ro.Addr {
			return false
		}
		g.text = word(m, textWord)
		gf := word(m, gofuncWord)
		if gf >= pclnAddr && gf-pclnAddr < uint64(len(pcln)) {
			// Go 1.26 places go:func.* inside the pclntab section.
			g.gofunc = pcln[gf-pclnAddr:]
			return true
		}
		for _, s := range f.Sections {
			if s.Type != elf.SHT_NOBITS && gf >= s.Addr && gf < s.Addr+s.Size {
				d, err := s.Data()
				if err != nil || gf-s.Addr > uint64(len(d)) {
					return false
				}
				g.gofunc = d[gf-s.Addr:]
				return true
			}
		}
		return false
	}
	return false
}

// funcAt returns the _func record, entry address and record offset (which
// identifies the function) of the function containing pc.
func (g *goInlTree) funcAt(pc uint64) ([]byte, uint64, uint32, bool) {
	if pc < g.text {
		return nil, 0, 0, false
	}
	rel := pc - g.text
	if g.nfunc <= 0 || uint64(g.u32(g.ftab)) > rel {
		return nil, 0, 0, false
	}
	// The last entry at or below rel, without branches (see findSpan).
	i, n := 0, g.nfunc
	for n > 1 {
		half := n >> 1
		_, borrow := bits.Sub64(rel, uint64(g.u32(g.ftab[(i+half)*8:])), 0)
		i += half &^ -int(borrow)
		n -= half
	}
	fo := g.u32(g.ftab[i*8+4:])
	if uint64(fo)+44 > uint64(len(g.pcln)) {
		return nil, 0, 0, false
	}
	fn := g.pcln[fo:]
	return fn, g.text + uint64(g.u32(fn)), fo, true
}

func (g *goInlTree) u32(b []byte) uint32 {
	if g.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// goFunc is a function's decoded tables, built on its first lookup.
type goFunc struct {
	name            string
	entry           uint64
	cuOff           uint64
	file, line, inl []pcv
	tree            []byte // the inline tree, nil when none
}

// fn returns the decoded function covering pc.
func (g *goInlTree) fn(pc uint64) (*goFunc, bool) {
	raw, entry, fo, ok := g.funcAt(pc)
	if !ok {
		return nil, false
	}
	sh := &g.funcs[fo%goTabShards]
	sh.mu.RLock()
	f, ok := sh.m[fo]
	sh.mu.RUnlock()
	if ok {
		return f, true
	}
	f = &goFunc{name: strAt(g.names, uint64(g.u32(raw[4:]))), entry: entry, cuOff: uint64(g.u32(raw[32:]))}
	// The three tables are decoded into a stack buffer and copied into
	// one array of their exact total size: one allocation per function
	// instead of a growing slice per table.
	var buf [256]pcv
	tabs := g.table(buf[:0], g.u32(raw[20:]))
	nFile := len(tabs)
	tabs = g.table(tabs, g.u32(raw[24:]))
	nLine := len(tabs)
	npcdata, nfuncdata := uint64(g.u32(raw[28:])), uint64(raw[43])
	if npcdata > pcdataInlTreeIndex && nfuncdata > funcdataInlTree && uint64(len(raw)) >= 44+4*(npcdata+nfuncdata) {
		treeOff := g.u32(raw[44+4*npcdata+4*funcdataInlTree:])
		if treeOff != ^uint32(0) && uint64(treeOff) < uint64(len(g.gofunc)) {
			f.tree = g.gofunc[treeOff:]
			tabs = g.table(tabs, g.u32(raw[44+4*pcdataInlTreeIndex:]))
		}
	}
	all := exact(tabs)
	f.file, f.line, f.inl = clip(all[:nFile]), clip(all[nFile:nLine]), clip(all[nLine:])
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[uint32]*goFunc{}
	}
	sh.m[fo] = f
	sh.mu.Unlock()
	return f, true
}

// at evaluates a decoded pc-value table at pc; -1 when pc is beyond it.
func (f *goFunc) at(t []pcv, pc uint64) int32 {
	if pc < f.entry {
		return -1
	}
	rel := pc - f.entry
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if uint64(t[m].end) <= rel {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(t) {
		return -1
	}
	return t[lo].val
}

// table appends the pc-value table at off decoded into (end offset from
// the entry, value) pairs; nothing (every pc: -1) for offset 0.
func (g *goInlTree) table(out []pcv, off uint32) []pcv {
	if off == 0 || uint64(off) >= uint64(len(g.pctab)) {
		return out
	}
	return g.decodePCValue(out, off)
}

// clip returns t without spare capacity, nil when empty.
func clip(t []pcv) []pcv {
	if len(t) == 0 {
		return nil
	}
	return t[:len(t):len(t)]
}

// pcv: the value of a pc-value table below end (an offset from the entry).
type pcv struct {
	end uint32
	val int32
}

const goTabShards = 16

type goTabShard struct {
	mu sync.RWMutex
	m  map[uint32]*goFunc
	_  [64 - 24 - 8]byte
}

func (g *goInlTree) decodePCValue(out []pcv, off uint32) []pcv {
	r := rd{b: g.pctab, off: int(off)}
	pc, val := uint64(0), int32(-1)
	for n := 0; n < 1<<20; n++ {
		uv := r.uleb()
		if r.bad || uv == 0 && n > 0 {
			break
		}
		val += -int32(uv&1) ^ int32(uv>>1)
		pc += r.uleb() * g.quantum
		if r.bad || pc > 1<<32 {
			break
		}
		out = append(out, pcv{uint32(pc), val})
	}
	return out
}

// calls returns the inlined calls at pc, innermost first: each call's
// function name and the pc of its call site in the enclosing function.
func (g *goInlTree) calls(f *goFunc, pc uint64, out []goInlCall) []goInlCall {
	if f.tree == nil {
		return out
	}
	for depth := 0; depth < 256; depth++ {
		ix := f.at(f.inl, pc)
		if ix < 0 || uint64(ix)*16+16 > uint64(len(f.tree)) {
			break
		}
		c := f.tree[ix*16:]
		nameOff := uint64(g.u32(c[4:]))
		parent := f.entry + uint64(int64(int32(g.u32(c[8:]))))
		out = append(out, goInlCall{name: strAt(g.names, nameOff), parentPC: parent})
		if parent == pc {
			break
		}
		pc = parent
	}
	return out
}

// lookup resolves pc from the pclntab alone: function, file and line of
// the innermost inlined call (or the function itself), then the call
// sites outwards. ok is false when no function covers pc or the tables
// give no line (padding), so the caller can try DWARF.
func (g *goInlTree) lookup(pc uint64, inlines bool, out []Frame) (res []Frame, found bool) {
	// Every read below is bounds-checked; the recover is a last line of
	// defence so that a corrupt table costs an address, not the process.
	defer func() {
		if recover() != nil {
			res, found = out, false
		}
	}()
	fn, ok := g.fn(pc)
	if !ok {
		return out, false
	}
	entry := fn.entry
	file, line := g.fileLine(fn, pc)
	if line <= 0 {
		return out, false
	}
	outer := fn.name
	var buf [8]goInlCall
	calls := g.calls(fn, pc, buf[:0])
	name := outer
	if len(calls) > 0 {
		name = calls[0].name
	}
	out = append(out, Frame{Function: name, File: file, Line: int(line), Inlined: len(calls) > 0, FuncAddr: entry, HasFuncAddr: true})
	if !inlines {
		return out, true
	}
	for i, c := range calls {
		name := outer
		if i+1 < len(calls) {
			name = calls[i+1].name
		}
		f, l := g.fileLine(fn, c.parentPC)
		out = append(out, Frame{Function: name, File: f, Line: int(max(l, 0)), Inlined: i+1 < len(calls), FuncAddr: entry, HasFuncAddr: true})
	}
	return out, true
}

// fileLine evaluates a function's pcfile and pcln tables at pc; file
// numbers index the function's compilation unit's slice of cutab, whose
// entries are offsets into filetab.
func (g *goInlTree) fileLine(f *goFunc, pc uint64) (string, int32) {
	line := f.at(f.line, pc)
	fno := f.at(f.file, pc)
	if fno < 0 {
		return "", line
	}
	i := (f.cuOff + uint64(fno)) * 4
	if i+4 > uint64(len(g.cutab)) {
		return "", line
	}
	return strAt(g.files, uint64(g.u32(g.cutab[i:]))), line
}
