package rustdemangle

// v0 demangles the part of a v0 name after "_R": a path, then optionally
// the instantiating crate (parsed, not printed); a '.' and anything
// after it (.llvm.NNN) is dropped.
func (d *demangler) v0(sym string) bool {
	if len(sym) == 0 || !isUpper(sym[0]) {
		return false
	}
	n := 0
	for ; n < len(sym) && sym[n] != '.'; n++ {
		if classes[sym[n]]&cV0 == 0 {
			return false
		}
	}
	d.sym = sym[:n]
	d.path(true)
	if !d.errored && d.next < len(d.sym) {
		d.skipping = true
		d.path(false)
	}
	return !d.errored && d.next == len(d.sym)
}

func (d *demangler) peek() byte {
	if uint(d.next) < uint(len(d.sym)) {
		return d.sym[d.next]
	}
	return 0
}

func (d *demangler) eat(c byte) bool {
	if d.peek() == c {
		d.next++
		return true
	}
	return false
}

// nextByte consumes one byte; at the end it fails the name and returns 0.
func (d *demangler) nextByte() byte {
	c := d.peek()
	if c == 0 {
		d.errored = true
		return 0
	}
	d.next++
	return c
}

// enter counts one level of nesting and one step; false means a bound
// was hit and the name has failed. Every successful enter is paired with
// a leave.
func (d *demangler) enter() bool {
	d.recursion++
	d.steps++
	if d.recursion > maxRecursion || d.steps > maxSteps {
		d.errored = true
		return false
	}
	return true
}

func (d *demangler) leave() { d.recursion-- }

// seek moves to a backreference target; targets past the end fail on
// the next read, as in binutils.
func (d *demangler) seek(pos uint64) {
	if pos > uint64(len(d.sym)) {
		pos = uint64(len(d.sym))
	}
	d.next = int(pos)
}

// int62 reads a base-62 number terminated by '_' ("_" is 0, "0_" is 1).
// Overflow wraps, as binutils' uint64_t does.
func (d *demangler) int62() uint64 {
	if d.eat('_') {
		return 0
	}
	var x uint64
	for !d.eat('_') && !d.errored {
		c := d.nextByte()
		x *= 62
		switch {
		case isDigit(c):
			x += uint64(c - '0')
		case isLower(c):
			x += 10 + uint64(c-'a')
		case isUpper(c):
			x += 36 + uint64(c-'A')
		default:
			d.errored = true
			return 0
		}
	}
	return x + 1
}

func (d *demangler) optInt62(tag byte) uint64 {
	if !d.eat(tag) {
		return 0
	}
	return 1 + d.int62()
}

func (d *demangler) disambiguator() uint64 { return d.optInt62('s') }

// ident is a parsed v0 identifier: ascii, then, when punycode is set,
// the punycode deltas that insert non-ASCII code points into it.
type ident struct {
	ascii, puny string
	punycode    bool
}

func (id ident) empty() bool { return id.ascii == "" && !id.punycode }

func (d *demangler) ident() ident {
	var id ident
	id.punycode = d.eat('u')
	c := d.nextByte()
	if !isDigit(c) {
		d.errored = true
		return id
	}
	n := uint64(c - '0')
	if c != '0' {
		for isDigit(d.peek()) {
			n = n*10 + uint64(d.nextByte()-'0')
		}
	}
	// The optional separator before an identifier starting with a digit
	// or '_'. binutils eats it after an empty identifier too.
	d.eat('_')
	start := d.next
	if n > uint64(len(d.sym)-start) {
		d.errored = true
		return id
	}
	d.next = start + int(n)
	s := d.sym[start:d.next]
	if !id.punycode {
		id.ascii = s
		return id
	}
	// The last '_' separates the ASCII part from the deltas.
	k := len(s) - 1
	for k >= 0 && s[k] != '_' {
		k--
	}
	if k < 0 {
		id.puny = s
	} else {
		id.ascii, id.puny = s[:k], s[k+1:]
	}
	if id.puny == "" {
		d.errored = true
	}
	return id
}

func (d *demangler) printIdent(id ident) {
	if d.errored || d.skipping {
		return
	}
	if !id.punycode {
		d.print(id.ascii)
		return
	}
	d.printPunycode(id.ascii, id.puny)
}

// printLifetime prints lifetime index lt: 0 is '_, 1 the innermost bound
// lifetime, and so on; bound lifetimes are named 'a to 'z, then '_26...
func (d *demangler) printLifetime(lt uint64) {
	d.printByte('\'')
	if lt == 0 {
		d.printByte('_')
		return
	}
	depth := d.boundDepth - lt
	if depth < 26 {
		d.printByte('a' + byte(depth))
	} else {
		d.printByte('_')
		d.printUint(depth, 10)
	}
}

