package symbols

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"
)

// dwarfIndex answers address queries from DWARF 2-5 data. Opening reads
// only the unit headers and each unit's root DIE; a unit's line table and
// function tree are built the first time an address inside it is asked
// for (most profiles touch a small part of a large binary), with the
// non-allocating readers of dwarfread.go and dwarfline.go, then looked up
// by binary search. Everything built is immutable afterwards, so lookups
// need no lock except the per-unit sync.Once; units touched by one batch
// are built in parallel by the batch's workers.
type dwarfIndex struct {
	s      *dwSections
	units  []*cuIndex // sorted by offset
	ranges []span

	// seqs indexes every line-table sequence of every unit. Unit ranges
	// cover functions only, but line sequences also cover the padding
	// between them, which binutils resolves; built on the first address no
	// unit range answers.
	seqOnce sync.Once
	seqs    []span

	scratch sync.Pool // of *buildScratch

	// a2l selects binutils addr2line's answers (WithAddr2line): file names
	// as DWARF composes them, the smallest-range function rule and what
	// the ELF-symbol name rule needs. Set before the first lookup.
	a2l bool

	a2lOnce sync.Once
	a2lSim  *a2lUnits // addr2line mode: binutils' unit discovery (a2lunits.go)
}

// addrRange is an address range as read from DWARF.
type addrRange struct {
	lo, hi uint64
	idx    int32 // unit index (unit table) or node index (function tree)
}

// span is an entry of a searchable range table (units, sequences,
// functions): sorted by lo, built by prepSpans. back is how many entries
// before this one may still cover an address at or above its lo (0 when
// the ranges before it all end at or below lo, as with functions laid out
// one after another), so findSpan looks back only as far as overlaps
// require instead of a fixed window. It fits the padding of the
// (lo, hi, idx) triple: the table stays 24 bytes an entry and
// pointer-free.
type span struct {
	lo, hi uint64
	idx    int32 // unit index (unit table) or node index (function tree)
	back   int32
}

type cuIndex struct {
	off, end, die                 uint64 // header, end, root DIE offsets in .debug_info
	version, addrSize, offSize    uint8
	ab                            *abbrevTable
	strOffBase, addrBase, rngBase uint64
	base                          uint64 // base address for range lists
	name, compDir                 string
	lang                          uint16 // DW_AT_language
	stmtList                      uint64
	hasStmt                       bool

	lineOnce  buildOnce
	lineErr   error
	funcsOnce buildOnce
	funcsErr  error

	rows  []lineRow
	files []string // by the unit's file numbers
	nodes []fnNode
	kids  []span // children ranges of all nodes, grouped by parent, sorted by lo
	top   []span // ranges of outermost functions, sorted by lo

	a2l *a2lUnit // addr2line mode only (dwarfIndex.a2l)
}

// lineRow is one line-table row. An end_sequence row, whose address is one
// past its sequence, has file endRow; it is a file number otherwise (-1:
// none), which keeps the row at 24 bytes.
type lineRow struct {
	addr uint64
	file int32
	line int32
	col  int32
	disc int32
}

const endRow = math.MinInt32

func (r *lineRow) isEnd() bool { return r.file == endRow }

// fnNode is a subprogram or inlined subroutine with code; its children's
// ranges are kids[kidLo:kidHi]. It holds no pointer (the name is a
// section reference), so the GC never scans a unit's node array.
type fnNode struct {
	entry        uint64 // lowest address (entry for real functions)
	name         nameRef
	kidLo, kidHi int32
	callFile     int32 // for inlined subroutines: where the call was
	callLine     int32
	callCol      int32
	inlined      bool
}

const maxUnits = 1 << 22

// inAbstract marks, on the DIE walk's stack, the children of an abstract
// instance being walked in addr2line mode (no node of its own).
const inAbstract = -2

