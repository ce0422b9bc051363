package itanium

// The parser follows the ABI grammar and, where the library is more
// lenient or structures its tree in a particular way (which affects
// printing), the library's choices: the shape of the tree built here is
// the shape of the library's AST, so the printer can apply the same
// inside-out rules.

func (d *Demangler) mkName(s sref) int32 { return d.mk(kName, -1, -1, s) }

// encoding parses <encoding>; local marks the function of a <local-name>,
// whose return type GNU style does not print.
func (d *Demangler) encoding(local bool) int32 {
	d.enter()
	defer d.leave()
	if d.eof() {
		d.fail()
	}
	if c := d.peek(); c == 'G' || c == 'T' {
		return d.specialName()
	}
	a := d.name()
	if d.eof() || d.peek() == 'E' {
		return a // data
	}
	mwq := int32(-1)
	if d.nodes[a].kind == kMWQ {
		mwq = a
	}
	t := d.findTemplate(a)
	saveT, saveScope, saveDepth := d.tmpl, d.scope, d.tdepth
	if t >= 0 {
		d.tmpl = t
		d.tdepth++
		d.nscope++
		d.scope = d.nscope
	}
	ft := d.bareFunctionType(d.hasReturnType(a))
	if d.peek() == 'Q' {
		d.fail()
	}
	d.tmpl, d.scope, d.tdepth = saveT, saveScope, saveDepth
	if local {
		d.nodes[ft].flag = 1
	}
	if mwq >= 0 {
		a = d.nodes[mwq].a
		d.nodes[mwq].a = ft
		ft = mwq
	}
	if n := &d.nodes[a]; n.kind == kQual && n.flag == 1 {
		if p := n.b; d.nodes[p].kind == kMWQ {
			n.b = d.nodes[p].a
			d.nodes[p].a = ft
			ft = p
		}
	}
	return d.mk(kTyped, a, ft, sref{})
}

// findTemplate finds the template whose arguments the parameter types of
// a function named a refer to, as the library does (-1: none).
func (d *Demangler) findTemplate(a int32) int32 {
	for a >= 0 {
		n := &d.nodes[a]
		switch n.kind {
		case kTemplate:
			return a
		case kQual:
			if n.flag == 1 || d.nodes[n.b].kind == kCtor {
				a = n.b
				continue
			}
			return -1
		case kMWQ:
			a = n.a
		case kCtor:
			a = n.b
		default:
			return -1
		}
	}
	return -1
}

func (d *Demangler) hasReturnType(a int32) bool {
	for {
		n := &d.nodes[a]
		switch n.kind {
		case kQual:
			if n.flag != 1 {
				return false
			}
			a = n.b
		case kTemplate:
			return !d.isCDtorConversion(n.a)
		case kTWQ, kMWQ:
			a = n.a
		default:
			return false
		}
	}
}

func (d *Demangler) isCDtorConversion(a int32) bool {
	for {
		switch d.nodes[a].kind {
		case kQual:
			a = d.nodes[a].b
		case kCtor, kDtor, kCast:
			return true
		default:
			return false
		}
	}
}

func (d *Demangler) name() int32 {
	d.enter()
	defer d.leave()
	switch d.peek() {
	case 'N':
		return d.nestedName()
	case 'Z':
		return d.localName()
	case 'U':
		return d.unqualifiedName()
	case 'S':
		var a int32
		subst := false
		if d.at(1) == 't' {
			d.pos += 2
			u := d.unqualifiedName()
			a = d.mk(kQual, d.mkName(sStd), u, sref{})
		} else {
			a = d.substitution(false)
			subst = true
		}
		if d.peek() == 'I' {
			if !subst {
				d.addSub(a)
			}
			a = d.templateArgs(a, kTemplate)
		}
		return a
	}
	a := d.unqualifiedName()
	if d.peek() == 'I' {
		d.addSub(a)
		a = d.templateArgs(a, kTemplate)
	}
	return a
}

