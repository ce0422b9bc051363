package symbols

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// This file decodes DWARF 2-5 line-number programs straight into the
// index's flat row array. File names follow debug/dwarf's rules exactly
// (directory joining, DWARF 4's implicit compilation directory, DWARF 5's
// zero-based table), so the two readers answer alike; the tests hold them
// to it.

const maxLineFiles = 1 << 20

// lineProgram is a parsed line-program header.
type lineProgram struct {
	r               rd // positioned at the first opcode, bounded by the unit's end
	version         uint16
	addrSize        uint8
	minInst, maxOps int
	defaultIsStmt   bool
	lineBase        int
	lineRange       int
	opcodeBase      int
	opLens          [256]uint8
	dirs            []string
	files           []string // by file number; DWARF 2-4 entry 0 is unused ("")
	filePresent     []bool
	// a2lFile0: addr2line mode names rows that rely on the initial file
	// register of a DWARF 5 sequence by entry 0, as binutils 2.40 does
	// (decode_line_info starts each sequence with concat_filename(table,
	// 0) while the register is 1).
	a2lFile0 bool
}

func (x *dwarfIndex) lineHeader(off uint64, addrSize uint8, compDir string) (*lineProgram, error) {
	sec := x.s.line
	if off >= uint64(len(sec)) {
		return nil, fmt.Errorf("%w: line table offset %#x out of range", ErrMalformed, off)
	}
	r := rd{b: sec, off: int(off), big: x.s.big}
	ulen := uint64(r.u32())
	offSize := uint8(4)
	if ulen == 0xffffffff {
		ulen, offSize = r.u64(), 8
	} else if ulen >= 0xfffffff0 {
		return nil, fmt.Errorf("%w: line table at %#x: bad unit length", ErrMalformed, off)
	}
	if ulen > uint64(len(sec)-r.off) {
		return nil, fmt.Errorf("%w: line table at %#x exceeds section", ErrMalformed, off)
	}
	end := r.off + int(ulen)
	r.b = sec[:end]
	p := &lineProgram{}
	p.version = r.u16()
	if r.bad || p.version < 2 || p.version > 5 {
		return nil, fmt.Errorf("%w: line table at %#x: version %d", ErrMalformed, off, p.version)
	}
	p.addrSize = addrSize
	if p.version >= 5 {
		p.addrSize = r.u8()
		r.u8() // segment selector size
	}
	hlen := r.sized(offSize)
	if hlen > uint64(end-r.off) {
		return nil, fmt.Errorf("%w: line table at %#x: header length", ErrMalformed, off)
	}
	prog := r.off + int(hlen)
	p.minInst = int(r.u8())
	p.maxOps = 1
	if p.version >= 4 {
		p.maxOps = int(r.u8())
	}
	p.defaultIsStmt = r.u8() != 0
	p.lineBase = int(int8(r.u8()))
	p.lineRange = int(r.u8())
	p.opcodeBase = int(r.u8())
	if r.bad || p.maxOps == 0 || p.lineRange == 0 {
		return nil, fmt.Errorf("%w: line table at %#x: bad header", ErrMalformed, off)
	}
	for i := 1; i < p.opcodeBase; i++ {
		p.opLens[i] = r.u8()
	}
	known := [...]int{-1, 0, 1, 1, 1, -1, 0, 0, 0, -1, 0, 0, 1}
	for i := 1; i < p.opcodeBase && i < len(known); i++ {
		if known[i] >= 0 && int(p.opLens[i]) != known[i] {
			return nil, fmt.Errorf("%w: line table at %#x: opcode %d has length %d", ErrMalformed, off, i, p.opLens[i])
		}
	}
	if p.version < 5 {
		p.dirs = []string{compDir}
		for {
			d := r.cstr()
			if r.bad {
				return nil, fmt.Errorf("%w: line table at %#x: directories", ErrMalformed, off)
			}
			if len(d) == 0 {
				break
			}
			dir := bstr(d)
			if !pathIsAbs(dir) {
				dir = rawJoin(compDir, dir)
			}
			p.dirs = append(p.dirs, dir)
		}
		p.files = append(p.files, "")
		p.filePresent = append(p.filePresent, false)
		for {
			done, err := p.fileEntry(&r)
			if err != nil {
				return nil, fmt.Errorf("%w: line table at %#x: %v", ErrMalformed, off, err)
			}
			if done {
				break
			}
		}
	} else {
		var err error
		if p.dirs, _, err = x.lnctTable(&r, offSize, nil); err != nil {
			return nil, fmt.Errorf("%w: line table at %#x: directories: %v", ErrMalformed, off, err)
		}
		// binutils' concat_filename puts the unit's comp_dir before a
		// relative directory, DWARF 5 as DWARF 2-4.
		for i, d := range p.dirs {
			if d != "" && !pathIsAbs(d) {
				p.dirs[i] = rawJoin(compDir, d)
			}
		}
		if p.files, p.filePresent, err = x.lnctTable(&r, offSize, p.dirs); err != nil {
			return nil, fmt.Errorf("%w: line table at %#x: files: %v", ErrMalformed, off, err)
		}
	}
	if r.bad {
		return nil, fmt.Errorf("%w: line table at %#x: truncated header", ErrMalformed, off)
	}
	r.off = prog
	p.r = r
	return p, nil
}