func newDwarfIndex(s *dwSections) (*dwarfIndex, error) {
	x := &dwarfIndex{s: s}
	type abKey struct {
		off              uint64
		addr, off2, vers uint8
	}
	abs := map[abKey]*abbrevTable{}
	info := s.info
	for off := uint64(0); off < uint64(len(info)); {
		r := rd{b: info, off: int(off), big: s.big}
		ulen := uint64(r.u32())
		offSize := uint8(4)
		if ulen == 0xffffffff {
			ulen, offSize = r.u64(), 8
		} else if ulen >= 0xfffffff0 {
			return nil, fmt.Errorf("%w: unit at %#x: bad length", ErrMalformed, off)
		}
		if r.bad || ulen > uint64(len(info)-r.off) {
			return nil, fmt.Errorf("%w: unit at %#x exceeds .debug_info", ErrMalformed, off)
		}
		end := uint64(r.off) + ulen
		r.b = info[:end]
		next := end
		vers := r.u16()
		var addrSize, utype uint8
		var abOff uint64
		if vers >= 5 {
			utype = r.u8()
			addrSize = r.u8()
			abOff = r.sized(offSize)
			switch utype {
			case 2, 6: // type units: signature, type offset
				r.skip(8 + uint64(offSize))
			case 4, 5: // skeleton, split compile: dwo id
				r.skip(8)
			}
		} else {
			abOff = r.sized(offSize)
			addrSize = r.u8()
		}
		if r.bad || vers < 2 || vers > 5 || (addrSize != 4 && addrSize != 8 && addrSize != 2) {
			return nil, fmt.Errorf("%w: unit at %#x: version %d, address size %d", ErrMalformed, off, vers, addrSize)
		}
		if len(x.units) >= maxUnits {
			return nil, fmt.Errorf("%w: too many units", ErrMalformed)
		}
		k := abKey{abOff, addrSize, offSize, uint8(vers)}
		ab := abs[k]
		if ab == nil {
			var err error
			if ab, err = parseAbbrevs(s.abbrev, abOff, addrSize, offSize, uint8(vers)); err != nil {
				return nil, fmt.Errorf("unit at %#x: %w", off, err)
			}
			abs[k] = ab
		}
		cu := &cuIndex{off: off, end: end, die: uint64(r.off), version: uint8(vers), addrSize: addrSize, offSize: offSize, ab: ab}
		off = next
		code := r.uleb()
		a := ab.get(code)
		if r.bad || a == nil {
			return nil, fmt.Errorf("%w: unit at %#x: bad root DIE", ErrMalformed, cu.off)
		}
		if a.tag != tagCompileUnit && a.tag != tagPartialUnit {
			continue
		}
		var d dieAttrs
		cu.readAttrs(&r, a, &d)
		if r.bad {
			return nil, fmt.Errorf("%w: unit at %#x: truncated root DIE", ErrMalformed, cu.off)
		}
		cu.strOffBase, cu.addrBase, cu.rngBase = d.strOffBase, d.addrBase, d.rnglistsBase
		cu.name = x.str(cu, d.name, d.nameKind)
		cu.compDir = x.str(cu, d.compDir, d.compDirKind)
		cu.lang = uint16(d.lang)
		cu.stmtList, cu.hasStmt = d.stmtList, d.hasStmtList
		if b, ok := x.address(cu, d.entryPC, d.entryPCKind); ok {
			cu.base = b
		} else if b, ok := x.address(cu, d.lowpc, d.lowKind); ok {
			cu.base = b
		}
		ui := int32(len(x.units))
		x.units = append(x.units, cu)
		var rs []addrRange
		if lo, ok := x.address(cu, d.lowpc, d.lowKind); ok {
			if hi, ok := x.highPC(cu, lo, &d); ok {
				rs = append(rs, addrRange{lo, hi, 0})
			}
		}
		if d.rangesKind != vNone {
			rs = x.rangeList(cu, d.ranges, d.rangesKind, rs)
		}
		n := 0
		for _, rg := range rs {
			if rg.hi > rg.lo {
				n++
				x.ranges = append(x.ranges, span{lo: rg.lo, hi: rg.hi, idx: ui})
			}
		}
		if n == 0 {
			// No unit ranges (some assemblers, some LTO units): fall back
			// to the ranges covered by the unit's line table.
			x.buildLines(cu)
			for _, rg := range cu.lineRanges() {
				if rg[1] > rg[0] {
					x.ranges = append(x.ranges, span{lo: rg[0], hi: rg[1], idx: ui})
				}
			}
		}
	}
	prepSpans(x.ranges)
	return x, nil
}

// lookBack bounds how far back findRange and findSpan look for a smaller
// range containing an address.
const lookBack = 64

// prepSpans sorts rs by lo (stably: among equal starts, DIE order decides
// ties as before) and sets each entry's back.
func prepSpans(rs []span) {
	if !slices.IsSortedFunc(rs, cmpSpan) {
		slices.SortStableFunc(rs, cmpSpan)
	}
	var maxHi uint64 // highest hi of the entries before i
	for i := range rs {
		lo := rs[i].lo
		rs[i].back = 0
		if i > 0 && maxHi > lo {
			// Earliest entry within the window still open at lo: only
			// those can contain an address at or above lo.
			for k := i - 1; k >= 0 && k > i-lookBack; k-- {
				if rs[k].hi > lo {
					rs[i].back = int32(i - k)
				}
			}
		}
		maxHi = max(maxHi, rs[i].hi)
	}
}