// cvQualifiers parses [r][V][K] (the order compilers emit; anything else
// is left to the library) into a qualifier list code, 0 for none.
func (d *Demangler) cvQualifiers() uint8 {
	var code, seen uint8
	for {
		var q, bit uint8
		switch d.peek() {
		case 'r':
			q, bit = 3, 1
		case 'V':
			q, bit = 2, 2
		case 'K':
			q, bit = 1, 4
		case 'D':
			switch d.at(1) {
			case 'x', 'o', 'O', 'w':
				d.fail()
			}
			return code
		default:
			return code
		}
		if seen >= bit {
			d.fail() // out of order or repeated
		}
		seen |= bit
		code = q | code<<2 // each qualifier prints before the earlier ones
		d.pos++
	}
}

// mkQual makes a qualified node (kTWQ or kMWQ) with qualifier list q.
func (d *Demangler) mkQual(k kind, base int32, q uint8) int32 {
	n := d.mk(k, base, -1, qualListRef[q])
	d.nodes[n].flag = q
	return n
}

func (d *Demangler) nestedName() int32 {
	d.expect('N')
	if d.peek() == 'H' {
		d.fail()
	}
	q := d.cvQualifiers()
	ref := int32(0)
	switch d.peek() {
	case 'R':
		ref = 1
		d.pos++
	case 'O':
		ref = 2
		d.pos++
	}
	a := d.prefix()
	if q != 0 || ref != 0 {
		a = d.mkQual(kMWQ, a, q)
		d.nodes[a].num = ref
	}
	d.expect('E')
	return a
}

func (d *Demangler) prefix() int32 {
	a, last := int32(-1), int32(-1)
	cast := false // an unfinished conversion operator: the library refuses a second
	for {
		if d.eof() {
			d.fail()
		}
		c := d.peek()
		var next int32
		switch {
		case isDigit(c) || isLower(c) || c == 'U' || c == 'L':
			next = d.unqualifiedName()
			u := next
			for d.nodes[u].kind == kTagged {
				u = d.nodes[u].a
			}
			if d.nodes[u].kind == kCast {
				if cast {
					d.fail()
				}
				cast = true
			}
		case c == 'C':
			d.pos++
			inheriting := d.peek() == 'I'
			if inheriting {
				d.pos++
			}
			if last < 0 {
				d.fail()
			}
			if k := d.peek(); k < '1' || k > '5' {
				d.fail()
			}
			d.pos++
			base := int32(-1)
			if inheriting {
				base = d.demangleType()
			}
			// binutils names a constructor after the last source name
			// parsed outside template arguments, not after the last
			// component of the prefix: Ut_C1 prints the enclosing
			// class's name, CI2 the base class's (parsed just above).
			if d.lastName < 0 {
				d.fail()
			}
			next = d.mk(kCtor, d.lastName, base, sref{})
			if d.peek() == 'B' {
				next = d.taggedName(next)
			}
		case c == 'D':
			if last < 0 {
				d.fail()
			}
			switch d.at(1) {
			case '0', '1', '2', '4', '5':
			default:
				d.fail()
			}
			d.pos += 2
			if d.lastName < 0 {
				d.fail()
			}
			next = d.mk(kDtor, d.lastName, -1, sref{})
			if d.peek() == 'B' {
				next = d.taggedName(next)
			}
		case c == 'S':
			if a >= 0 {
				d.fail() // binutils: a substitution only starts a prefix
			}
			next = d.substitution(true)
			if d.peek() == 'E' {
				d.fail() // nor is it a whole nested name (NSoE)
			}
			switch d.nodes[next].kind {
			case kName, kQual, kTemplate, kTagged, kTParam, kUnnamed, kClosure:
			default:
				// A qualified or compound type as a scope (mutants
				// only): binutils prints it in its own way.
				d.fail()
			}
		case c == 'I':
			if a < 0 {
				d.fail()
			}
			next = d.templateArgs(a, kTemplate)
			a = -1
			cast = false
		case c == 'E':
			if a < 0 {
				d.fail()
			}
			return a
		case c == 'M':
			if a < 0 {
				d.fail()
			}
			d.pos++
			if d.peek() == 'E' {
				d.fail() // binutils wants a name after the lambda scope
			}
			continue
		default:
			d.fail()
		}
		last = next
		if a < 0 {
			a = next
		} else {
			a = d.mk(kQual, a, next, sref{})
		}
		if c != 'S' && d.peek() != 'E' {
			d.addSub(a)
		}
	}
}

