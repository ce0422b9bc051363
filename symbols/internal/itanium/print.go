package itanium

import "strconv"

// The printer is the GNU-style printer of libiberty as the library
// implements it: a type that is printed inside-out (pointer, reference,
// qualifier, array, function, member pointer) pushes itself on the inner
// stack, prints its base, and if the base did not consume it, prints its
// own part afterwards. A Typed name or a template argument list starts a
// new, empty inner stack (floor).

// w appends s; the output bound is checked once per printed node in
// print, which suffices since one node prints at most an input-sized
// string.
func (d *Demangler) w(s string) { d.out = append(d.out, s...) }

func (d *Demangler) wb(b byte) { d.out = append(d.out, b) }

func (d *Demangler) last() byte {
	if len(d.out) == d.ghost {
		return ' '
	}
	if len(d.out) > d.start {
		return d.out[len(d.out)-1]
	}
	return 0
}

func (d *Demangler) wnum(n int32) {
	d.out = strconv.AppendInt(d.out, int64(n), 10)
}

// resolve replaces a template parameter by its argument (or, inside a
// pack expansion, by the current element of the pack).
func (d *Demangler) resolve(n int32) int32 {
	for i := 0; d.nodes[n].kind == kTParam; i++ {
		if i > maxDepth {
			d.fail()
		}
		arg := d.nodes[n].a
		if p := &d.nodes[arg]; p.kind == kPack {
			if d.packElem >= p.hi-p.lo {
				d.fail()
			}
			return d.lists[p.lo+d.packElem]
		}
		n = arg
	}
	return n
}

func (d *Demangler) push(n int32) { d.inner = append(d.inner, n) }

func (d *Demangler) pop() { d.inner = d.inner[:len(d.inner)-1] }

func (d *Demangler) hasInner() bool { return len(d.inner) > d.floor }

func (d *Demangler) print(n int32) {
	n = d.resolve(n)
	if k := d.nodes[n].kind; k == kName || k == kBuiltin {
		// Leaves: nothing to track.
		d.out = append(d.out, d.text(d.nodes[n].s)...)
		return
	}
	d.pdepth++
	if d.pdepth > 4*maxDepth || len(d.out)-d.start > maxOutput {
		d.fail()
	}
	// The library prints a node at most twice on the current print path
	// (a substitution can make a type contain itself via inner types).
	if d.nodes[n].active >= 2 {
		d.pdepth--
		return
	}
	d.nodes[n].active++
	d.print1(n)
	d.nodes[n].active--
	d.pdepth--
}