func cmpSpan(a, b span) int {
	switch {
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// highPC interprets DW_AT_high_pc: an address, or (DWARF 4+) an offset
// from low_pc; ok is false when absent or empty.
func (x *dwarfIndex) highPC(u *cuIndex, lo uint64, d *dieAttrs) (uint64, bool) {
	switch d.highKind {
	case vAddr, vAddrx:
		hv, ok := x.address(u, d.highpc, d.highKind)
		return hv, ok
	case vConst, vSConst:
		return lo + d.highpc, true
	}
	return 0, false
}

// rangeList appends the ranges of a DW_AT_ranges value (DWARF 2-4
// .debug_ranges, DWARF 5 .debug_rnglists by offset or rnglistx index).
// A malformed list contributes nothing.
func (x *dwarfIndex) rangeList(u *cuIndex, v uint64, kind uint8, out []addrRange) []addrRange {
	start := len(out)
	if u.version < 5 {
		if kind != vSecOff && kind != vConst || v >= uint64(len(x.s.ranges)) {
			return out
		}
		r := rd{b: x.s.ranges, off: int(v), big: x.s.big}
		maxAddr := ^uint64(0) >> ((8 - u.addrSize) * 8)
		base := u.base
		for r.off < len(r.b) {
			lo, hi := r.sized(u.addrSize), r.sized(u.addrSize)
			if r.bad {
				return out[:start]
			}
			if lo == 0 && hi == 0 {
				break
			}
			if lo == maxAddr {
				base = hi
				continue
			}
			out = append(out, addrRange{base + lo, base + hi, 0})
		}
		return out
	}
	switch kind {
	case vSecOff, vConst:
	case vRnglx:
		// The offset table after the rnglists header, indexed from
		// DW_AT_rnglists_base.
		o := u.rngBase + v*uint64(u.offSize)
		if v > 1<<40 || o+uint64(u.offSize) > uint64(len(x.s.rnglists)) {
			return out
		}
		r := rd{b: x.s.rnglists, off: int(o), big: x.s.big}
		v = u.rngBase + r.sized(u.offSize)
	default:
		return out
	}
	if v >= uint64(len(x.s.rnglists)) {
		return out
	}
	r := rd{b: x.s.rnglists, off: int(v), big: x.s.big}
	base := u.base
	addrx := func(i uint64) uint64 {
		a, ok := x.address(u, i, vAddrx)
		if !ok {
			r.bad = true
		}
		return a
	}
	for n := 0; n < 1<<24; n++ {
		op := r.u8()
		switch op {
		case 0: // DW_RLE_end_of_list
			if r.bad {
				return out[:start]
			}
			return out
		case 1: // base_addressx
			base = addrx(r.uleb())
		case 2: // startx_endx
			a, b := addrx(r.uleb()), addrx(r.uleb())
			out = append(out, addrRange{a, b, 0})
		case 3: // startx_length
			a := addrx(r.uleb())
			out = append(out, addrRange{a, a + r.uleb(), 0})
		case 4: // offset_pair
			a, b := r.uleb(), r.uleb()
			out = append(out, addrRange{base + a, base + b, 0})
		case 5: // base_address
			base = r.sized(u.addrSize)
		case 6: // start_end
			a, b := r.sized(u.addrSize), r.sized(u.addrSize)
			out = append(out, addrRange{a, b, 0})
		case 7: // start_length
			a := r.sized(u.addrSize)
			out = append(out, addrRange{a, a + r.uleb(), 0})
		default:
			return out[:start]
		}
		if r.bad {
			return out[:start]
		}
	}
	return out[:start]
}

// findRange returns the smallest range in rs (sorted by lo) containing addr,
// or -1. Ranges may overlap (code discarded by the linker is often left at
// address 0), so it looks back a bounded distance instead of trusting the
// nearest range. The index uses findSpan, which answers the same; this
// plain form is the reference the oracle and the tests hold it to.
func findRange(rs []addrRange, addr uint64) int {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].lo <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo - 1
	best := -1
	for k := i; k >= 0 && k > i-lookBack; k-- {
		r := &rs[k]
		if addr < r.hi && (best < 0 || r.hi-r.lo < rs[best].hi-rs[best].lo) {
			best = k
		}
	}
	return best
}

// findSpan is findRange over a table prepared by prepSpans: the same
// answer, but it looks back only over the entries that overlap the
// nearest one, which for functions is usually none.
func findSpan(rs []span, addr uint64) int {
	if len(rs) == 0 || rs[0].lo > addr {
		return -1
	}
	// The last entry with lo <= addr, by a binary search without
	// branches (the borrow of addr-lo masks the step): random addresses
	// make the branches of the classic form unpredictable.
	i, n := 0, len(rs)
	for n > 1 {
		half := n >> 1
		_, borrow := bits.Sub64(addr, rs[i+half].lo, 0)
		i += half &^ -int(borrow)
		n -= half
	}
	if rs[i].back == 0 {
		if addr < rs[i].hi {
			return i
		}
		return -1
	}
	best := -1
	for k := i; k >= i-int(rs[i].back); k-- {
		r := &rs[k]
		if addr < r.hi && (best < 0 || r.hi-r.lo < rs[best].hi-rs[best].lo) {
			best = k
		}
	}
	return best
}

// unitFor returns the unit whose range (the smallest) contains addr.
func (x *dwarfIndex) unitFor(addr uint64) *cuIndex {
	k := findSpan(x.ranges, addr)
	if k < 0 {
		return nil
	}
	return x.units[x.ranges[k].idx]
}

// lookup appends the frames for addr to out. ok reports whether anything
// (a line or a function) was found.
func (x *dwarfIndex) lookup(addr uint64, inlines bool, out []Frame) ([]Frame, bool, error) {
	return x.lookupMeta(addr, inlines, out, nil)
}

// lookupMeta is lookup; in addr2line mode (meta != nil, x.a2l) it answers
// the addr2line way and appends one a2lMeta per frame.
func (x *dwarfIndex) lookupMeta(addr uint64, inlines bool, out []Frame, meta *[]a2lMeta) ([]Frame, bool, error) {
	return x.lookupUnit(addr, 0, inlines, out, meta)
}

// lookupUnit is lookupMeta; in addr2line mode a unit other than 0 is the
// one binutils answers from (index + 1), -1 none (see a2lUnits).
func (x *dwarfIndex) lookupUnit(addr uint64, unit int32, inlines bool, out []Frame, meta *[]a2lMeta) ([]Frame, bool, error) {
	var cu *cuIndex
	forced := meta != nil && x.a2l && unit != 0
	switch {
	case forced && unit < 0:
		return out, false, nil
	case forced && int(unit) <= len(x.units):
		cu = x.units[unit-1]
	case meta != nil && x.a2l:
		cu = x.a2lUnitFor(addr)
	default:
		cu = x.unitFor(addr)
	}
	var file string
	var line, col, disc int
	hasLine := false
	if cu != nil {
		if !cu.lineOnce.done.Load() || !cu.funcsOnce.done.Load() {
			// The first goroutine to need the unit reads its function
			// tree (the longer job); one arriving meanwhile reads the
			// line table instead of waiting.
			x.tryBuildFuncs(cu)
			x.buildLines(cu)
		}
		file, line, col, disc, hasLine = cu.line(addr)
	}
	if !hasLine && !forced {
		if c2 := x.unitBySequence(addr); c2 != nil {
			cu = c2
			file, line, col, disc, hasLine = cu.line(addr)
		}
	}
	if cu == nil {
		return out, false, nil
	}
	if cu.lineErr != nil {
		return out, false, cu.lineErr
	}
	x.buildFuncs(cu)
	if cu.funcsErr != nil && !hasLine {
		return out, false, cu.funcsErr
	}
	if meta != nil && cu.a2l != nil {
		out, ok := x.a2lChain(cu, addr, inlines, out, meta, file, line, col, disc, hasLine)
		return out, ok, nil
	}
	var chain [16]int32
	path := cu.funcChain(addr, chain[:0])
	if len(path) == 0 {
		if !hasLine {
			return out, false, nil
		}
		return append(out, Frame{File: file, Line: line, Column: col, Discriminator: disc}), true, nil
	}
	root := &cu.nodes[path[0]]
	leaf := len(path) - 1
	f := Frame{Function: x.name(cu.nodes[path[leaf]].name), File: file, Line: line, Column: col, Discriminator: disc,
		Inlined: leaf > 0, FuncAddr: root.entry, HasFuncAddr: true}
	out = append(out, f)
	if !inlines {
		return out, true, nil
	}
	for k := leaf; k > 0; k-- {
		in := &cu.nodes[path[k]]
		out = append(out, Frame{Function: x.name(cu.nodes[path[k-1]].name), File: cu.file(in.callFile),
			Line: int(in.callLine), Column: int(in.callCol), Inlined: k-1 > 0,
			FuncAddr: root.entry, HasFuncAddr: true})
	}
	return out, true, nil
}

// unitBySequence finds the unit whose line table covers addr.
func (x *dwarfIndex) unitBySequence(addr uint64) *cuIndex {
	seqs := x.sequences()
	k := findSpan(seqs, addr)
	if k < 0 {
		return nil
	}
	return x.units[seqs[k].idx]
}

// sequences returns every unit's line sequences (idx: unit), built once.
func (x *dwarfIndex) sequences() []span {
	x.seqOnce.Do(func() {
		for i, cu := range x.units {
			x.buildLines(cu)
			for _, r := range cu.lineRanges() {
				if r[1] > r[0] {
					x.seqs = append(x.seqs, span{lo: r[0], hi: r[1], idx: int32(i)})
				}
			}
		}
		prepSpans(x.seqs)
	})
	return x.seqs
}

func (cu *cuIndex) file(i int32) string {
	if i < 0 || int(i) >= len(cu.files) {
		return ""
	}
	return cu.files[i]
}

// line finds the row covering addr: the last row at or below addr in its
// sequence, provided it is not the end of the sequence.
func (cu *cuIndex) line(addr uint64) (file string, line, col, disc int, ok bool) {
	rows := cu.rows
	if len(rows) == 0 || rows[0].addr > addr {
		return "", 0, 0, 0, false
	}
	i, n := 0, len(rows) // as in findSpan
	for n > 1 {
		half := n >> 1
		_, borrow := bits.Sub64(addr, rows[i+half].addr, 0)
		i += half &^ -int(borrow)
		n -= half
	}
	if rows[i].isEnd() {
		return "", 0, 0, 0, false
	}
	r := &rows[i]
	return cu.file(r.file), int(r.line), int(r.col), int(r.disc), true
}

func (cu *cuIndex) lineRanges() [][2]uint64 {
	var out [][2]uint64
	start := -1
	for i, r := range cu.rows {
		if start < 0 {
			start = i
		}
		if r.isEnd() {
			out = append(out, [2]uint64{cu.rows[start].addr, r.addr})
			start = -1
		}
	}
	return out
}

// funcChain returns node indices from the outermost function down to the
// innermost inlined subroutine containing addr.
func (cu *cuIndex) funcChain(addr uint64, chain []int32) []int32 {
	k := findSpan(cu.top, addr)
	if k < 0 {
		return chain
	}
	n := cu.top[k].idx
	for depth := 0; depth < 256; depth++ {
		chain = append(chain, n)
		nd := &cu.nodes[n]
		c := cu.kids[nd.kidLo:nd.kidHi]
		k := findSpan(c, addr)
		if k < 0 {
			break
		}
		n = c[k].idx
	}
	return chain
}

// buildOnce is a sync.Once that can also be tried: tryDo runs f unless
// it has run or is running, and returns at once in either case.
type buildOnce struct {
	mu   sync.Mutex
	done atomic.Bool
}

func (b *buildOnce) do(f func()) {
	if b.done.Load() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done.Load() {
		defer b.done.Store(true)
		f()
	}
}

func (b *buildOnce) tryDo(f func()) {
	if b.done.Load() || !b.mu.TryLock() {
		return
	}
	defer b.mu.Unlock()
	if !b.done.Load() {
		defer b.done.Store(true)
		f()
	}
}

// buildLines and buildFuncs run once per unit, independently (function
// nodes keep call_file numbers unchecked; cu.file checks them). The
// readers are bounds-checked and report errors, but a corrupt unit must
// cost its own addresses only, never the process, so a panic is turned
// into an error.
func (x *dwarfIndex) buildLines(cu *cuIndex) {
	cu.lineOnce.do(func() {
		defer func() {
			if p := recover(); p != nil {
				cu.rows, cu.files = nil, nil
				cu.lineErr = fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, p)
			}
		}()
		cu.lineErr = x.readLines(cu)
	})
}