func (d *Demangler) unqualifiedName() int32 {
	c := d.peek()
	var a int32
	switch {
	case isDigit(c):
		a = d.sourceName()
	case isLower(c):
		a = d.operatorName()
	case c == 'L':
		d.pos++
		a = d.sourceName()
		d.discriminator()
	case c == 'U' && d.at(1) == 'l':
		a = d.closureTypeName()
	case c == 'U' && d.at(1) == 't':
		d.pos += 2
		a = d.mk(kUnnamed, -1, -1, sref{})
		d.nodes[a].num = int32(d.compactNumber())
		d.addSub(a)
	default:
		d.fail()
	}
	if d.peek() == 'B' {
		a = d.taggedName(a)
	}
	return a
}

func (d *Demangler) taggedName(a int32) int32 {
	saved := d.lastName // binutils: ABI tags do not name constructors
	for d.peek() == 'B' {
		d.pos++
		t := d.sourceName()
		a = d.mk(kTagged, a, t, sref{})
	}
	d.lastName = saved
	return a
}

func (d *Demangler) sourceName() int32 {
	n := d.number()
	if n <= 0 || len(d.str)-d.pos < n {
		d.fail()
	}
	id := d.in(d.pos, d.pos+n)
	s := d.str[d.pos : d.pos+n]
	d.pos += n
	const anon = "_GLOBAL_"
	if len(s) > len(anon)+2 && s[:len(anon)] == anon {
		if c1, c2 := s[len(anon)], s[len(anon)+1]; (c1 == '.' || c1 == '_' || c1 == '$') && c2 == 'N' {
			id = sAnonymous
		}
	}
	d.lastName = d.mkName(id)
	return d.lastName
}

func (d *Demangler) operatorName() int32 {
	if len(d.str)-d.pos < 2 {
		d.fail()
	}
	c0, c1 := d.str[d.pos], d.str[d.pos+1]
	d.pos += 2
	if c0 == 'c' && c1 == 'v' {
		d.cast++
		t := d.demangleType()
		d.cast--
		return d.mk(kCast, t, -1, sref{})
	}
	op, ok := opRef[[2]byte{c0, c1}]
	if !ok {
		d.fail()
	}
	return d.mk(kOperator, -1, -1, op)
}

func (d *Demangler) closureTypeName() int32 {
	d.pos += 2
	if d.peek() == 'T' {
		switch d.at(1) {
		case 'y', 'k', 'n', 't', 'p':
			d.fail() // explicit template parameters
		}
	}
	if d.peek() == 'Q' {
		d.fail()
	}
	d.closure++
	lo, hi, _ := d.parmlist()
	d.closure--
	if d.peek() == 'Q' {
		d.fail()
	}
	d.expect('E')
	n := d.add(node{kind: kClosure, a: -1, b: -1, lo: lo, hi: hi})
	d.nodes[n].num = int32(d.compactNumber())
	return n
}

// discriminator skips a <discriminator>; GNU style does not print it.
func (d *Demangler) discriminator() {
	if d.peek() != '_' {
		return
	}
	d.pos++
	trailing := false
	if d.peek() == '_' {
		d.pos++
		trailing = true
	}
	if n := d.number(); trailing && n >= 10 {
		d.expect('_')
	}
}

func (d *Demangler) localName() int32 {
	d.expect('Z')
	fn := d.encoding(true)
	d.expect('E')
	var n int32
	switch d.peek() {
	case 's':
		d.pos++
		n = d.mkName(sStringLiteral)
	case 'd':
		d.fail()
	default:
		n = d.name()
	}
	d.discriminator()
	q := d.mk(kQual, fn, n, sref{})
	d.nodes[q].flag = 1
	return q
}

// signedNumber parses [n]<number> (call offsets).
func (d *Demangler) signedNumber() {
	if d.peek() == 'n' {
		d.pos++
	}
	d.number()
}

func (d *Demangler) callOffset(c byte) {
	switch c {
	case 'h':
		d.signedNumber()
	case 'v':
		d.signedNumber()
		d.expect('_')
		d.signedNumber()
	default:
		d.fail()
	}
	d.expect('_')
}

