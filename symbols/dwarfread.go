package symbols

import (
	"bytes"
	"fmt"
	"unsafe"
)

// This file is a DWARF 2-5 .debug_info reader for the subset the index
// needs. Unlike debug/dwarf it allocates nothing per DIE: attributes are
// decoded straight from the section into a small struct on the stack, and
// DIEs of no interest are skipped by form, or whole through DW_AT_sibling.
// Every read is bounds-checked; a read past the end sets a sticky flag the
// callers turn into ErrMalformed.

// rd is a cursor over one section.
type rd struct {
	b   []byte
	off int
	bad bool
	big bool
}

func (r *rd) u8() uint8 {
	if r.off >= len(r.b) || r.off < 0 {
		r.bad = true
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *rd) need(n int) bool {
	if r.off < 0 || n > len(r.b)-r.off {
		r.bad = true
		r.off = len(r.b)
		return false
	}
	return true
}

func (r *rd) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	p := r.b[r.off:]
	r.off += 2
	if r.big {
		return uint16(p[0])<<8 | uint16(p[1])
	}
	return uint16(p[1])<<8 | uint16(p[0])
}

func (r *rd) u24() uint32 {
	if !r.need(3) {
		return 0
	}
	p := r.b[r.off:]
	r.off += 3
	if r.big {
		return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
	}
	return uint32(p[2])<<16 | uint32(p[1])<<8 | uint32(p[0])
}

func (r *rd) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	p := r.b[r.off : r.off+4]
	r.off += 4
	if r.big {
		return uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])
	}
	return uint32(p[3])<<24 | uint32(p[2])<<16 | uint32(p[1])<<8 | uint32(p[0])
}

func (r *rd) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	p := r.b[r.off : r.off+8]
	r.off += 8
	if r.big {
		return uint64(p[0])<<56 | uint64(p[1])<<48 | uint64(p[2])<<40 | uint64(p[3])<<32 |
			uint64(p[4])<<24 | uint64(p[5])<<16 | uint64(p[6])<<8 | uint64(p[7])
	}
	return uint64(p[7])<<56 | uint64(p[6])<<48 | uint64(p[5])<<40 | uint64(p[4])<<32 |
		uint64(p[3])<<24 | uint64(p[2])<<16 | uint64(p[1])<<8 | uint64(p[0])
}

// sized reads an n-byte unsigned value (address or offset size).
func (r *rd) sized(n uint8) uint64 {
	switch n {
	case 1:
		return uint64(r.u8())
	case 2:
		return uint64(r.u16())
	case 4:
		return uint64(r.u32())
	case 8:
		return r.u64()
	}
	r.bad = true
	return 0
}

func (r *rd) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		if r.off >= len(r.b) || r.off < 0 {
			r.bad = true
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c < 0x80 {
			return v
		}
		shift += 7
	}
}

func (r *rd) sleb() int64 {
	var v int64
	var shift uint
	for {
		if r.off >= len(r.b) || r.off < 0 {
			r.bad = true
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *rd) skip(n uint64) {
	if n > uint64(len(r.b)-r.off) {
		r.bad = true
		r.off = len(r.b)
		return
	}
	r.off += int(n)
}

// cstr returns the NUL-terminated string at the cursor, without the NUL.
func (r *rd) cstr() []byte {
	if r.off < 0 || r.off > len(r.b) {
		r.bad = true
		return nil
	}
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := r.b[r.off:i]
			r.off = i + 1
			return s
		}
	}
	r.bad = true
	r.off = len(r.b)
	return nil
}

// strAt returns the NUL-terminated string at off in sec without copying:
// sections are never written after loading, so the string stays valid and
// keeps only the section alive.
func strAt(sec []byte, off uint64) string {
	if off >= uint64(len(sec)) {
		return ""
	}
	b := sec[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return bstr(b[:i])
	}
	return ""
}

