package symbols

// This file keeps the original debug/dwarf-based index as a differential
// oracle: the production index (dwarf.go, dwarfread.go, dwarfline.go)
// must give the same frames for every address of every test binary.

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
)

// stdIndex answers address queries from DWARF 4/5 data. Only the unit
// headers are read when the file is opened; a unit's line table and function
// tree are built the first time an address inside it is asked for (most
// profiles touch a small part of a large binary), then looked up by binary
// search. Everything built is immutable afterwards, so lookups need no lock
// except the per-unit sync.Once.
type stdIndex struct {
	d      *dwarf.Data
	units  []*stdCU
	ranges []addrRange // unit ranges sorted by lo

	nameMu sync.Mutex
	names  map[dwarf.Offset]string // abstract-origin / specification name cache

	// seqs indexes every line-table sequence of every unit. Unit ranges
	// cover functions only, but line sequences also cover the padding
	// between them, which binutils resolves; built on the first address no
	// unit range answers.
	seqOnce sync.Once
	seqs    []addrRange
}

type stdCU struct {
	entry     *dwarf.Entry
	lineOnce  sync.Once
	lineErr   error
	funcsOnce sync.Once
	funcsErr  error
	name      string

	rows    []stdRow
	files   []string
	fileMap []int32 // unit file number -> index in files
	nodes   []stdNode
	top     []addrRange // ranges of outermost functions, sorted by lo
}

// stdRow is one line-table row; end marks an end_sequence row whose address
// is one past the sequence.
type stdRow struct {
	addr uint64
	file int32
	line int32
	col  int32
	disc int32
	end  bool
}

// stdNode is a subprogram or inlined subroutine with code.
type stdNode struct {
	name     string
	ranges   []addrRange
	children []addrRange // ranges of the children, sorted by lo; idx = child node
	callFile int32       // for inlined subroutines: where the call was
	callLine int32
	callCol  int32
	inlined  bool
	entry    uint64 // lowest address (entry for real functions)
}

func newStdIndex(d *dwarf.Data) (*stdIndex, error) {
	x := &stdIndex{d: d, names: map[dwarf.Offset]string{}}
	r := d.Reader()
	nulls := 0
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%w: reading unit headers: %v", ErrMalformed, err)
		}
		if e == nil {
			break
		}
		// debug/dwarf can return null entries forever without advancing on
		// some corrupt units; real files have a handful between units.
		if e.Tag == 0 {
			if nulls++; nulls > 1024 {
				return nil, fmt.Errorf("%w: unit headers: endless null entries", ErrMalformed)
			}
			continue
		}
		nulls = 0
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			cu := &stdCU{entry: e}
			cu.name, _ = e.Val(dwarf.AttrName).(string)
			ui := int32(len(x.units))
			x.units = append(x.units, cu)
			rs, err := d.Ranges(e)
			if err != nil || len(rs) == 0 {
				// No unit ranges (some assemblers, some LTO units): fall
				// back to the ranges covered by the unit's line table.
				cu.buildLines(x)
				rs = cu.lineRanges()
			}
			for _, rg := range rs {
				if rg[1] > rg[0] {
					x.ranges = append(x.ranges, addrRange{rg[0], rg[1], ui})
				}
			}
		}
		r.SkipChildren()
	}
	sort.SliceStable(x.ranges, func(i, j int) bool { return x.ranges[i].lo < x.ranges[j].lo })
	return x, nil
}

// unitsFor returns units whose ranges contain addr, best (smallest) first.
func (x *stdIndex) unitFor(addr uint64) *stdCU {
	k := findRange(x.ranges, addr)
	if k < 0 {
		return nil
	}
	return x.units[x.ranges[k].idx]
}