func (d *Demangler) specialName() int32 {
	c0, c1 := d.peek(), d.at(1)
	d.pos += 2
	var prefix sref
	var v int32
	switch {
	case c0 == 'T' && (c1 == 'V' || c1 == 'T' || c1 == 'I' || c1 == 'S'):
		prefix = map4(c1)
		v = d.demangleType()
	case c0 == 'T' && c1 == 'h':
		d.callOffset('h')
		prefix = sNVThunk
		v = d.encoding(false)
	case c0 == 'T' && c1 == 'v':
		d.callOffset('v')
		prefix = sVThunk
		v = d.encoding(false)
	case c0 == 'T' && c1 == 'c':
		d.callOffset(d.peek2())
		d.callOffset(d.peek2())
		prefix = sCovThunk
		v = d.encoding(false)
	case c0 == 'T' && c1 == 'H':
		prefix = sTLSInit
		v = d.name()
	case c0 == 'T' && c1 == 'W':
		prefix = sTLSWrapper
		v = d.name()
	case c0 == 'G' && c1 == 'V':
		prefix = sGuard
		v = d.name()
	case c0 == 'G' && c1 == 'A':
		prefix = sHiddenAlias
		v = d.encoding(false)
	case c0 == 'G' && c1 == 'T':
		prefix = sTxClone
		if d.peek2() == 'n' {
			prefix = sNonTxClone
		}
		v = d.encoding(false)
	default:
		d.fail()
	}
	return d.mk(kSpecial, v, -1, prefix)
}

// peek2 consumes and returns the next byte (0 at the end).
func (d *Demangler) peek2() byte {
	c := d.peek()
	if c != 0 {
		d.pos++
	}
	return c
}

func map4(c byte) sref {
	switch c {
	case 'V':
		return sVtable
	case 'T':
		return sVTT
	case 'I':
		return sTypeinfo
	}
	return sTypeinfoName
}

// parmlist parses <type>+ up to E, '.', a ref-qualifier or a constraint,
// dropping a lone void.
func (d *Demangler) parmlist() (lo, hi int32, hasTP bool) {
	from := len(d.tmp)
	for !d.eof() {
		c := d.peek()
		if c == 'E' || c == '.' || c == 'Q' || ((c == 'R' || c == 'O') && d.at(1) == 'E') {
			break
		}
		t := d.demangleType()
		d.tmp = append(d.tmp, t)
	}
	if len(d.tmp) == from {
		d.fail()
	}
	if len(d.tmp)-from == 1 {
		if n := &d.nodes[d.tmp[from]]; n.kind == kBuiltin && n.s == builtinRef['v'] {
			d.tmp = d.tmp[:from]
		}
	}
	return d.list(from)
}

func (d *Demangler) bareFunctionType(hasRet bool) int32 {
	if d.peek() == 'J' {
		hasRet = true
		d.pos++
	}
	ret := int32(-1)
	if hasRet {
		ret = d.demangleType()
	}
	lo, hi, tp := d.parmlist()
	return d.add(node{kind: kFunc, a: ret, b: -1, lo: lo, hi: hi, hasTP: tp || (ret >= 0 && d.nodes[ret].hasTP)})
}

func (d *Demangler) functionType() int32 {
	d.expect('F')
	if d.peek() == 'Y' {
		d.pos++
	}
	ft := d.bareFunctionType(true)
	ref := int32(0)
	switch d.peek() {
	case 'R':
		ref = 1
		d.pos++
	case 'O':
		ref = 2
		d.pos++
	}
	if ref != 0 {
		ft = d.mk(kMWQ, ft, -1, sref{})
		d.nodes[ft].num = ref
	}
	d.expect('E')
	return ft
}