func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// DWARF constants used below (DWARF 5 section 7).
const (
	tagCompileUnit        = 0x11
	tagPartialUnit        = 0x3c
	tagSubprogram         = 0x2e
	tagEntryPoint         = 0x03
	tagVariable           = 0x34
	tagMember             = 0x0d
	tagInlinedSubroutine  = 0x1d
	tagLexicalBlock       = 0x0b
	tagNamespace          = 0x39
	tagModule             = 0x1e
	tagTryBlock           = 0x32
	tagCatchBlock         = 0x25
	tagClassType          = 0x02
	tagStructureType      = 0x13
	tagUnionType          = 0x17
	atSibling             = 0x01
	atName                = 0x03
	atStmtList            = 0x10
	atLowPC               = 0x11
	atHighPC              = 0x12
	atCompDir             = 0x1b
	atLanguage            = 0x13
	atAbstractOrigin      = 0x31
	atSpecification       = 0x47
	atDeclFile            = 0x3a
	atRanges              = 0x55
	atCallColumn          = 0x57
	atCallFile            = 0x58
	atCallLine            = 0x59
	atLinkageName         = 0x6e
	atStrOffsetsBase      = 0x72
	atAddrBase            = 0x73
	atRnglistsBase        = 0x74
	atEntryPC             = 0x52
	atMIPSLinkageName     = 0x2007
	formAddr              = 0x01
	formBlock2            = 0x03
	formBlock4            = 0x04
	formData2             = 0x05
	formData4             = 0x06
	formData8             = 0x07
	formString            = 0x08
	formBlock             = 0x09
	formBlock1            = 0x0a
	formData1             = 0x0b
	formFlag              = 0x0c
	formSdata             = 0x0d
	formStrp              = 0x0e
	formUdata             = 0x0f
	formRefAddr           = 0x10
	formRef1              = 0x11
	formRef2              = 0x12
	formRef4              = 0x13
	formRef8              = 0x14
	formRefUdata          = 0x15
	formIndirect          = 0x16
	formSecOffset         = 0x17
	formExprloc           = 0x18
	formFlagPresent       = 0x19
	formStrx              = 0x1a
	formAddrx             = 0x1b
	formRefSup4           = 0x1c
	formStrpSup           = 0x1d
	formData16            = 0x1e
	formLineStrp          = 0x1f
	formRefSig8           = 0x20
	formImplicitConst     = 0x21
	formLoclistx          = 0x22
	formRnglistx          = 0x23
	formRefSup8           = 0x24
	formStrx1             = 0x25
	formStrx2             = 0x26
	formStrx3             = 0x27
	formStrx4             = 0x28
	formAddrx1            = 0x29
	formAddrx2            = 0x2a
	formAddrx3            = 0x2b
	formAddrx4            = 0x2c
	formGNUAddrIndex      = 0x1f01
	formGNUStrIndex       = 0x1f02
	formGNURefAlt         = 0x1f20
	formGNUStrpAlt        = 0x1f21
	maxAbbrevAttrs        = 1 << 12
	maxAbbrevTableEntries = 1 << 20
)

// attrSpec is one (attribute, form) pair of an abbreviation.
type attrSpec struct {
	attr uint16
	form uint16
	act  uint8 // what readAttrs does with the value (actSkip, ...)
	size int8  // the value's size when fixed (formSize), else -1
	ic   int64 // DW_FORM_implicit_const value
}

// Attribute actions, decided once per abbreviation so that reading a DIE
// is one switch per attribute it keeps and an addition per one it skips.
const (
	actSkip = iota
	actSibling
	actName
	actLinkage
	actLowPC
	actHighPC
	actRanges
	actOrigin
	actSpec
	actCallFile
	actCallLine
	actCallCol
	actStmtList
	actCompDir
	actEntryPC
	actStrOffBase
	actAddrBase
	actRnglistsBase
	actLanguage
)

func attrAction(at uint16) uint8 {
	switch at {
	case atSibling:
		return actSibling
	case atName:
		return actName
	case atLinkageName, atMIPSLinkageName:
		return actLinkage
	case atLowPC:
		return actLowPC
	case atHighPC:
		return actHighPC
	case atRanges:
		return actRanges
	case atAbstractOrigin:
		return actOrigin
	case atSpecification:
		return actSpec
	case atCallFile:
		return actCallFile
	case atCallLine:
		return actCallLine
	case atCallColumn:
		return actCallCol
	case atStmtList:
		return actStmtList
	case atCompDir:
		return actCompDir
	case atEntryPC:
		return actEntryPC
	case atStrOffsetsBase:
		return actStrOffBase
	case atAddrBase:
		return actAddrBase
	case atRnglistsBase:
		return actRnglistsBase
	case atLanguage:
		return actLanguage
	}
	return actSkip
}

// abbrev is a decoded abbreviation. fixed is the byte size of all its
// attribute values when every form has a size known from the unit header
// alone, else -1: most DIEs a walk skips are skipped with one addition.
type abbrev struct {
	tag      uint32
	children bool
	attrs    []attrSpec
	fixed    int32
}

// abbrevTable is indexed by code (codes are almost always 1..n); sparse
// holds the rest.
type abbrevTable struct {
	dense  []abbrev
	sparse map[uint64]*abbrev
}