// fileEntry reads a DWARF 2-4 file entry (header or DW_LNE_define_file).
func (p *lineProgram) fileEntry(r *rd) (done bool, err error) {
	nb := r.cstr()
	if r.bad {
		return false, fmt.Errorf("truncated file entry")
	}
	if len(nb) == 0 {
		return true, nil
	}
	if len(p.files) >= maxLineFiles {
		return false, fmt.Errorf("too many files")
	}
	name := bstr(nb)
	dir := r.uleb()
	if !pathIsAbs(name) {
		if dir >= uint64(len(p.dirs)) {
			return false, fmt.Errorf("directory index %d out of range", dir)
		}
		name = rawJoin(p.dirs[dir], name)
	}
	r.uleb() // mtime
	r.uleb() // length
	p.files = append(p.files, name)
	p.filePresent = append(p.filePresent, true)
	return false, nil
}

// lnctTable reads a DWARF 5 directory or file-name table: a format
// description, then entries. dirs is nil for the directory table itself.
func (x *dwarfIndex) lnctTable(r *rd, offSize uint8, dirs []string) ([]string, []bool, error) {
	var format [16][2]uint64
	nf := int(r.u8())
	if nf > len(format) {
		return nil, nil, fmt.Errorf("%d format entries", nf)
	}
	for i := 0; i < nf; i++ {
		format[i] = [2]uint64{r.uleb(), r.uleb()}
	}
	n := r.uleb()
	if r.bad || n > maxLineFiles || n > uint64(len(r.b)-r.off) {
		return nil, nil, fmt.Errorf("bad table")
	}
	out := make([]string, n)
	present := make([]bool, n)
	for i := range out {
		var pth, dir string
		for _, f := range format[:nf] {
			var str string
			var val uint64
			switch f[1] {
			case formString:
				str = bstr(r.cstr())
			case formStrp:
				str = strAt(x.s.str, r.sized(offSize))
			case formLineStrp:
				str = strAt(x.s.lineStr, r.sized(offSize))
			case formStrpSup:
				r.sized(offSize)
			case formStrx, formUdata:
				val = r.uleb()
				if f[1] == formStrx {
					val = 0
				}
			case formStrx1:
				r.u8()
			case formStrx2:
				r.u16()
			case formStrx3:
				r.u24()
			case formStrx4:
				r.u32()
			case formData1:
				val = uint64(r.u8())
			case formData2:
				val = uint64(r.u16())
			case formData4:
				val = uint64(r.u32())
			case formData8:
				val = r.u64()
			case formData16:
				r.skip(16) // DW_LNCT_MD5
			case formBlock:
				r.skip(r.uleb())
			default:
				return nil, nil, fmt.Errorf("unsupported form %#x", f[1])
			}
			switch f[0] {
			case 1: // DW_LNCT_path
				pth = str
			case 2: // DW_LNCT_directory_index
				if dirs == nil || val >= uint64(len(dirs)) {
					return nil, nil, fmt.Errorf("directory index %d out of range", val)
				}
				dir = dirs[val]
			}
		}
		if r.bad {
			return nil, nil, fmt.Errorf("truncated")
		}
		if dir != "" && pth != "" && !pathIsAbs(pth) {
			pth = rawJoin(dir, pth)
		}
		out[i], present[i] = pth, true
	}
	return out, present, nil
}