func (d *Demangler) demangleType() int32 {
	d.enter()
	defer d.leave()
	if d.eof() {
		d.fail()
	}
	addSubst := true
	q := d.cvQualifiers()
	if q != 0 {
		if d.eof() {
			d.fail()
		}
		if d.peek() == 'F' {
			addSubst = false
		}
	}
	c := d.peek()
	if bt := builtinRef[c&0x7f]; c < 0x80 && !bt.empty() {
		d.pos++
		ret := d.mk(kBuiltin, -1, -1, bt)
		if q != 0 {
			ret = d.mkQual(kTWQ, ret, q)
			d.addSub(ret)
		}
		return ret
	}
	var ret int32
	switch {
	case c == 'F':
		ret = d.functionType()
	case c == 'N' || c == 'Z' || isDigit(c):
		ret = d.name()
	case c == 'A':
		ret = d.arrayType()
	case c == 'M':
		d.pos++
		cl := d.demangleType()
		mem := d.demangleType()
		ret = d.mk(kPtrMem, cl, mem, sref{})
	case c == 'T':
		switch d.at(1) {
		case 's', 'u', 'e':
			d.fail()
		}
		ret = d.templateParam()
		if d.peek() == 'I' {
			d.addSub(ret)
			ret = d.templateArgs(ret, kTemplate)
		}
	case c == 'S':
		c2 := d.at(1)
		if isDigit(c2) || c2 == '_' || isUpper(c2) {
			ret = d.substitution(false)
			if d.peek() != 'I' {
				addSubst = false
			} else {
				ret = d.templateArgs(ret, kTemplate)
			}
		} else {
			d.abbrev = -1
			ret = d.name()
			if ret == d.abbrev {
				addSubst = false
			}
		}
	case c == 'P' || c == 'R' || c == 'O':
		d.pos++
		t := d.demangleType()
		k := kPtr
		if c == 'R' {
			k = kRef
		} else if c == 'O' {
			k = kRRef
		}
		ret = d.mk(k, t, -1, sref{})
	case c == 'D':
		c2 := d.at(1)
		d.pos += 2
		addSubst = false
		switch c2 {
		case 'p':
			t := d.demangleType()
			ret = d.mk(kPackExp, t, d.findArgumentPack(t), sref{})
			addSubst = true
		case 'a':
			ret = d.mkName(sAuto)
		case 'c':
			ret = d.mkName(sDecltypeAuto)
		case 'f':
			ret = d.mk(kBuiltin, -1, -1, sDecimal32)
		case 'd':
			ret = d.mk(kBuiltin, -1, -1, sDecimal64)
		case 'e':
			ret = d.mk(kBuiltin, -1, -1, sDecimal128)
		case 'h':
			ret = d.mk(kBuiltin, -1, -1, sHalf)
		case 'u':
			ret = d.mk(kBuiltin, -1, -1, sChar8)
		case 's':
			ret = d.mk(kBuiltin, -1, -1, sChar16)
		case 'i':
			ret = d.mk(kBuiltin, -1, -1, sChar32)
		case 'n':
			ret = d.mk(kBuiltin, -1, -1, sNullptr)
		default:
			d.fail()
		}
	default:
		d.fail()
	}
	if addSubst {
		d.addSub(ret)
	}
	if q != 0 {
		switch n := d.nodes[ret]; n.kind {
		case kFunc:
			if c != 'F' {
				d.fail() // a qualified substitution of a function type
			}
			ret = d.mkQual(kMWQ, ret, q)
		case kTWQ:
			// Qualifiers on a qualified type (a substitution, an array
			// with qualified elements): binutils prints the inner ones
			// first, then these, as one list would print.
			qq, ok := stackQuals(n.flag, q)
			if !ok || d.nodes[n.a].kind == kArray {
				d.fail()
			}
			ret = d.mkQual(kTWQ, n.a, qq)
		case kMWQ:
			d.fail() // the library merges into the shared node in place
		default:
			ret = d.mkQual(kTWQ, ret, q)
		}
		d.addSub(ret)
	}
	return ret
}

func (d *Demangler) arrayType() int32 {
	d.expect('A')
	start := d.pos
	for isDigit(d.peek()) {
		d.pos++
	}
	dim := d.in(start, d.pos)
	d.expect('_')
	t := d.demangleType()
	if n := d.nodes[t]; n.kind == kTWQ {
		arr := d.mk(kArray, n.a, -1, dim)
		return d.mkQual(kTWQ, arr, n.flag)
	}
	return d.mk(kArray, t, -1, dim)
}

func (d *Demangler) templateParam() int32 {
	d.expect('T')
	if d.peek() == 'L' {
		d.fail()
	}
	i := d.compactNumber()
	if d.cast > 0 || d.closure > 0 || d.tmpl < 0 || d.tdepth != 1 {
		d.fail()
	}
	t := &d.nodes[d.tmpl]
	if i >= int(t.hi-t.lo) {
		d.fail()
	}
	arg := d.lists[int(t.lo)+i]
	return d.add(node{kind: kTParam, a: arg, b: -1, hasTP: true})
}