func (t *abbrevTable) get(code uint64) *abbrev {
	if code-1 < uint64(len(t.dense)) {
		a := &t.dense[code-1]
		if a.attrs != nil {
			return a
		}
	}
	return t.sparse[code]
}

// formSize is the fixed size of a form's value for the given address and
// offset sizes, -1 when it depends on the data.
func formSize(form uint16, addrSize, offSize uint8, version uint8) int {
	switch form {
	case formAddr:
		return int(addrSize)
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formStrp, formSecOffset, formLineStrp, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return int(offSize)
	case formRefAddr:
		if version <= 2 {
			return int(addrSize)
		}
		return int(offSize)
	case formFlagPresent, formImplicitConst:
		return 0
	}
	return -1
}

// parseAbbrevs decodes the table at off.
func parseAbbrevs(sec []byte, off uint64, addrSize, offSize, version uint8) (*abbrevTable, error) {
	if off >= uint64(len(sec)) {
		return nil, fmt.Errorf("%w: abbrev offset %#x out of range", ErrMalformed, off)
	}
	r := rd{b: sec, off: int(off)}
	t := &abbrevTable{}
	var specs []attrSpec
	type pending struct {
		code       uint64
		a          abbrev
		start, end int
	}
	var all []pending
	for n := 0; ; n++ {
		if n > maxAbbrevTableEntries {
			return nil, fmt.Errorf("%w: abbrev table at %#x too large", ErrMalformed, off)
		}
		code := r.uleb()
		if r.bad {
			return nil, fmt.Errorf("%w: abbrev table at %#x truncated", ErrMalformed, off)
		}
		if code == 0 {
			break
		}
		tag := r.uleb()
		children := r.u8() != 0
		p := pending{code: code, a: abbrev{tag: uint32(tag), children: children}, start: len(specs)}
		fixed := 0
		for k := 0; ; k++ {
			at, form := r.uleb(), r.uleb()
			if r.bad || k > maxAbbrevAttrs {
				return nil, fmt.Errorf("%w: abbrev table at %#x truncated", ErrMalformed, off)
			}
			if at == 0 && form == 0 {
				break
			}
			s := attrSpec{attr: uint16(min(at, 0xffff)), form: uint16(min(form, 0xffff))}
			if form == formImplicitConst {
				s.ic = r.sleb()
			}
			s.act = attrAction(s.attr)
			sz := formSize(s.form, addrSize, offSize, version)
			s.size = int8(sz)
			if fixed >= 0 {
				if sz >= 0 {
					fixed += sz
				} else {
					fixed = -1
				}
			}
			specs = append(specs, s)
		}
		p.end = len(specs)
		p.a.fixed = int32(fixed)
		all = append(all, p)
	}
	dense := 0
	for _, p := range all {
		if p.code <= uint64(4*len(all)+16) {
			dense = max(dense, int(p.code))
		}
	}
	t.dense = make([]abbrev, dense)
	for _, p := range all {
		p.a.attrs = specs[p.start:p.end:p.end]
		if p.a.attrs == nil {
			p.a.attrs = []attrSpec{}
		}
		if p.code <= uint64(dense) {
			t.dense[p.code-1] = p.a
		} else {
			if t.sparse == nil {
				t.sparse = map[uint64]*abbrev{}
			}
			a := p.a
			t.sparse[p.code] = &a
		}
	}
	return t, nil
}

// value kinds as returned by readForm.
const (
	vNone    = iota
	vAddr    // u is an address
	vAddrx   // u is an index into .debug_addr
	vConst   // u is an unsigned constant
	vSConst  // u is a signed constant (int64 bits)
	vRef     // u is an absolute .debug_info offset
	vStr     // u is a .debug_str offset
	vLineStr // u is a .debug_line_str offset
	vStrx    // u is an index into .debug_str_offsets
	vInline  // u is a .debug_info offset of an inline string
	vSecOff  // u is an offset into another section
	vRnglx   // u is a DW_FORM_rnglistx index
	vFlag
)