// decodeLines runs the line program into rows: sequences sorted by start
// address, several rows at one address collapsed to the last, end rows
// marking the address one past each sequence. The file numbers in rows
// are the program's own (indices into p.files).
func (p *lineProgram) decodeLines(rows []lineRow) ([]lineRow, error) {
	r := &p.r
	type seqSpan struct {
		lo    uint64
		start int
	}
	var seqs []seqSpan
	base := len(rows)
	seqStart := len(rows)
	var addr uint64
	initFile := int64(1)
	if p.a2lFile0 {
		initFile = 0
	}
	file, line, col, disc := initFile, int64(1), uint64(0), uint64(0)
	opIndex := 0
	emit := func(end bool) {
		fi := int32(-1)
		if file >= 0 && file < int64(len(p.files)) && p.filePresent[file] {
			fi = int32(file)
		}
		if end {
			fi = endRow
		}
		row := lineRow{addr: addr, file: fi, line: int32(line), col: int32(col), disc: int32(disc)}
		if n := len(rows); n > seqStart && rows[n-1].addr == addr && !end {
			rows[n-1] = row
		} else {
			rows = append(rows, row)
		}
		disc = 0
	}
	advance := func(op uint64) {
		if p.maxOps == 1 {
			addr += uint64(p.minInst) * op
			return
		}
		oi := uint64(opIndex) + op
		addr += uint64(p.minInst) * (oi / uint64(p.maxOps))
		opIndex = int(oi % uint64(p.maxOps))
	}
	for r.off < len(r.b) {
		op := int(r.u8())
		if op >= p.opcodeBase {
			adj := op - p.opcodeBase
			advance(uint64(adj / p.lineRange))
			line += int64(p.lineBase + adj%p.lineRange)
			emit(false)
			continue
		}
		switch op {
		case 0:
			n := r.uleb()
			start := r.off
			if n == 0 || n > uint64(len(r.b)-r.off) {
				return rows, fmt.Errorf("%w: line program: extended opcode length %d", ErrMalformed, n)
			}
			sub := r.u8()
			switch sub {
			case 1: // DW_LNE_end_sequence
				emit(true)
				seqs = append(seqs, seqSpan{rows[seqStart].addr, seqStart})
				seqStart = len(rows)
				addr, file, line, col, disc, opIndex = 0, initFile, 1, 0, 0, 0
			case 2: // DW_LNE_set_address
				switch p.addrSize {
				case 1, 2, 4, 8:
					addr = r.sized(p.addrSize)
				default:
					return rows, fmt.Errorf("%w: line program: address size %d", ErrMalformed, p.addrSize)
				}
			case 3: // DW_LNE_define_file
				done, err := p.fileEntry(r)
				if err != nil || done {
					return rows, fmt.Errorf("%w: line program: bad DW_LNE_define_file", ErrMalformed)
				}
			case 4: // DW_LNE_set_discriminator
				disc = r.uleb()
			}
			r.off = start
			r.skip(n)
		case 1: // copy
			emit(false)
		case 2:
			advance(r.uleb())
		case 3:
			line += r.sleb()
		case 4:
			file = int64(min(r.uleb(), 1<<40))
		case 5:
			col = r.uleb()
		case 6, 7, 10, 11: // negate_stmt, basic_block, prologue_end, epilogue_begin
		case 8:
			advance(uint64((255 - p.opcodeBase) / p.lineRange))
		case 9:
			addr += uint64(r.u16())
		case 12:
			r.uleb()
		default:
			for i := 0; i < int(p.opLens[op]); i++ {
				r.uleb()
			}
		}
		if r.bad {
			return rows, fmt.Errorf("%w: line program truncated", ErrMalformed)
		}
	}
	// Rows after the last end_sequence belong to no sequence (binutils
	// and debug/dwarf ignore them too for lookups): drop them.
	rows = rows[:seqStart]
	sorted := true
	for i := 1; i < len(seqs); i++ {
		if seqs[i].lo < seqs[i-1].lo {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortStableFunc(seqs, func(a, b seqSpan) int {
			switch {
			case a.lo < b.lo:
				return -1
			case a.lo > b.lo:
				return 1
			}
			return 0
		})
		out := make([]lineRow, base, len(rows))
		copy(out, rows[:base])
		for _, s := range seqs {
			k := s.start
			for ; k < len(rows); k++ {
				out = append(out, rows[k])
				if rows[k].isEnd() {
					break
				}
			}
		}
		rows = out
	}
	return rows, nil
}

// rawJoin composes a path as binutils' concat_filename and libbacktrace
// do, "dir/file" with nothing cleaned: addr2line prints
// ".../client/../libbacktrace/dwarf.cpp" exactly so. Frames that go into
// a trace are normalised afterwards the way Tracy's client does
// (tracyNormalizePath). Directories with a DOS drive keep pathJoin's
// rules, which the MinGW goldens hold.
func rawJoin(dir, file string) string {
	if dir == "" {
		return file
	}
	if d, _ := splitDrive(dir); d != "" {
		return pathJoin(dir, file)
	}
	return dir + "/" + file
}

// tracyNormalizePath is NormalizePath of Tracy 0.14's client
// (TracyCallstack.cpp), which every file name of a client-resolved frame
// goes through: for an absolute path, "", "." and ".." components are
// resolved textually (".." above the root stays at the root); a relative
// path is sent as it is.
func tracyNormalizePath(p string) string {
	if len(p) == 0 || p[0] != '/' {
		return p
	}
	clean := true
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && (i+1 == len(p) || p[i+1] == '/' || p[i+1] == '.') {
			clean = false
			break
		}
	}
	if clean {
		return p
	}
	res := make([]byte, 0, len(p))
	for ptr := 0; ptr < len(p); {
		next := ptr
		for next < len(p) && p[next] != '/' {
			next++
		}
		comp := p[ptr:next]
		switch comp {
		case "..":
			if len(res) > 0 {
				back := len(res) - 1
				for back > 0 && res[back] != '/' {
					back--
				}
				res = res[:back]
			}
			ptr = next + 1
			continue
		case ".", "":
			ptr = next + 1
			continue
		}
		if len(res) != 1 {
			res = append(res, '/')
		}
		res = append(res, comp...)
		ptr = next + 1
	}
	if len(res) == 0 {
		return "/"
	}
	return string(res)
}