// seqID parses <seq-id> _ as the substitution index.
func (d *Demangler) seqID() int {
	if d.peek() == '_' {
		d.pos++
		return 0
	}
	id := 0
	for {
		if id >= 0x80000000/36-36 {
			d.fail()
		}
		c := d.peek()
		switch {
		case c == '_':
			d.pos++
			return id + 1
		case isDigit(c):
			id = id*36 + int(c-'0')
		case isUpper(c):
			id = id*36 + int(c-'A') + 10
		default:
			d.fail()
		}
		d.pos++
	}
}

func (d *Demangler) substitution(forPrefix bool) int32 {
	d.expect('S')
	c := d.peek()
	if c == '_' || isDigit(c) || isUpper(c) {
		id := d.seqID()
		if id >= len(d.subs) {
			d.fail()
		}
		s := d.subs[id]
		if d.nodes[s.n].hasTP && (s.scope != d.scope || d.closure > 0 || d.cast > 0) {
			d.fail()
		}
		return s.n
	}
	if c == 0 {
		d.fail()
	}
	d.pos++
	verbose := forPrefix && (d.peek() == 'C' || d.peek() == 'D')
	a := d.stdAbbrev(c, verbose)
	if d.peek() == 'B' {
		a = d.taggedName(a)
		d.addSub(a)
	} else {
		d.abbrev = a
	}
	return a
}

func (d *Demangler) stdQual(name sref) int32 {
	return d.mk(kQual, d.mkName(sStd), d.mkName(name), sref{})
}

func (d *Demangler) charTraits() int32 {
	d.tmp = append(d.tmp, d.mk(kBuiltin, -1, -1, builtinRef['c']))
	return d.templateOf(d.stdQual(sCharTraits), len(d.tmp)-1)
}

func (d *Demangler) templateOf(name int32, from int) int32 {
	lo, hi, _ := d.list(from)
	return d.add(node{kind: kTemplate, a: name, b: -1, lo: lo, hi: hi})
}

// stdAbbrev builds the node of a standard abbreviation; verbose is the
// full template form the library uses before a constructor/destructor.
func (d *Demangler) stdAbbrev(c byte, verbose bool) int32 {
	switch c {
	case 't':
		return d.mkName(sStd)
	case 'a':
		d.lastName = d.mkName(sAllocator)
		return d.stdQual(sAllocator)
	case 'b':
		d.lastName = d.mkName(sBasicString)
		return d.stdQual(sBasicString)
	}
	var short, long sref
	switch c {
	case 's':
		short, long = sString, sBasicString
	case 'i':
		short, long = sIstream, sBasicIstream
	case 'o':
		short, long = sOstream, sBasicOstream
	case 'd':
		short, long = sIostream, sBasicIostream
	default:
		d.fail()
	}
	d.lastName = d.mkName(long)
	if !verbose {
		return d.stdQual(short)
	}
	from := len(d.tmp)
	d.tmp = append(d.tmp, d.mk(kBuiltin, -1, -1, builtinRef['c']))
	ct := d.charTraits()
	d.tmp = append(d.tmp, ct)
	if c == 's' {
		d.tmp = append(d.tmp, d.mk(kBuiltin, -1, -1, builtinRef['c']))
		al := d.templateOf(d.stdQual(sAllocator), len(d.tmp)-1)
		d.tmp = append(d.tmp, al)
	}
	return d.templateOf(d.stdQual(long), from)
}

// templateArgs parses I/J <template-arg>* E into a node of kind k
// (kTemplate with name, or kPack).
func (d *Demangler) templateArgs(name int32, k kind) int32 {
	d.enter()
	defer d.leave()
	d.pos++             // I or J
	saved := d.lastName // binutils: template arguments do not name constructors
	from := len(d.tmp)
	for d.peek() != 'E' {
		if d.eof() {
			d.fail()
		}
		arg := d.templateArg()
		d.tmp = append(d.tmp, arg)
		if d.peek() == 'Q' {
			d.fail()
		}
	}
	d.pos++
	d.lastName = saved
	lo, hi, tp := d.list(from)
	return d.add(node{kind: k, a: name, b: -1, lo: lo, hi: hi, hasTP: tp || (name >= 0 && d.nodes[name].hasTP)})
}