// lookup appends the frames for addr to out. ok reports whether anything
// (a line or a function) was found.
func (x *stdIndex) lookup(addr uint64, inlines bool, out []Frame) ([]Frame, bool, error) {
	cu := x.unitFor(addr)
	var file string
	var line, col, disc int
	hasLine := false
	if cu != nil {
		cu.buildLines(x)
		file, line, col, disc, hasLine = cu.line(addr)
	}
	if !hasLine {
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
	cu.buildFuncs(x)
	if cu.funcsErr != nil && !hasLine {
		return out, false, cu.funcsErr
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
	f := Frame{Function: cu.nodes[path[leaf]].name, File: file, Line: line, Column: col, Discriminator: disc,
		Inlined: leaf > 0, FuncAddr: root.entry, HasFuncAddr: true}
	out = append(out, f)
	if !inlines {
		return out, true, nil
	}
	for k := leaf; k > 0; k-- {
		in := &cu.nodes[path[k]]
		out = append(out, Frame{Function: cu.nodes[path[k-1]].name, File: cu.file(in.callFile),
			Line: int(in.callLine), Column: int(in.callCol), Inlined: k-1 > 0,
			FuncAddr: root.entry, HasFuncAddr: true})
	}
	return out, true, nil
}

// unitBySequence finds the unit whose line table covers addr.
func (x *stdIndex) unitBySequence(addr uint64) *stdCU {
	x.seqOnce.Do(func() {
		for i, cu := range x.units {
			cu.buildLines(x)
			for _, r := range cu.lineRanges() {
				if r[1] > r[0] {
					x.seqs = append(x.seqs, addrRange{r[0], r[1], int32(i)})
				}
			}
		}
		sort.SliceStable(x.seqs, func(i, j int) bool { return x.seqs[i].lo < x.seqs[j].lo })
	})
	k := findRange(x.seqs, addr)
	if k < 0 {
		return nil
	}
	return x.units[x.seqs[k].idx]
}

func (cu *stdCU) file(i int32) string {
	if i < 0 || int(i) >= len(cu.files) {
		return ""
	}
	return cu.files[i]
}

// line finds the row covering addr: the last row at or below addr in its
// sequence, provided it is not the end of the sequence.
func (cu *stdCU) line(addr uint64) (file string, line, col, disc int, ok bool) {
	rows := cu.rows
	i := sort.Search(len(rows), func(i int) bool { return rows[i].addr > addr }) - 1
	if i < 0 || rows[i].end {
		return "", 0, 0, 0, false
	}
	r := rows[i]
	return cu.file(r.file), int(r.line), int(r.col), int(r.disc), true
}

func (cu *stdCU) lineRanges() [][2]uint64 {
	var out [][2]uint64
	start := -1
	for i, r := range cu.rows {
		if start < 0 {
			start = i
		}
		if r.end {
			out = append(out, [2]uint64{cu.rows[start].addr, r.addr})
			start = -1
		}
	}
	return out
}

// funcChain returns node indices from the outermost function down to the
// innermost inlined subroutine containing addr.
func (cu *stdCU) funcChain(addr uint64, chain []int32) []int32 {
	k := findRange(cu.top, addr)
	if k < 0 {
		return chain
	}
	n := cu.top[k].idx
	for depth := 0; depth < 256; depth++ {
		chain = append(chain, n)
		c := cu.nodes[n].children
		k := findRange(c, addr)
		if k < 0 {
			break
		}
		n = c[k].idx
	}
	return chain
}

// buildLines and buildFuncs run once per unit; debug/dwarf has had panics on
// hostile input, so a corrupt unit costs its own addresses, not the process.
func (cu *stdCU) buildLines(x *stdIndex) {
	cu.lineOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				cu.lineErr = fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, p)
			}
		}()
		cu.lineErr = cu.readLines(x.d)
	})
}

func (cu *stdCU) buildFuncs(x *stdIndex) {
	cu.buildLines(x) // call_file numbers need the file table
	cu.funcsOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				cu.funcsErr = fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, p)
			}
		}()
		cu.funcsErr = cu.readFuncs(x)
	})
}