// readForm decodes one attribute value. Forms whose values the index never
// uses (blocks, expressions, supplementary-file references) are skipped
// and reported as vNone.
func (u *cuIndex) readForm(r *rd, form uint16, ic int64) (uint64, uint8) {
	for depth := 0; ; depth++ {
		switch form {
		case formAddr:
			return r.sized(u.addrSize), vAddr
		case formData1:
			return uint64(r.u8()), vConst
		case formData2:
			return uint64(r.u16()), vConst
		case formData4:
			return uint64(r.u32()), vConst
		case formData8:
			return r.u64(), vConst
		case formUdata:
			return r.uleb(), vConst
		case formSdata:
			return uint64(r.sleb()), vSConst
		case formImplicitConst:
			return uint64(ic), vSConst
		case formFlag:
			return uint64(r.u8()), vFlag
		case formFlagPresent:
			return 1, vFlag
		case formRef1:
			return u.off + uint64(r.u8()), vRef
		case formRef2:
			return u.off + uint64(r.u16()), vRef
		case formRef4:
			return u.off + uint64(r.u32()), vRef
		case formRef8:
			return u.off + r.u64(), vRef
		case formRefUdata:
			return u.off + r.uleb(), vRef
		case formRefAddr:
			if u.version <= 2 {
				return r.sized(u.addrSize), vRef
			}
			return r.sized(u.offSize), vRef
		case formString:
			start := r.off
			r.cstr()
			return uint64(start), vInline
		case formStrp:
			return r.sized(u.offSize), vStr
		case formLineStrp:
			return r.sized(u.offSize), vLineStr
		case formStrx, formGNUStrIndex:
			return r.uleb(), vStrx
		case formStrx1:
			return uint64(r.u8()), vStrx
		case formStrx2:
			return uint64(r.u16()), vStrx
		case formStrx3:
			return uint64(r.u24()), vStrx
		case formStrx4:
			return uint64(r.u32()), vStrx
		case formAddrx, formGNUAddrIndex:
			return r.uleb(), vAddrx
		case formAddrx1:
			return uint64(r.u8()), vAddrx
		case formAddrx2:
			return uint64(r.u16()), vAddrx
		case formAddrx3:
			return uint64(r.u24()), vAddrx
		case formAddrx4:
			return uint64(r.u32()), vAddrx
		case formSecOffset:
			return r.sized(u.offSize), vSecOff
		case formRnglistx:
			return r.uleb(), vRnglx
		case formLoclistx:
			r.uleb()
			return 0, vNone
		case formBlock1:
			r.skip(uint64(r.u8()))
		case formBlock2:
			r.skip(uint64(r.u16()))
		case formBlock4:
			r.skip(uint64(r.u32()))
		case formBlock, formExprloc:
			r.skip(r.uleb())
		case formData16:
			r.skip(16)
		case formRefSig8, formRefSup8:
			r.skip(8)
		case formRefSup4:
			r.skip(4)
		case formStrpSup, formGNURefAlt, formGNUStrpAlt:
			r.skip(uint64(u.offSize))
		case formIndirect:
			if depth < 4 {
				form = uint16(min(r.uleb(), 0xffff))
				continue
			}
			r.bad = true
		default:
			r.bad = true // unknown form: the DIE's size is unknowable
		}
		return 0, vNone
	}
}

// skipAttrs moves past a DIE's attribute values.
func (u *cuIndex) skipAttrs(r *rd, a *abbrev) {
	if a.fixed >= 0 {
		r.skip(uint64(a.fixed))
		return
	}
	for i := range a.attrs {
		s := &a.attrs[i]
		if s.size >= 0 {
			r.skip(uint64(s.size))
			continue
		}
		u.readForm(r, s.form, s.ic)
	}
}

// dieAttrs is what the index wants from a DIE.
type dieAttrs struct {
	lowpc, highpc                               uint64
	lowKind, highKind                           uint8
	ranges                                      uint64
	rangesKind                                  uint8
	name, linkage                               uint64
	nameKind, linkageKind                       uint8
	origin, spec                                uint64
	hasOrigin, hasSpec                          bool
	callFile, callLine, callCol                 uint64
	hasCallFile                                 bool
	sibling                                     uint64
	hasSibling                                  bool
	stmtList                                    uint64
	hasStmtList                                 bool
	compDir                                     uint64
	compDirKind                                 uint8
	entryPC                                     uint64
	entryPCKind                                 uint8
	strOffBase, addrBase                        uint64
	rnglistsBase                                uint64
	hasStrOffBase, hasAddrBase, hasRnglistsBase bool
	lang                                        uint64
}