// binder prints an optional for<'a, ...> and makes its lifetimes
// visible; the caller restores boundDepth after the bound item.
func (d *demangler) binder() {
	if d.errored {
		return
	}
	n := d.optInt62('G')
	if n == 0 {
		return
	}
	if d.skipping {
		d.boundDepth += n
		return
	}
	d.print("for<")
	for i := uint64(0); i < n && !d.errored; i++ {
		if i > 0 {
			d.print(", ")
		}
		d.boundDepth++
		d.printLifetime(1)
	}
	d.print("> ")
}

// path demangles a path. inValue is set for paths in value position,
// where generic arguments print as ::<...>.
func (d *demangler) path(inValue bool) {
	if d.errored || !d.enter() {
		return
	}
	defer d.leave()
	switch tag := d.nextByte(); tag {
	case 'C': // crate root; the disambiguator is only printed verbosely
		d.disambiguator()
		d.printIdent(d.ident())
	case 'N': // nested path in namespace ns
		ns := d.nextByte()
		if !isLower(ns) && !isUpper(ns) {
			d.errored = true
			return
		}
		d.path(inValue)
		dis := d.disambiguator()
		id := d.ident()
		if isUpper(ns) {
			// Special namespaces: closures, shims, and others by letter.
			d.print("::{")
			switch ns {
			case 'C':
				d.print("closure")
			case 'S':
				d.print("shim")
			default:
				d.printByte(ns)
			}
			if !id.empty() {
				d.printByte(':')
				d.printIdent(id)
			}
			d.printByte('#')
			d.printUint(dis, 10)
			d.printByte('}')
		} else if !id.empty() {
			d.print("::")
			d.printIdent(id)
		}
	case 'M', 'X', 'Y': // inherent impl, trait impl, trait definition
		if tag != 'Y' {
			// The impl's own path is parsed, not printed.
			d.disambiguator()
			was := d.skipping
			d.skipping = true
			d.path(inValue)
			d.skipping = was
		}
		d.printByte('<')
		d.typ()
		if tag != 'M' {
			d.print(" as ")
			d.path(false)
		}
		d.printByte('>')
	case 'I': // generic arguments
		d.path(inValue)
		if inValue {
			d.print("::")
		}
		d.printByte('<')
		for i := 0; !d.errored && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
		d.printByte('>')
	case 'B':
		d.backref(func() { d.path(inValue) })
	default:
		d.errored = true
	}
}

// backref parses a backreference and, when printing, demangles what it
// points at. binutils does not follow backreferences while skipping and
// accepts targets anywhere (even forward); the nesting bound stops loops.
func (d *demangler) backref(f func()) {
	pos := d.int62()
	if d.skipping {
		return
	}
	old := d.next
	d.seek(pos)
	f()
	d.next = old
}

func (d *demangler) genericArg() {
	switch {
	case d.eat('L'):
		d.printLifetime(d.int62())
	case d.eat('K'):
		d.konst()
	default:
		d.typ()
	}
}

// basicTypes maps a type tag to its name; "" is not a basic type.
var basicTypes = [256]string{
	'b': "bool", 'c': "char", 'e': "str", 'u': "()",
	'a': "i8", 's': "i16", 'l': "i32", 'x': "i64", 'n': "i128", 'i': "isize",
	'h': "u8", 't': "u16", 'm': "u32", 'y': "u64", 'o': "u128", 'j': "usize",
	'f': "f32", 'd': "f64", 'z': "!", 'p': "_", 'v': "...",
}

func (d *demangler) typ() {
	if d.errored {
		return
	}
	tag := d.nextByte()
	if b := basicTypes[tag]; b != "" {
		d.print(b)
		return
	}
	if !d.enter() {
		return
	}
	defer d.leave()
	switch tag {
	case 'R', 'Q': // &T, &mut T
		d.printByte('&')
		if d.eat('L') {
			if lt := d.int62(); lt != 0 {
				d.printLifetime(lt)
				d.printByte(' ')
			}
		}
		if tag == 'Q' {
			d.print("mut ")
		}
		d.typ()
	case 'P', 'O': // *const T, *mut T
		if tag == 'P' {
			d.print("*const ")
		} else {
			d.print("*mut ")
		}
		d.typ()
	case 'A', 'S': // [T; N], [T]
		d.printByte('[')
		d.typ()
		if tag == 'A' {
			d.print("; ")
			d.konst()
		}
		d.printByte(']')
	case 'T': // tuple
		d.printByte('(')
		i := 0
		for ; !d.errored && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.typ()
		}
		if i == 1 {
			d.printByte(',')
		}
		d.printByte(')')
	case 'F': // fn pointer
		old := d.boundDepth
		d.fnSig()
		d.boundDepth = old
	case 'D': // dyn Trait + ... + 'lifetime
		d.print("dyn ")
		old := d.boundDepth
		d.binder()
		for i := 0; !d.errored && !d.eat('E'); i++ {
			if i > 0 {
				d.print(" + ")
			}
			d.dynTrait()
		}
		d.boundDepth = old
		if !d.eat('L') {
			d.errored = true
			return
		}
		if lt := d.int62(); lt != 0 {
			d.print(" + ")
			d.printLifetime(lt)
		}
	case 'B':
		d.backref(d.typ)
	default:
		// A path names the type; let path read the tag again.
		d.next--
		d.path(false)
	}
}

