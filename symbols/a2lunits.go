package symbols

import (
	"slices"
	"sync"
)

// a2lUnits replays how binutils 2.40's _bfd_dwarf2_find_nearest_line
// finds the unit that answers an address, state and all, because with
// units that carry no range binutils can use (Clang's DWARF 5
// DW_FORM_rnglistx unit ranges, which 2.40 does not read; every unit of
// a Clang -flto build) whole units become unreachable to it:
//
//   - A query first tries, in insertion order, the units of the address
//     trie holding addr: unit ranges enter it when a unit is parsed
//     (stash_comp_unit), line sequences when its line table is decoded.
//   - It then scans all_comp_units_without_ranges, which 2.40 never fills
//     (stash_comp_unit stores each->next_unit_without_ranges as the new
//     head, the old head, so the list stays empty).
//   - Then it parses further units in .debug_info order, trying each one
//     without ranges or whose ranges hold addr, until one answers.
//   - Trying a unit decodes its line table and scans its DIEs
//     (comp_unit_maybe_decode_line_info). The scan follows every abstract
//     origin and specification; one in a unit not parsed yet parses units
//     up to it (find_abstract_instance's stash_comp_unit loop), and those
//     are never tried by the loop above. A referenced DIE with
//     DW_AT_decl_file decodes (and scans) its unit, which puts its line
//     sequences in the trie; a unit parsed in passing that no such
//     reference reaches stays out of the trie, and addr2line answers its
//     addresses from the symbol table alone.
//   - A unit whose scan fails (a function's origin in a unit that failed,
//     found through DW_AT_decl_file) answers nothing, ever.
//
// The state depends on query order, so an Addr2line session asks in input
// order before the batch is resolved in parallel.
type a2lUnits struct {
	x    *dwarfIndex
	mu   sync.Mutex
	next int  // units parsed so far
	dead bool // a unit failed to parse: binutils reads no more
	st   []a2lUnitState
	cu   []span // binutils' own unit ranges (idx: unit), sorted
	// clock orders trie insertions.
	clock int32
	cands []a2lCand
	tried []int32
	// memo holds abstract's answer per DIE offset. Repeating a lookup has
	// no further effect (units parsed and decoded stay so); its answer
	// changes only when a unit fails, which bumps epoch.
	memo  map[uint64]a2lMemo
	epoch int32
}

type a2lMemo struct {
	epoch int32
	ok    bool
}

type a2lUnitState struct {
	parsed, decoded, bad bool
	parseT, decT         int32
	noRanges             bool // arange.high == 0 when parsed
	parseFails           bool // parse_comp_unit fails (a unit range list 2.40 cannot read)
}

type a2lRef struct {
	off  uint64
	fail bool // a function's reference: failing fails the scan (a variable's only warns)
}

type a2lCand struct {
	t     int32
	unit  int32
	inSeq bool // one of the unit's line sequences holds the address
}

// a2lUnitsFor returns the index's unit replay, built on first use.
func (x *dwarfIndex) a2lUnitsFor() *a2lUnits {
	x.a2lOnce.Do(func() {
		s := &a2lUnits{x: x, st: make([]a2lUnitState, len(x.units)), memo: map[uint64]a2lMemo{}}
		for i, cu := range x.units {
			rs, fails := x.a2lUnitRanges(cu)
			s.st[i].parseFails = fails
			n := 0
			for _, r := range rs {
				if r.hi > r.lo {
					s.cu = append(s.cu, span{lo: r.lo, hi: r.hi, idx: int32(i)})
					n++
				}
			}
			s.st[i].noRanges = n == 0
		}
		prepSpans(s.cu)
		x.a2lSim = s
	})
	return x.a2lSim
}

// a2lUnitRanges is the unit's arange as parse_comp_unit builds it:
// low_pc/high_pc, and DW_AT_ranges only in an integer form (2.40 skips
// DW_FORM_rnglistx). fails: read_rangelist fails on the list (a DWARF 5
// list with .debug_addr entries), and so does parse_comp_unit.
func (x *dwarfIndex) a2lUnitRanges(cu *cuIndex) (rs []addrRange, fails bool) {
	r := rd{b: x.s.info[:cu.end], off: int(cu.die), big: x.s.big}
	a := cu.ab.get(r.uleb())
	if a == nil || r.bad {
		return nil, false
	}
	var d dieAttrs
	cu.readAttrs(&r, a, &d)
	if r.bad {
		return nil, false
	}
	var lo uint64
	if v, ok := x.address(cu, d.lowpc, d.lowKind); ok {
		lo = v
	}
	if hi, ok := x.highPC(cu, lo, &d); ok && hi != 0 {
		rs = append(rs, addrRange{lo, hi, 0})
	}
	if d.rangesKind == vSecOff || d.rangesKind == vConst {
		if cu.version >= 5 {
			var ok bool
			if rs, ok = x.a2lRnglists(cu, d.ranges, rs); !ok {
				return nil, true
			}
		} else {
			rs = x.rangeList(cu, d.ranges, d.rangesKind, rs)
		}
	}
	return rs, false
}