func (x *dwarfIndex) buildFuncs(cu *cuIndex) {
	cu.funcsOnce.do(func() { x.funcsNow(cu) })
}

func (x *dwarfIndex) tryBuildFuncs(cu *cuIndex) {
	cu.funcsOnce.tryDo(func() { x.funcsNow(cu) })
}

func (x *dwarfIndex) funcsNow(cu *cuIndex) {
	defer func() {
		if p := recover(); p != nil {
			cu.nodes, cu.kids, cu.top, cu.a2l = nil, nil, nil, nil
			cu.funcsErr = fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, p)
		}
	}()
	cu.funcsErr = x.readFuncs(cu)
}

func (x *dwarfIndex) readLines(cu *cuIndex) error {
	if !cu.hasStmt {
		return nil
	}
	p, err := x.lineHeader(cu.stmtList, cu.addrSize, cu.compDir)
	if err != nil {
		return fmt.Errorf("line table of %q: %w", cu.name, err)
	}
	p.a2lFile0 = x.a2l && p.version >= 5
	sc := x.getScratch()
	defer x.putScratch(sc)
	if sc.rows == nil {
		// A row takes 10 to 20 bytes of program in optimised C++ (fewer
		// at -O0): size the first scratch so that one unit seldom grows it.
		sc.rows = make([]lineRow, 0, max(64, (len(p.r.b)-p.r.off)/10))
	}
	rows, err := p.decodeLines(sc.rows[:0])
	sc.rows = rows[:0]
	if err != nil {
		return fmt.Errorf("line table of %q: %w", cu.name, err)
	}
	cu.rows = exact(rows)
	cu.files = p.files
	if !x.a2l {
		// Frames for traces carry the path a Tracy client would send.
		for i, f := range cu.files {
			cu.files[i] = traceFile(f)
		}
	}
	return nil
}