func (cu *stdCU) readLines(d *dwarf.Data) error {
	lr, err := d.LineReader(cu.entry)
	if err != nil {
		return fmt.Errorf("%w: line table of %q: %v", ErrMalformed, cu.name, err)
	}
	if lr == nil {
		return nil
	}
	fileIdx := map[*dwarf.LineFile]int32{}
	var seqs [][]stdRow
	var seq []stdRow
	var le dwarf.LineEntry
	for {
		if err := lr.Next(&le); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("%w: line table of %q: %v", ErrMalformed, cu.name, err)
		}
		fi := int32(-1)
		if le.File != nil {
			var ok bool
			if fi, ok = fileIdx[le.File]; !ok {
				fi = int32(len(cu.files))
				fileIdx[le.File] = fi
				cu.files = append(cu.files, le.File.Name)
			}
		}
		row := stdRow{addr: le.Address, file: fi, line: int32(le.Line), col: int32(le.Column), disc: int32(le.Discriminator), end: le.EndSequence}
		// Several rows at one address: the last one wins (as in binutils).
		if n := len(seq); n > 0 && seq[n-1].addr == row.addr && !row.end {
			seq[n-1] = row
		} else {
			seq = append(seq, row)
		}
		if le.EndSequence {
			seqs = append(seqs, seq)
			seq = nil
		}
	}
	sort.SliceStable(seqs, func(i, j int) bool { return seqs[i][0].addr < seqs[j][0].addr })
	n := 0
	for _, s := range seqs {
		n += len(s)
	}
	cu.rows = make([]stdRow, 0, n)
	for _, s := range seqs {
		cu.rows = append(cu.rows, s...)
	}
	// Line-table file indices for DW_AT_call_file: index = file number as
	// the unit numbers them (DWARF 4 is 1-based with entry 0 unused, DWARF 5
	// is 0-based; debug/dwarf's Files() mirrors that numbering).
	cu.callFiles(lr, fileIdx)
	return nil
}

// callFiles maps the unit's file numbering onto cu.files; callFile values
// in nodes are stored already translated.
func (cu *stdCU) callFiles(lr *dwarf.LineReader, fileIdx map[*dwarf.LineFile]int32) {
	fs := lr.Files()
	cu.fileMap = make([]int32, len(fs))
	for i, f := range fs {
		if f == nil {
			cu.fileMap[i] = -1
			continue
		}
		fi, ok := fileIdx[f]
		if !ok {
			fi = int32(len(cu.files))
			fileIdx[f] = fi
			cu.files = append(cu.files, f.Name)
		}
		cu.fileMap[i] = fi
	}
}

// Tags whose children may hold code-bearing subprograms. Class, structure
// and union bodies hold only declarations: GCC and Clang emit member
// function definitions at namespace or unit level (with
// DW_AT_specification), so those bodies are skipped, through their
// DW_AT_sibling when present, which is most of a C++ unit's DIEs.
func stdDescends(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine, dwarf.TagLexDwarfBlock, dwarf.TagNamespace,
		dwarf.TagModule, dwarf.TagTryDwarfBlock, dwarf.TagCatchDwarfBlock, dwarf.TagCompileUnit, dwarf.TagPartialUnit:
		return true
	}
	return false
}