// readAttrs decodes a DIE's attributes into d.
func (u *cuIndex) readAttrs(r *rd, a *abbrev, d *dieAttrs) {
	for i := range a.attrs {
		s := &a.attrs[i]
		if s.act == actSkip {
			if s.size >= 0 {
				r.skip(uint64(s.size))
			} else {
				u.readForm(r, s.form, s.ic)
			}
			continue
		}
		v, k := u.readForm(r, s.form, s.ic)
		switch s.act {
		case actSibling:
			d.sibling, d.hasSibling = v, k == vRef
		case actName:
			d.name, d.nameKind = v, k
		case actLinkage:
			if d.linkageKind == vNone || s.attr == atLinkageName {
				d.linkage, d.linkageKind = v, k
			}
		case actLowPC:
			d.lowpc, d.lowKind = v, k
		case actHighPC:
			d.highpc, d.highKind = v, k
		case actRanges:
			d.ranges, d.rangesKind = v, k
		case actOrigin:
			d.origin, d.hasOrigin = v, k == vRef
		case actSpec:
			d.spec, d.hasSpec = v, k == vRef
		case actCallFile:
			d.callFile, d.hasCallFile = v, k == vConst || k == vSConst
		case actCallLine:
			if k == vConst || k == vSConst {
				d.callLine = v
			}
		case actCallCol:
			if k == vConst || k == vSConst {
				d.callCol = v
			}
		case actStmtList:
			d.stmtList, d.hasStmtList = v, k == vSecOff || k == vConst
		case actCompDir:
			d.compDir, d.compDirKind = v, k
		case actEntryPC:
			d.entryPC, d.entryPCKind = v, k
		case actStrOffBase:
			d.strOffBase, d.hasStrOffBase = v, k == vSecOff || k == vConst
		case actAddrBase:
			d.addrBase, d.hasAddrBase = v, k == vSecOff || k == vConst
		case actRnglistsBase:
			d.rnglistsBase, d.hasRnglistsBase = v, k == vSecOff || k == vConst
		case actLanguage:
			if k == vConst {
				d.lang = v
			}
		}
	}
}

// nameRef locates a NUL-terminated string in .debug_str (refStr),
// .debug_line_str (refLineStr) or .debug_info (refInfo) without a pointer:
// bits 62-63 the section, 32-61 the length, 0-31 the offset (sections are
// below 4 GiB). 0 is the empty string.
type nameRef uint64

const (
	refStr     = 1
	refLineStr = 2
	refInfo    = 3
)

// makeRef refers to the string at off in sec (section kind sk).
func makeRef(sk uint64, sec []byte, off uint64) nameRef {
	if off >= uint64(len(sec)) || off >= 1<<32 {
		return 0
	}
	n := bytes.IndexByte(sec[off:], 0)
	if n <= 0 || n >= 1<<30 {
		return 0
	}
	return nameRef(sk<<62 | uint64(n)<<32 | off)
}

// name returns the string a nameRef points to, sharing the section's
// bytes.
func (x *dwarfIndex) name(n nameRef) string {
	var sec []byte
	switch n >> 62 {
	case refStr:
		sec = x.s.str
	case refLineStr:
		sec = x.s.lineStr
	case refInfo:
		sec = x.s.info
	default:
		return ""
	}
	off, l := uint64(n)&(1<<32-1), uint64(n)>>32&(1<<30-1)
	return unsafe.String(&sec[off], l)
}

// strRef resolves a string-class value; 0 for anything else.
func (x *dwarfIndex) strRef(u *cuIndex, v uint64, k uint8) nameRef {
	switch k {
	case vStr:
		return makeRef(refStr, x.s.str, v)
	case vLineStr:
		return makeRef(refLineStr, x.s.lineStr, v)
	case vInline:
		return makeRef(refInfo, x.s.info, v)
	case vStrx:
		off := u.strOffBase + v*uint64(u.offSize)
		if v > 1<<40 || off+uint64(u.offSize) > uint64(len(x.s.strOffsets)) {
			return 0
		}
		r := rd{b: x.s.strOffsets, off: int(off), big: x.s.big}
		return makeRef(refStr, x.s.str, r.sized(u.offSize))
	}
	return 0
}

// str resolves a string-class value; "" for anything else.
func (x *dwarfIndex) str(u *cuIndex, v uint64, k uint8) string {
	return x.name(x.strRef(u, v, k))
}

// address resolves an address-class value (DW_FORM_addr or addrx).
func (x *dwarfIndex) address(u *cuIndex, v uint64, k uint8) (uint64, bool) {
	switch k {
	case vAddr:
		return v, true
	case vAddrx:
		off := u.addrBase + v*uint64(u.addrSize)
		if v > 1<<40 || off+uint64(u.addrSize) > uint64(len(x.s.addr)) {
			return 0, false
		}
		r := rd{b: x.s.addr, off: int(off), big: x.s.big}
		return r.sized(u.addrSize), !r.bad
	}
	return 0, false
}