// exact returns a copy of s with no spare capacity (nil when empty), for
// index arrays built in reused scratch space. Its types hold no pointers,
// so the copy is not zeroed first.
func exact[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	if size := uintptr(len(s)) * unsafe.Sizeof(s[0]); size >= hugeMin {
		// Advised before the copy first touches it (see sectionBuf).
		out := make([]T, len(s))
		adviseHuge(unsafe.Pointer(unsafe.SliceData(out)), size)
		copy(out, s)
		return out
	}
	return append([]T(nil), s...)
}

// buildScratch is the growable space a unit's index is built in before
// being copied out at its exact size: growing the final arrays by
// doubling cost more (copies and zeroing) than reading the DIEs. A
// dwarfIndex pools the scratch of finished builds for its next units; the
// pool lets the collector take it once no unit is being built.
type buildScratch struct {
	rows  []lineRow
	nodes []fnNode
	kids  []kidSpan
	rs    []addrRange
	a2lrs []addrRange
	stack []int32
	start []int32
	// names caches the names of abstract origins and specifications by
	// DIE offset (+1, so 0 is empty), direct-mapped: an inlined function
	// is met once per call site, and a probe costs far less than reading
	// its DIE chain again or a map.
	names *offCache[nameRef]
	links *offCache[bool] // addr2line mode: is_linkage by DIE offset
}