// a2lRnglists is 2.40's read_rnglists: the entries without .debug_addr
// indexes only; any other entry, or running off the section, fails.
func (x *dwarfIndex) a2lRnglists(cu *cuIndex, off uint64, rs []addrRange) ([]addrRange, bool) {
	if off >= uint64(len(x.s.rnglists)) {
		return rs, false
	}
	r := rd{b: x.s.rnglists, off: int(off), big: x.s.big}
	base := cu.base
	for n := 0; n < 1<<24 && !r.bad; n++ {
		switch r.u8() {
		case 0:
			return rs, !r.bad
		case 5: // base_address
			base = r.sized(cu.addrSize)
		case 7: // start_length
			lo := r.sized(cu.addrSize)
			rs = append(rs, addrRange{lo, lo + r.uleb(), 0})
		case 4: // offset_pair
			lo, hi := r.uleb(), r.uleb()
			rs = append(rs, addrRange{base + lo, base + hi, 0})
		case 6: // start_end
			lo := r.sized(cu.addrSize)
			rs = append(rs, addrRange{lo, r.sized(cu.addrSize), 0})
		default:
			return rs, false
		}
	}
	return rs, false
}

// choose returns the unit binutils answers addr from (its index), or -1
// when it finds none and answers from the symbol table.
func (s *a2lUnits) choose(addr uint64) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tried = s.tried[:0]
	for {
		c := s.nextCandidate(addr)
		if c.unit < 0 {
			break
		}
		u := c.unit
		s.tried = append(s.tried, u)
		// A decoded unit with a sequence holding addr has a line there:
		// no need to look it up.
		if c.inSeq && !s.st[u].bad {
			return u
		}
		if s.answers(int(u), addr) {
			return u
		}
	}
	for {
		u := s.parse()
		if u < 0 {
			return -1
		}
		if (s.st[u].noRanges || s.cuHolds(u, addr)) && s.answers(u, addr) {
			return int32(u)
		}
	}
}

// nextCandidate is the next trie entry holding addr whose unit was not
// tried in this query: units ordered by their first insertion holding it.
func (s *a2lUnits) nextCandidate(addr uint64) a2lCand {
	s.cands = s.cands[:0]
	add := func(rs []span, kind int) {
		k := findLast(rs, addr)
		if k < 0 {
			return
		}
		for j := k; j >= 0 && j >= k-int(rs[k].back); j-- {
			if addr < rs[j].lo || addr >= rs[j].hi {
				continue
			}
			u := rs[j].idx
			st := &s.st[u]
			switch {
			case kind == 0 && st.parsed:
				s.cands = append(s.cands, a2lCand{st.parseT, u, false})
			case kind == 1 && st.decoded:
				s.cands = append(s.cands, a2lCand{st.decT, u, true})
			}
		}
	}
	add(s.cu, 0)
	add(s.x.sequences(), 1)
	best := a2lCand{t: -1, unit: -1}
	for _, c := range s.cands {
		if !slices.Contains(s.tried, c.unit) && (best.unit < 0 || c.t < best.t) {
			best = c
		}
	}
	for _, c := range s.cands {
		if c.unit == best.unit && c.inSeq {
			best.inSeq = true
		}
	}
	return best
}

// findLast is the index of the last span starting at or below addr, or -1.
func findLast(rs []span, addr uint64) int {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].lo <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

func (s *a2lUnits) cuHolds(u int, addr uint64) bool {
	for i := range s.cu {
		if int(s.cu[i].idx) == u && addr >= s.cu[i].lo && addr < s.cu[i].hi {
			return true
		}
	}
	return false
}

// parse is stash_comp_unit: the next unit in .debug_info order, or -1.
func (s *a2lUnits) parse() int {
	if s.dead || s.next >= len(s.st) {
		return -1
	}
	u := s.next
	s.next++
	if s.st[u].parseFails {
		s.dead = true
		return -1
	}
	s.st[u].parsed, s.st[u].parseT = true, s.clock
	s.clock++
	return u
}

