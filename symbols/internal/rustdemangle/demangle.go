package rustdemangle

import (
	"strconv"
	"strings"
)

// MaxOutput bounds the bytes Append adds for one name. Real symbols
// demangle to a few KB at most; backreferences let a short hostile name
// expand exponentially.
const MaxOutput = 1 << 20

// maxSteps bounds the parse steps (paths, types, consts) for one name,
// for the same reason as MaxOutput.
const maxSteps = 1 << 21

// maxRecursion is binutils' RUST_MAX_RECURSION_COUNT: nesting deeper
// than this fails there, so it fails here.
const maxRecursion = 1024

// IsRust reports whether binutils treats mangled as a Rust symbol, i.e.
// whether Append succeeds on it. It runs the whole demangler but only
// counts the bytes it would print.
func IsRust(mangled string) bool {
	d := demangler{measure: true}
	return d.run(mangled)
}

// Append appends the demangled form of mangled to dst. ok is false, and
// dst is returned as it was (spare capacity may have been written), when
// binutils would not demangle mangled as Rust: it is not _R or _ZN, a _ZN
// name lacks the legacy 17h<16 hex>E hash tail (a C++ name), or the name
// is malformed. Append is safe for concurrent use.
func Append(dst []byte, mangled string) ([]byte, bool) {
	d := demangler{out: dst, base: len(dst)}
	if !d.run(mangled) {
		return dst, false
	}
	return d.out, true
}

// demangler is the whole state of one call; it lives on the caller's
// stack.
type demangler struct {
	sym  string // the name after its _R or _ZN prefix, without suffixes
	next int    // read position in sym

	out  []byte
	base int // len(out) when the call started

	errored  bool // sticky: any error fails the whole name
	skipping bool // parse without printing (the instantiating crate)
	measure  bool // count output in n instead of appending (IsRust)
	n        int

	recursion  int
	steps      int
	boundDepth uint64 // lifetimes bound by enclosing for<...> binders
}

func (d *demangler) run(s string) bool {
	// C strings end at NUL; so does the name binutils sees.
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if len(s) < 3 || s[0] != '_' {
		return false
	}
	if s[1] == 'R' {
		return d.v0(s[2:])
	}
	if s[1] == 'Z' && s[2] == 'N' {
		return d.legacy(s[3:])
	}
	return false
}

// grow accounts for k more output bytes and reports whether they are to
// be appended to out.
func (d *demangler) grow(k int) bool {
	if d.errored || d.skipping {
		return false
	}
	if d.measure {
		d.n += k
		if d.n > MaxOutput {
			d.errored = true
		}
		return false
	}
	if len(d.out)-d.base+k > MaxOutput {
		d.errored = true
		return false
	}
	return true
}

func (d *demangler) print(s string) {
	if d.grow(len(s)) {
		d.out = append(d.out, s...)
	}
}

func (d *demangler) printByte(c byte) {
	if d.grow(1) {
		d.out = append(d.out, c)
	}
}

func (d *demangler) printUint(x uint64, base int) {
	var tmp [20]byte
	d.print(string(strconv.AppendUint(tmp[:0], x, base)))
}

// Byte classes, one table lookup per test in the hot loops.
const (
	cDigit  = 1 << iota
	cLower  // a-z
	cUpper  // A-Z
	cV0     // may appear in a v0 name: [_0-9a-zA-Z]
	cLegacy // may appear in a legacy name: v0's and [$.:@]
)

var classes = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit | cV0 | cLegacy
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = cLower | cV0 | cLegacy
		t[c-'a'+'A'] = cUpper | cV0 | cLegacy
	}
	t['_'] = cV0 | cLegacy
	for _, c := range "$.:@" {
		t[c] = cLegacy
	}
	return t
}()

func isDigit(c byte) bool { return classes[c]&cDigit != 0 }
func isLower(c byte) bool { return classes[c]&cLower != 0 }
func isUpper(c byte) bool { return classes[c]&cUpper != 0 }

// hexNibble is the value of a lowercase hex digit, or -1.
func hexNibble(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