const nameCacheBits = 12
const nameCacheSize = 1 << nameCacheBits

// offCache is a direct-mapped cache of a value per DIE offset.
type offCache[V any] [nameCacheSize]struct {
	off uint64 // the DIE offset + 1; 0: empty
	v   V
}

// get returns the value cached for off, or computes it with f and keeps
// it; *c is allocated on first use.
func getOff[V any](c **offCache[V], off uint64, f func() V) V {
	if *c == nil {
		*c = new(offCache[V])
	}
	e := &(*c)[(off*0x9e3779b97f4a7c15)>>(64-nameCacheBits)]
	if e.off == off+1 {
		return e.v
	}
	v := f()
	e.off, e.v = off+1, v
	return v
}

// kidSpan is a function range waiting to be grouped under its parent
// (-1: the unit's top level).
type kidSpan struct {
	lo, hi uint64
	parent int32
	idx    int32
}

func (x *dwarfIndex) getScratch() *buildScratch {
	if sc, ok := x.scratch.Get().(*buildScratch); ok {
		return sc
	}
	return &buildScratch{}
}

func (x *dwarfIndex) putScratch(sc *buildScratch) { x.scratch.Put(sc) }

// Tags whose children may hold code-bearing subprograms. Class, structure
// and union bodies hold only declarations: GCC and Clang emit member
// function definitions at namespace or unit level (with
// DW_AT_specification), so those bodies are skipped, through their
// DW_AT_sibling when present, which is most of a C++ unit's DIEs. The
// exception, a class local to a function whose member functions GCC
// defines inside the class body, is handled in readFuncs.
func descends(t uint32) bool {
	switch t {
	case tagSubprogram, tagInlinedSubroutine, tagLexicalBlock, tagNamespace,
		tagModule, tagTryBlock, tagCatchBlock, tagCompileUnit, tagPartialUnit:
		return true
	}
	return false
}

// maxDepth bounds the DIE nesting a walk follows; real code nests a few
// dozen levels.
const maxDepth = 1 << 12