func (d *Demangler) print1(n int32) {
	nd := d.nodes[n] // copy: printing may add synthesized nodes
	switch nd.kind {
	case kName, kBuiltin:
		d.w(d.text(nd.s))
	case kQual:
		d.print(nd.a)
		d.w("::")
		d.print(nd.b)
	case kTemplate:
		floor, ln := d.floor, len(d.inner)
		d.floor = ln
		d.print(nd.a)
		if d.last() == '<' {
			d.wb(' ')
		}
		d.wb('<')
		d.printList(nd.lo, nd.hi)
		if d.last() == '>' {
			d.wb(' ')
		}
		d.wb('>')
		d.inner = d.inner[:ln]
		d.floor = floor
	case kTagged:
		d.print(nd.a)
		d.w("[abi:")
		d.print(nd.b)
		d.wb(']')
	case kCtor:
		d.print(nd.a)
	case kDtor:
		d.wb('~')
		d.print(nd.a)
	case kOperator:
		d.w("operator")
		s := d.text(nd.s)
		if isLower(s[0]) {
			d.wb(' ')
		}
		if s[len(s)-1] == ' ' {
			s = s[:len(s)-1]
		}
		d.w(s)
	case kCast:
		d.w("operator ")
		d.print(nd.a)
	case kClosure:
		d.w("{lambda(")
		d.printList(nd.lo, nd.hi)
		d.w(")#")
		d.wnum(nd.num + 1)
		d.wb('}')
	case kUnnamed:
		d.w("{unnamed type#")
		d.wnum(nd.num + 1)
		d.wb('}')
	case kTyped:
		floor, ln := d.floor, len(d.inner)
		d.floor = ln
		d.push(n)
		d.print(nd.b)
		if d.hasInner() {
			d.wb(' ')
			d.print(nd.a)
		}
		d.inner = d.inner[:ln]
		d.floor = floor
	case kFunc:
		if nd.a >= 0 && nd.flag == 0 {
			d.push(n)
			d.print(nd.a)
			if !d.hasInner() {
				return
			}
			d.pop()
			d.wb(' ')
		}
		d.printArgs(n)
	case kPtr, kRef, kRRef:
		base := nd.a
		if nd.kind != kPtr {
			b := d.resolve(base)
			if bk := d.nodes[b].kind; b == base && (bk == kRef || bk == kRRef) {
				// A reference to a reference spelled out in the name (never
				// emitted by compilers): the library collapses only the
				// first occurrence of a shared node, so leave it to it.
				d.fail()
			}
			switch bk := d.nodes[b].kind; {
			case bk == nd.kind || (bk == kRef && nd.kind == kRRef):
				d.print(b)
				return
			case bk == kRRef && nd.kind == kRef:
				d.print(d.mk(kRef, d.nodes[b].a, -1, sref{}))
				return
			}
		}
		d.push(n)
		d.print(base)
		if d.hasInner() {
			d.printInnerOf(n)
			d.pop()
		}
	case kTWQ:
		switch b := d.resolve(nd.a); d.nodes[b].kind {
		case kTWQ:
			if b == nd.a {
				d.fail() // merged while parsing; cannot happen
			}
			// A qualified template parameter whose argument is
			// qualified: binutils prints the argument's qualifiers,
			// then the parameter's.
			qq, ok := stackQuals(d.nodes[b].flag, nd.flag)
			if !ok {
				d.fail()
			}
			d.print(d.mkQual(kTWQ, d.nodes[b].a, qq))
			return
		case kFunc, kMWQ:
			d.fail() // the library rewrites these while simplifying
		case kArray:
			if nd.flag > 3 {
				// Two or more qualifiers pending over an array: binutils
				// hands them down to the element type in reverse order.
				d.fail()
			}
		}
		d.push(n)
		d.print(nd.a)
		if d.hasInner() {
			d.wb(' ')
			d.w(d.text(nd.s))
			if d.hasInner() {
				d.pop()
			}
		}
	case kMWQ:
		switch d.nodes[d.resolve(nd.a)].kind {
		case kTWQ, kMWQ:
			d.fail()
		}
		d.push(n)
		d.print(nd.a)
		if d.hasInner() {
			d.mwqSuffix(nd)
			d.pop()
		}
	case kArray:
		if d.nodes[d.resolve(nd.a)].kind == kTWQ {
			d.fail()
		}
		d.push(n)
		d.print(nd.a)
		if d.hasInner() {
			d.pop()
			d.printDimension(nd)
		}
	case kPtrMem:
		switch d.nodes[d.resolve(nd.a)].kind {
		case kName, kQual, kTemplate, kTagged:
		default:
			// A member pointer into a function, pointer or builtin type
			// (only mutated names have one): binutils and the library
			// print the nesting differently.
			d.fail()
		}
		d.push(n)
		d.print(nd.b)
		if d.hasInner() {
			d.printOneInner(false)
		}
	case kPack:
		d.printList(nd.lo, nd.hi)
	case kPackExp:
		if nd.b < 0 || d.packNode >= 0 {
			d.fail()
		}
		p := d.nodes[nd.b]
		for i := int32(0); i < p.hi-p.lo; i++ {
			if i > 0 {
				d.w(", ")
			}
			d.packNode, d.packElem = nd.b, i
			d.print(nd.a)
			d.packNode = -1
		}
	case kLiteral:
		d.printLiteral(nd)
	case kSpecial:
		d.w(d.text(nd.s))
		d.print(nd.a)
	case kClone:
		d.print(nd.a)
		d.w(" [clone ")
		d.w(d.text(nd.s))
		d.wb(']')
	default:
		d.fail()
	}
}

func (d *Demangler) mwqSuffix(nd node) {
	if !nd.s.empty() {
		d.wb(' ')
		d.w(d.text(nd.s))
	}
	switch nd.num {
	case 1:
		d.w(" &")
	case 2:
		d.w(" &&")
	}
}