func (d *demangler) fnSig() {
	d.binder()
	if d.eat('U') {
		d.print("unsafe ")
	}
	if d.eat('K') {
		var abi string
		if d.eat('C') {
			abi = "C"
		} else {
			id := d.ident()
			if id.ascii == "" || id.punycode {
				d.errored = true
				return
			}
			abi = id.ascii
		}
		d.print("extern \"")
		// '-' in ABI names was mangled as '_'. binutils restarts its scan
		// one byte past each '_' it rewrites, so "a__b" prints "a-_b".
		for i := 0; i < len(abi); i++ {
			if abi[i] == '_' {
				d.print(abi[:i])
				d.printByte('-')
				abi = abi[i+1:]
				i = 0
			}
		}
		d.print(abi)
		d.print("\" ")
	}
	d.print("fn(")
	for i := 0; !d.errored && !d.eat('E'); i++ {
		if i > 0 {
			d.print(", ")
		}
		d.typ()
	}
	d.printByte(')')
	if !d.eat('u') { // a () return type is not printed
		d.print(" -> ")
		d.typ()
	}
}

// pathMaybeOpenGenerics prints a dyn trait's path, leaving a final <...>
// open (returning true) so associated type bindings can join it.
func (d *demangler) pathMaybeOpenGenerics() bool {
	if d.errored || !d.enter() {
		return false
	}
	defer d.leave()
	open := false
	switch {
	case d.eat('B'):
		pos := d.int62()
		if !d.skipping {
			old := d.next
			d.seek(pos)
			open = d.pathMaybeOpenGenerics()
			d.next = old
		}
	case d.eat('I'):
		d.path(false)
		d.printByte('<')
		open = true
		for i := 0; !d.errored && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
	default:
		d.path(false)
	}
	return open
}

func (d *demangler) dynTrait() {
	if d.errored {
		return
	}
	open := d.pathMaybeOpenGenerics()
	for d.eat('p') {
		if open {
			d.print(", ")
		} else {
			d.printByte('<')
		}
		open = true
		d.printIdent(d.ident())
		d.print(" = ")
		d.typ()
	}
	if open {
		d.printByte('>')
	}
}

// konst demangles a const generic argument. binutils 2.40 knows
// placeholders, integers, bool and char; str and structural consts fail.
func (d *demangler) konst() {
	if d.errored || !d.enter() {
		return
	}
	defer d.leave()
	if d.eat('B') {
		d.backref(d.konst)
		return
	}
	switch ty := d.nextByte(); ty {
	case 'p':
		d.printByte('_')
	case 'h', 't', 'm', 'y', 'o', 'j':
		d.constUint()
	case 'a', 's', 'l', 'x', 'n', 'i':
		if d.eat('n') {
			d.printByte('-')
		}
		d.constUint()
	case 'b':
		v, n := d.hexNibbles()
		switch {
		case n != 1:
			d.errored = true
		case v == 0:
			d.print("false")
		case v == 1:
			d.print("true")
		default:
			d.errored = true
		}
	case 'c':
		v, n := d.hexNibbles()
		if n == 0 || n > 8 {
			d.errored = true
			return
		}
		d.printByte('\'')
		switch {
		case v == '\t':
			d.print(`\t`)
		case v == '\r':
			d.print(`\r`)
		case v == '\n':
			d.print(`\n`)
		case v > ' ' && v < '~': // sic: space and '~' are escaped
			d.printByte(byte(v))
		default:
			d.print(`\u{`)
			d.printUint(v, 16)
			d.printByte('}')
		}
		d.printByte('\'')
	default:
		d.errored = true
	}
}

// hexNibbles reads lowercase hex digits up to '_', returning their value
// (wrapping past 16 digits) and count.
func (d *demangler) hexNibbles() (uint64, int) {
	var v uint64
	n := 0
	for !d.eat('_') {
		v <<= 4
		h := hexNibble(d.nextByte())
		if h < 0 {
			d.errored = true
			return 0, 0
		}
		v |= uint64(h)
		n++
	}
	return v, n
}

func (d *demangler) constUint() {
	if d.errored {
		return
	}
	v, n := d.hexNibbles()
	switch {
	case n > 16:
		// binutils prints values wider than 64 bits as "0x" and the
		// digits from the second one through the terminating '_'.
		d.print("0x")
		d.print(d.sym[d.next-n : d.next])
	case n > 0:
		d.printUint(v, 10)
	default:
		d.errored = true
	}
}