func (x *dwarfIndex) readFuncs(cu *cuIndex) error {
	r := rd{b: x.s.info[:cu.end], off: int(cu.die), big: x.s.big}
	bad := func() error {
		return fmt.Errorf("%w: unit %q at %#x: bad DIE near %#x", ErrMalformed, cu.name, cu.off, r.off)
	}
	top := cu.ab.get(r.uleb())
	if r.bad || top == nil {
		return bad()
	}
	cu.skipAttrs(&r, top)
	if !top.children {
		return nil
	}
	sc := x.getScratch()
	defer x.putScratch(sc)
	if sc.nodes == nil {
		// C++ units hold a function range per 100 to 200 bytes of DIEs.
		est := min(max(64, int(cu.end-cu.die)/96), 1<<20)
		sc.nodes = make([]fnNode, 0, est)
		sc.kids = make([]kidSpan, 0, est)
	}
	nodes, kids, rs := sc.nodes[:0], sc.kids[:0], sc.rs[:0]
	var a2 *a2lUnit
	if x.a2l {
		est := min(max(64, int(cu.end-cu.die)/96), 1<<20)
		a2 = &a2lUnit{spans: make([]a2lSpan, 0, est), nodes: make([]a2lNode, 0, est)}
	}
	stack := append(sc.stack[:0], -1)
	defer func() {
		sc.nodes, sc.kids, sc.rs, sc.stack = nodes[:0], kids[:0], rs[:0], stack[:0]
	}()
	for len(stack) > 0 {
		if r.off >= len(r.b) {
			break
		}
		code := r.uleb()
		if r.bad {
			return bad()
		}
		if code == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		a := cu.ab.get(code)
		if a == nil {
			return bad()
		}
		parent := stack[len(stack)-1]
		cur := parent
		inAbs := parent == inAbstract
		if inAbs {
			parent = -1
		}
		switch {
		case a.tag == tagSubprogram || a.tag == tagInlinedSubroutine:
			var d dieAttrs
			cu.readAttrs(&r, a, &d)
			if r.bad {
				return bad()
			}
			rs = x.entryRanges(cu, &d, rs[:0])
			if len(rs) > 0 {
				n := fnNode{inlined: a.tag == tagInlinedSubroutine, entry: rs[0].lo}
				for _, rg := range rs {
					n.entry = min(n.entry, rg.lo)
				}
				if lp, ok := x.address(cu, d.lowpc, d.lowKind); ok {
					n.entry = lp
				}
				n.name = x.funcName(cu, &d, sc)
				if n.inlined {
					n.callFile = -1
					if d.hasCallFile && d.callFile <= math.MaxInt32 {
						n.callFile = int32(d.callFile)
					}
					n.callLine = int32(d.callLine)
					n.callCol = int32(d.callCol)
				}
				idx := int32(len(nodes))
				nodes = append(nodes, n)
				if a2 != nil {
					ars := rs
					if _, low := x.address(cu, d.lowpc, d.lowKind); !low && d.rangesKind == vRnglx {
						// binutils 2.40 gets no ranges from a function's
						// DW_FORM_rnglistx DW_AT_ranges (Clang's DWARF 5
						// inlined subroutines): its addresses fall to the
						// enclosing function.
						ars = nil
					}
					x.a2lAdd(cu, a2, &d, ars, idx, parent, n.inlined, sc)
				}
				// A subprogram nested in a function (a local class's member
				// function, a GNU C nested function) is a function of its
				// own, found from the top, not from its enclosing one.
				kp := parent
				if !n.inlined {
					kp = -1
				}
				for _, rg := range rs {
					kids = append(kids, kidSpan{rg.lo, rg.hi, kp, idx})
				}
				cur = idx
			} else if parent < 0 {
				if a2 != nil && a.children && a.tag == tagSubprogram {
					// binutils scans every DIE: a local class's member
					// functions may be defined inside the enclosing
					// function's abstract instance, and are functions of
					// their own for it.
					stack = append(stack, inAbstract)
					continue
				}
				// A declaration or abstract instance: nothing with code
				// below it that we would attribute correctly.
				if a.children {
					x.skipChildren(cu, &r, &d)
				}
				continue
			}
			if a.children {
				stack = append(stack, cur)
			}
		case !a.children:
			cu.skipAttrs(&r, a)
		case descends(a.tag) || (parent >= 0 || inAbs) && (a.tag == tagClassType || a.tag == tagStructureType || a.tag == tagUnionType):
			// Inside a function, a class body may hold the definitions
			// of a local class's member functions (GCC), as binutils
			// and libbacktrace find them.
			cu.skipAttrs(&r, a)
			stack = append(stack, cur)
		default:
			var d dieAttrs
			cu.readAttrs(&r, a, &d)
			x.skipChildren(cu, &r, &d)
		}
		if r.bad {
			return bad()
		}
		if len(stack) > maxDepth {
			return fmt.Errorf("%w: unit %q: DIEs nested too deep", ErrMalformed, cu.name)
		}
	}
	// Group children under their parents (a counting sort keeps each
	// group in DIE order), then sort each group by address.
	start := slices.Grow(sc.start[:0], 2*(len(nodes)+2))[:2*(len(nodes)+2)]
	sc.start = start[:0]
	clear(start)
	start, fill := start[:len(nodes)+2], start[len(nodes)+2:]
	for _, k := range kids {
		start[k.parent+2]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	copy(fill, start)
	all := make([]span, len(kids))
	for _, k := range kids {
		all[fill[k.parent+1]] = span{lo: k.lo, hi: k.hi, idx: k.idx}
		fill[k.parent+1]++
	}
	cu.top = all[:start[1]:start[1]]
	prepSpans(cu.top)
	cu.kids = all
	cu.nodes = exact(nodes)
	for i := range cu.nodes {
		lo, hi := start[i+1], start[i+2]
		cu.nodes[i].kidLo, cu.nodes[i].kidHi = lo, hi
		prepSpans(all[lo:hi])
	}
	if a2 != nil {
		cu.a2l = a2.finish()
	}
	return nil
}

// skipChildren moves past the children of the DIE just read, through its
// DW_AT_sibling when that points forward inside the unit, else by walking.
func (x *dwarfIndex) skipChildren(cu *cuIndex, r *rd, d *dieAttrs) {
	if d.hasSibling && d.sibling > uint64(r.off) && d.sibling <= uint64(len(r.b)) {
		r.off = int(d.sibling)
		return
	}
	depth := 1
	for depth > 0 && r.off < len(r.b) && !r.bad {
		code := r.uleb()
		if code == 0 {
			depth--
			continue
		}
		a := cu.ab.get(code)
		if a == nil {
			r.bad = true
			return
		}
		cu.skipAttrs(r, a)
		if a.children {
			depth++
		}
	}
}

// entryRanges returns a function DIE's address ranges, as debug/dwarf's
// Val and Ranges would give them.
func (x *dwarfIndex) entryRanges(cu *cuIndex, d *dieAttrs, out []addrRange) []addrRange {
	if lo, ok := x.address(cu, d.lowpc, d.lowKind); ok {
		switch d.highKind {
		case vAddr, vAddrx:
			if hv, ok := x.address(cu, d.highpc, d.highKind); ok {
				if hv > lo {
					return append(out, addrRange{lo, hv, 0})
				}
				return out
			}
		case vConst, vSConst:
			if int64(d.highpc) > 0 {
				return append(out, addrRange{lo, lo + d.highpc, 0})
			}
			return out
		}
	}
	if d.rangesKind == vNone {
		return out
	}
	start := len(out)
	out = x.rangeList(cu, d.ranges, d.rangesKind, out)
	k := start
	for _, rg := range out[start:] {
		if rg.hi > rg.lo {
			out[k] = rg
			k++
		}
	}
	return out[:k]
}

// nameOf returns the raw (possibly mangled) name of a function DIE: the
// linkage name when there is one (addr2line prints it, demangled with -C),
// else DW_AT_name, else the name of the abstract origin or specification.
func (x *dwarfIndex) nameOf(cu *cuIndex, d *dieAttrs, depth int) nameRef {
	if s := x.strRef(cu, d.linkage, d.linkageKind); s != 0 {
		return s
	}
	if s := x.strRef(cu, d.name, d.nameKind); s != 0 {
		return s
	}
	if depth > 8 {
		return 0
	}
	if d.hasOrigin {
		return x.nameAt(cu, d.origin, depth+1)
	}
	if d.hasSpec {
		return x.nameAt(cu, d.spec, depth+1)
	}
	return 0
}

// funcName is nameOf for readFuncs, with the names it follows to other
// DIEs cached in sc.
func (x *dwarfIndex) funcName(cu *cuIndex, d *dieAttrs, sc *buildScratch) nameRef {
	if s := x.strRef(cu, d.linkage, d.linkageKind); s != 0 {
		return s
	}
	if s := x.strRef(cu, d.name, d.nameKind); s != 0 {
		return s
	}
	var off uint64
	switch {
	case d.hasOrigin:
		off = d.origin
	case d.hasSpec:
		off = d.spec
	default:
		return 0
	}
	return getOff(&sc.names, off, func() nameRef { return x.nameAt(cu, off, 1) })
}

// unitAt returns the unit containing .debug_info offset off; hint, the
// unit being read, is where almost every reference points.
func (x *dwarfIndex) unitAt(off uint64, hint *cuIndex) *cuIndex {
	if hint != nil && off >= hint.die && off < hint.end {
		return hint
	}
	i := sort.Search(len(x.units), func(i int) bool { return x.units[i].off > off }) - 1
	if i < 0 || off >= x.units[i].end || off < x.units[i].die {
		return nil
	}
	return x.units[i]
}

// nameAt reads the name of the DIE at off. It is not cached: reading a
// DIE's few attributes costs less than a map insertion and lookup, and
// C++ units have as many origins as functions.
func (x *dwarfIndex) nameAt(hint *cuIndex, off uint64, depth int) nameRef {
	u := x.unitAt(off, hint)
	if u == nil {
		return 0
	}
	r := rd{b: x.s.info[:u.end], off: int(off), big: x.s.big}
	a := u.ab.get(r.uleb())
	if a == nil || r.bad {
		return 0
	}
	var d dieAttrs
	u.readAttrs(&r, a, &d)
	if r.bad {
		return 0
	}
	return x.nameOf(u, &d, depth)
}