func (d *Demangler) printLiteral(nd node) {
	t := d.resolve(nd.a)
	isFloat := false
	if tn := d.nodes[t]; tn.kind == kBuiltin {
		suffix, isInt := "", true
		switch tn.s {
		case builtinRef['i']:
		case builtinRef['j']:
			suffix = "u"
		case builtinRef['l']:
			suffix = "l"
		case builtinRef['m']:
			suffix = "ul"
		case builtinRef['x']:
			suffix = "ll"
		case builtinRef['y']:
			suffix = "ull"
		default:
			isInt = false
		}
		val := d.text(nd.s)
		switch {
		case isInt:
			if nd.flag == 1 {
				d.wb('-')
			}
			d.w(val)
			d.w(suffix)
			return
		case tn.s == builtinRef['b'] && nd.flag == 0 && (val == "0" || val == "1"):
			if val == "0" {
				d.w("false")
			} else {
				d.w("true")
			}
			return
		case tn.s == sNullptr && val == "":
			if nd.flag == 1 {
				d.fail()
			}
			d.print(t)
			return
		case tn.s == builtinRef['d'] || tn.s == builtinRef['e'] || tn.s == builtinRef['f'] || tn.s == builtinRef['g']:
			isFloat = true
		}
	}
	d.wb('(')
	d.print(nd.a)
	d.wb(')')
	if nd.flag == 1 {
		d.wb('-')
	}
	if isFloat {
		d.wb('[')
	}
	d.w(d.text(nd.s))
	if isFloat {
		d.wb(']')
	}
}

// printList prints a template argument, parameter or pack list the way
// binutils prints its cons list: element, then ", " and the rest of the
// list, taking the ", " back if the rest printed nothing (only empty
// packs print nothing). So an empty pack prints as nothing at the end
// (<a>), but as an empty element before others (<a, , b>, <, b>).
func (d *Demangler) printList(lo, hi int32) {
	if lo >= hi {
		return
	}
	d.print(d.lists[lo])
	if lo+1 < hi {
		d.w(", ")
		n := len(d.out)
		d.printList(lo+1, hi)
		if len(d.out) == n {
			d.out = d.out[:n-2]
			d.ghost = n - 2
		}
	}
}

// printInnerOf prints n's part as an inner type.
func (d *Demangler) printInnerOf(n int32) {
	nd := d.nodes[n]
	switch nd.kind {
	case kTyped:
		d.print(nd.a)
	case kTWQ:
		d.wb(' ')
		d.w(d.text(nd.s))
	case kMWQ:
		d.mwqSuffix(nd)
	case kPtr:
		d.wb('*')
	case kRef:
		d.wb('&')
	case kRRef:
		d.w("&&")
	case kArray:
		d.printDimension(nd)
	case kFunc:
		d.printArgs(n)
	case kPtrMem:
		if d.last() != '(' {
			d.wb(' ')
		}
		d.print(nd.a)
		d.w("::*")
	default:
		d.print(n)
	}
}

// printOneInner pops and prints the innermost pending inner type; when
// prefixOnly, method qualifiers are set aside on d.saved instead.
func (d *Demangler) printOneInner(prefixOnly bool) {
	a := d.inner[len(d.inner)-1]
	d.pop()
	if prefixOnly && d.nodes[a].kind == kMWQ {
		d.saved = append(d.saved, a)
		return
	}
	d.printInnerOf(a)
}

func (d *Demangler) printInner(prefixOnly bool) {
	for d.hasInner() {
		d.printOneInner(prefixOnly)
	}
}

func (d *Demangler) printDimension(nd node) {
	space := " "
	for d.hasInner() {
		top := d.inner[len(d.inner)-1]
		in := top
		if d.nodes[in].kind == kTWQ {
			in = d.resolve(d.nodes[in].a)
		}
		if d.nodes[in].kind == kArray {
			if in == top {
				space = ""
			}
			d.printOneInner(false)
		} else {
			d.wb(' ')
			d.wb('(')
			d.printInner(false)
			d.wb(')')
		}
	}
	d.w(space)
	d.wb('[')
	d.w(d.text(nd.s))
	d.wb(']')
}

func (d *Demangler) printArgs(n int32) {
	paren, space := false, false
	for i := len(d.inner) - 1; i >= d.floor; i-- {
		switch d.nodes[d.inner[i]].kind {
		case kPtr, kRef, kRRef:
			paren = true
		case kTWQ, kPtrMem:
			space, paren = true, true
		}
		if paren {
			break
		}
	}
	if paren {
		if !space && d.last() != '(' && d.last() != '*' {
			space = true
		}
		if space && d.last() != ' ' {
			d.wb(' ')
		}
		d.wb('(')
	}
	from := len(d.saved)
	d.printInner(true)
	if paren {
		d.wb(')')
	}
	d.wb('(')
	nd := d.nodes[n]
	d.printList(nd.lo, nd.hi)
	d.wb(')')
	d.inner = append(d.inner, d.saved[from:]...)
	d.saved = d.saved[:from]
	d.printInner(false)
}