func (cu *stdCU) readFuncs(x *stdIndex) error {
	r := x.d.Reader()
	r.Seek(cu.entry.Offset)
	top, err := r.Next()
	if err != nil || top == nil {
		return fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, err)
	}
	if !top.Children {
		return nil
	}
	// stack holds, per open DIE with children, the enclosing function node
	// (-1 outside any function).
	stack := []int32{-1}
	for len(stack) > 0 {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("%w: unit %q: %v", ErrMalformed, cu.name, err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		parent := stack[len(stack)-1]
		cur := parent
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine {
			rs := x.entryRanges(e)
			if len(rs) > 0 {
				n := stdNode{inlined: e.Tag == dwarf.TagInlinedSubroutine, ranges: rs, entry: rs[0].lo}
				for _, r := range rs {
					n.entry = min(n.entry, r.lo)
				}
				if lp, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
					n.entry = lp
				}
				n.name = x.nameOf(e, 0)
				if n.inlined {
					if v, ok := e.Val(dwarf.AttrCallFile).(int64); ok && v >= 0 && int(v) < len(cu.fileMap) {
						n.callFile = cu.fileMap[v]
					} else {
						n.callFile = -1
					}
					v, _ := e.Val(dwarf.AttrCallLine).(int64)
					n.callLine = int32(v)
					v, _ = e.Val(dwarf.AttrCallColumn).(int64)
					n.callCol = int32(v)
				}
				idx := int32(len(cu.nodes))
				cu.nodes = append(cu.nodes, n)
				// A subprogram nested in a function (a local class's
				// member function) is a function of its own.
				if parent >= 0 && n.inlined {
					for _, r := range rs {
						cu.nodes[parent].children = append(cu.nodes[parent].children, addrRange{r.lo, r.hi, idx})
					}
				} else {
					for _, r := range rs {
						cu.top = append(cu.top, addrRange{r.lo, r.hi, idx})
					}
				}
				cur = idx
			} else if parent < 0 {
				// A declaration or abstract instance: nothing with code
				// below it that we would attribute correctly.
				r.SkipChildren()
				continue
			}
		}
		if e.Children {
			local := parent >= 0 && (e.Tag == dwarf.TagClassType || e.Tag == dwarf.TagStructType || e.Tag == dwarf.TagUnionType)
			if stdDescends(e.Tag) || local {
				stack = append(stack, cur)
			} else {
				r.SkipChildren()
			}
		}
	}
	sort.SliceStable(cu.top, func(i, j int) bool { return cu.top[i].lo < cu.top[j].lo })
	for i := range cu.nodes {
		c := cu.nodes[i].children
		sort.SliceStable(c, func(i, j int) bool { return c[i].lo < c[j].lo })
	}
	return nil
}

func (x *stdIndex) entryRanges(e *dwarf.Entry) []addrRange {
	lo, okLo := e.Val(dwarf.AttrLowpc).(uint64)
	if okLo {
		switch hv := e.Val(dwarf.AttrHighpc).(type) {
		case uint64:
			if hv > lo {
				return []addrRange{{lo, hv, 0}}
			}
			return nil
		case int64:
			if hv > 0 {
				return []addrRange{{lo, lo + uint64(hv), 0}}
			}
			return nil
		}
	}
	if e.AttrField(dwarf.AttrRanges) == nil {
		return nil
	}
	rs, err := x.d.Ranges(e)
	if err != nil {
		return nil
	}
	out := make([]addrRange, 0, len(rs))
	for _, r := range rs {
		if r[1] > r[0] {
			out = append(out, addrRange{r[0], r[1], 0})
		}
	}
	return out
}

const stdAttrMIPSLinkageName dwarf.Attr = 0x2007

// nameOf returns the raw (possibly mangled) name of a function DIE: the
// linkage name when there is one (addr2line prints it, demangled with -C),
// else DW_AT_name, else the name of the abstract origin or specification.
func (x *stdIndex) nameOf(e *dwarf.Entry, depth int) string {
	if s, ok := e.Val(dwarf.AttrLinkageName).(string); ok && s != "" {
		return s
	}
	if s, ok := e.Val(stdAttrMIPSLinkageName).(string); ok && s != "" {
		return s
	}
	if s, ok := e.Val(dwarf.AttrName).(string); ok && s != "" {
		return s
	}
	if depth > 8 {
		return ""
	}
	for _, a := range [...]dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		if off, ok := e.Val(a).(dwarf.Offset); ok {
			return x.nameAt(off, depth+1)
		}
	}
	return ""
}

func (x *stdIndex) nameAt(off dwarf.Offset, depth int) string {
	x.nameMu.Lock()
	s, ok := x.names[off]
	x.nameMu.Unlock()
	if ok {
		return s
	}
	r := x.d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err == nil && e != nil && e.Offset == off {
		s = x.nameOf(e, depth)
	}
	x.nameMu.Lock()
	x.names[off] = s
	x.nameMu.Unlock()
	return s
}