// answers is comp_unit_find_nearest_line: a line or a function at addr.
func (s *a2lUnits) answers(u int, addr uint64) bool {
	if !s.decode(u) {
		return false
	}
	cu := s.x.units[u]
	if _, _, _, _, ok := cu.line(addr); ok {
		return true
	}
	return cu.a2l != nil && cu.a2l.find(addr) >= 0
}

// decode is comp_unit_maybe_decode_line_info: the line table, then the
// DIE scan, once; false once the unit has failed.
func (s *a2lUnits) decode(u int) bool {
	st := &s.st[u]
	if st.bad {
		return false
	}
	if st.decoded {
		return true
	}
	cu := s.x.units[u]
	st.decoded, st.decT = true, s.clock
	s.clock++
	if !cu.hasStmt {
		s.fail(u)
		return false
	}
	s.x.buildLines(cu)
	s.x.buildFuncs(cu)
	if cu.lineErr != nil {
		s.fail(u)
		return false
	}
	for _, r := range s.x.a2lScanRefs(cu) {
		if !s.abstract(u, r.off, 0) && r.fail {
			s.fail(u)
			return false
		}
	}
	return true
}

func (s *a2lUnits) fail(u int) {
	s.st[u].bad = true
	s.epoch++
}

// abstract is find_abstract_instance for the DIE at off referenced from
// unit u: it finds (parsing if need be) the unit holding off, follows a
// DW_AT_specification and decodes the unit for a DW_AT_decl_file.
func (s *a2lUnits) abstract(u int, off uint64, depth int) bool {
	if m, ok := s.memo[off]; ok && m.epoch == s.epoch {
		return m.ok
	}
	ok := s.abstractDIE(u, off, depth)
	s.memo[off] = a2lMemo{s.epoch, ok}
	return ok
}

func (s *a2lUnits) abstractDIE(u int, off uint64, depth int) bool {
	if depth >= 100 {
		return false
	}
	t := -1
	if cu := s.x.units[u]; off >= cu.die && off < cu.end {
		t = u
	} else if i := s.x.unitIndexAt(off); i >= 0 && s.st[i].parsed {
		t = i
	} else {
		for {
			p := s.parse()
			if p < 0 {
				return false
			}
			if cu := s.x.units[p]; off >= cu.off && off < cu.end {
				t = p
				break
			}
		}
	}
	cu := s.x.units[t]
	r := rd{b: s.x.s.info[:cu.end], off: int(off), big: s.x.s.big}
	code := r.uleb()
	a := cu.ab.get(code)
	if r.bad || a == nil {
		return !r.bad && code == 0 // a null entry has no attributes
	}
	for i := range a.attrs {
		at := &a.attrs[i]
		v, k := cu.readForm(&r, at.form, at.ic)
		if r.bad {
			return true
		}
		switch at.attr {
		case atSpecification:
			if k == vRef && !s.abstract(t, v, depth+1) {
				return false
			}
		case atDeclFile:
			if !s.decode(t) {
				return false
			}
		}
	}
	return true
}

// unitIndexAt is the index of the unit holding .debug_info offset off, or -1.
func (x *dwarfIndex) unitIndexAt(off uint64) int {
	lo, hi := 0, len(x.units)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.units[m].off <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if i := lo - 1; i >= 0 && off < x.units[i].end {
		return i
	}
	return -1
}

// a2lScanRefs lists, in DIE order, the references scan_unit_for_symbols
// follows: abstract origins and specifications of subprograms, entry
// points and inlined subroutines, specifications of variables and members.
func (x *dwarfIndex) a2lScanRefs(cu *cuIndex) []a2lRef {
	r := rd{b: x.s.info[:cu.end], off: int(cu.die), big: x.s.big}
	if a := cu.ab.get(r.uleb()); a == nil || r.bad {
		return nil
	} else {
		var d dieAttrs
		cu.readAttrs(&r, a, &d)
	}
	var out []a2lRef
	for r.off < len(r.b) && !r.bad {
		code := r.uleb()
		if code == 0 {
			continue
		}
		a := cu.ab.get(code)
		if a == nil || r.bad {
			break
		}
		var d dieAttrs
		cu.readAttrs(&r, a, &d)
		switch a.tag {
		case tagSubprogram, tagInlinedSubroutine, tagEntryPoint:
			if d.hasOrigin {
				out = append(out, a2lRef{d.origin, true})
			}
			if d.hasSpec {
				out = append(out, a2lRef{d.spec, true})
			}
		case tagVariable, tagMember:
			if d.hasSpec {
				out = append(out, a2lRef{d.spec, false})
			}
		}
	}
	return out
}