func (d *Demangler) templateArg() int32 {
	switch d.peek() {
	case 'X':
		d.pos++
		e := d.expression()
		d.expect('E')
		return e
	case 'L':
		return d.exprPrimary()
	case 'I', 'J':
		return d.templateArgs(-1, kPack)
	case 'T':
		switch d.at(1) {
		case 'y', 'n', 't', 'p', 'k':
			d.fail()
		}
	}
	return d.demangleType()
}

// expression parses the few <expression> forms template arguments of
// library code use: literals, template parameters, pack expansions of
// them, and names with template arguments (is_invocable_r_v<...>). Any
// other expression is left to the library.
func (d *Demangler) expression() int32 {
	d.enter()
	defer d.leave()
	switch c := d.peek(); {
	case c == 'L':
		return d.exprPrimary()
	case c == 'T':
		return d.templateParam()
	case c == 's' && d.at(1) == 'p':
		d.pos += 2
		e := d.expression()
		return d.mk(kPackExp, e, d.findArgumentPack(e), sref{})
	case c == 's' && d.at(1) == 'r':
		d.pos += 2
		return d.unresolvedName()
	case isDigit(c):
		n := d.sourceName()
		if d.peek() == 'B' {
			n = d.taggedName(n)
		}
		if d.peek() == 'I' {
			n = d.templateArgs(n, kTemplate)
		}
		return n
	}
	d.fail()
	return -1
}

// unresolvedName parses the sr forms of <unresolved-name> after "sr":
// a type or a sequence of (templated) names, then a simple name, as in
// enable_if<has_traits<T>::value>.
func (d *Demangler) unresolvedName() int32 {
	switch d.peek() {
	case 'T', 'D', 'S':
		t := d.demangleType()
		return d.mk(kQual, t, d.baseUnresolvedName(), sref{})
	case 'N':
		d.fail()
	}
	// binutils reads the qualifiers as a <prefix> that adds no
	// substitution candidates (the library adds them, which shifts the
	// numbering of every later S<n>_).
	s := int32(-1)
	for d.peek() != 'E' {
		n := d.sourceName()
		if d.peek() == 'I' {
			n = d.templateArgs(n, kTemplate)
		}
		if s < 0 {
			s = n
		} else {
			s = d.mk(kQual, s, n, sref{})
		}
	}
	if s < 0 {
		d.fail()
	}
	d.pos++
	return d.mk(kQual, s, d.baseUnresolvedName(), sref{})
}

// baseUnresolvedName parses <simple-id>; operator and destructor forms
// are left to the library.
func (d *Demangler) baseUnresolvedName() int32 {
	n := d.sourceName()
	if d.peek() == 'I' {
		n = d.templateArgs(n, kTemplate)
	}
	return n
}

func (d *Demangler) exprPrimary() int32 {
	d.expect('L')
	var ret int32
	if c := d.peek(); c == '_' || c == 'Z' {
		if c == '_' {
			d.pos++
		}
		d.expect('Z')
		ret = d.encoding(false)
	} else {
		t := d.demangleType()
		neg := false
		if d.peek() == 'n' {
			neg = true
			d.pos++
		}
		if d.peek() == 'E' {
			if n := d.nodes[t]; n.kind != kBuiltin || n.s != sNullptr {
				d.fail()
			}
		}
		start := d.pos
		for !d.eof() && d.peek() != 'E' {
			d.pos++
		}
		ret = d.mk(kLiteral, t, -1, d.in(start, d.pos))
		if neg {
			d.nodes[ret].flag = 1
		}
	}
	d.expect('E')
	return ret
}

// findArgumentPack finds the argument pack a pack expansion of a expands
// over: the first template parameter in a bound to a pack (-1: none).
func (d *Demangler) findArgumentPack(a int32) int32 {
	d.enter()
	defer d.leave()
	if a < 0 {
		return -1
	}
	n := &d.nodes[a]
	switch n.kind {
	case kTParam:
		if d.nodes[n.a].kind == kPack {
			return n.a
		}
		return -1
	case kPackExp, kClosure, kName, kTagged, kOperator, kBuiltin, kUnnamed:
		return -1
	}
	if p := d.findArgumentPack(n.a); p >= 0 {
		return p
	}
	if p := d.findArgumentPack(n.b); p >= 0 {
		return p
	}
	for i := n.lo; i < n.hi; i++ {
		if p := d.findArgumentPack(d.lists[i]); p >= 0 {
			return p
		}
	}
	return -1
}