// traceFile is the file name of a frame for a trace: an absolute path as
// Tracy's client normalises it; a relative one (Go's "<autogenerated>"
// under comp_dir ".", odd builds) cleaned as debug/dwarf joins it.
func traceFile(p string) string {
	if pathIsAbs(p) {
		if d, _ := splitDrive(p); d == "" {
			return tracyNormalizePath(p)
		}
		return p
	}
	if p == "" {
		return p
	}
	return path.Clean(p)
}

// pathIsAbs and pathJoin follow debug/dwarf: DWARF paths may be Unix or
// DOS style whatever the host.
func pathIsAbs(p string) bool {
	_, p = splitDrive(p)
	return len(p) > 0 && (p[0] == '/' || p[0] == '\\')
}

func pathJoin(dir, file string) string {
	if dir == "" {
		return file
	}
	drive, dir := splitDrive(dir)
	if drive == "" {
		return path.Join(dir, file)
	}
	drive2, file := splitDrive(file)
	if drive2 != "" {
		if !strings.EqualFold(drive, drive2) {
			return drive2 + file
		}
	}
	if !strings.HasSuffix(dir, "/") && !strings.HasSuffix(dir, `\`) && dir != "" {
		if strings.HasPrefix(dir, "/") {
			dir += "/"
		} else {
			dir += `\`
		}
	}
	return drive + dir + file
}

func splitDrive(p string) (drive, rest string) {
	if len(p) >= 2 && p[1] == ':' {
		if c := p[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return p[:2], p[2:]
		}
	}
	if len(p) > 3 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/') {
		np := strings.ReplaceAll(p, "/", `\`)
		s1 := strings.IndexByte(np[2:], '\\') + 2
		if s1 > 2 {
			s2 := strings.IndexByte(np[s1+1:], '\\') + s1 + 1
			if s2 > s1 {
				return p[:s2], p[s2:]
			}
		}
	}
	return "", p
}
