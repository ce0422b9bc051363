package itanium

import (
	"strings"
	"sync"
)

// Limits that keep hostile input cheap: parse recursion, print recursion
// and output size are all bounded, and exceeding any of them is ok=false.
const (
	maxDepth  = 200
	maxOutput = 1 << 16
	maxInput  = 1 << 14 // longer names (rare, and slow anyway) go to the library
)

// put returns d to the pool unless a hostile name made its arena large.
func put(d *Demangler) {
	if cap(d.nodes) <= 1<<16 && cap(d.out) <= 2*maxOutput && cap(d.buf) <= 2*maxOutput {
		pool.Put(d)
	}
}

type kind uint8

const (
	kName     kind = iota + 1 // s
	kBuiltin                  // s
	kQual                     // a::b; flag=1 for a local name
	kTemplate                 // a<list>
	kTagged                   // a[abi:s]
	kCtor                     // a
	kDtor                     // ~a
	kOperator                 // operator s
	kCast                     // operator a
	kClosure                  // {lambda(list)#num}
	kUnnamed                  // {unnamed type#num}
	kTyped                    // a is the name, b the type
	kFunc                     // a=return (-1: none), list=params, flag=1 for a local name
	kPtr                      // a*
	kRef                      // a&
	kRRef                     // a&&
	kTWQ                      // a s (s: "const", "volatile", ...)
	kMWQ                      // a s ref(num: 0, 1=&, 2=&&)
	kArray                    // a [s]
	kPtrMem                   // a=class, b=member
	kTParam                   // template parameter bound to argument a
	kPack                     // argument pack: list
	kPackExp                  // pack expansion of a over pack b (-1: none)
	kLiteral                  // (a)s, flag=1 when negative
	kSpecial                  // s a
	kClone                    // a [clone s]
)

// node is one arena entry. Children are indices into the arena; lists
// (template arguments, parameters) are ranges of Demangler.lists.
type node struct {
	kind   kind
	flag   uint8
	hasTP  bool  // contains a template parameter (substitution rebinding)
	active uint8 // how many times the node is on the print path
	a, b   int32
	lo, hi int32 // list range lists[lo:hi]
	num    int32
	s      sref
}

// failure is the panic value that unwinds a parse or print that cannot
// go on. Append recovers only this value, so a bug (an index out of
// range) still fails tests and fuzzing loudly instead of turning into a
// silent fallback.
type failure struct{}

// Demangler holds the reusable state of the fast path. Its zero value is
// ready to use; it is not safe for concurrent use.
type Demangler struct {
	str   string
	pos   int
	depth int

	nodes []node
	lists []int32
	tmp   []int32 // scratch for lists under construction
	subs  []sub

	// Template parameter scope: tmpl is the template whose arguments T_
	// refers to (-1: none), tdepth how many are stacked (only one level
	// is handled), scope an id for the current binding so substitutions
	// holding template parameters are only reused within it.
	tmpl    int32
	tdepth  int
	scope   int32
	nscope  int32
	closure int
	cast    int
	abbrev  int32 // the last bare standard abbreviation parsed
	// lastName is binutils' last_name: the last source name (or the
	// long name of a standard abbreviation) parsed outside template
	// arguments and ABI tags, which names a constructor or destructor.
	lastName int32

	// printing
	buf      []byte // String's scratch output
	out      []byte
	start    int
	inner    []int32
	floor    int
	saved    []int32
	pdepth   int
	packNode int32 // the pack being expanded (-1: none)
	// packElem is binutils' pack_index: which element of a pack a
	// template parameter bound to it prints. Binutils starts it at 0
	// and leaves it at the last element an expansion printed, so a
	// parameter bound to a pack outside any expansion prints one
	// element (and fails on an empty pack).
	packElem int32
	// ghost is the output length at which the last printed character
	// is a space although the output ends in something else: binutils
	// takes back the ", " before a list element that printed nothing
	// but not its record of the last character, so "A<int>" followed by
	// an empty pack closes with ">" instead of " >".
	ghost int
}

var pool = sync.Pool{New: func() any { return new(Demangler) }}

// Append appends the demangled form of mangled to dst using a pooled
// Demangler. ok=false means the fast path does not handle the name (it
// is invalid or uses a construct not implemented here); dst is then
// returned unchanged.
func Append(dst []byte, mangled string) ([]byte, bool) {
	d := pool.Get().(*Demangler)
	dst, ok := d.Append(dst, mangled)
	put(d)
	return dst, ok
}

// String returns the demangled form of mangled as a new string, printing
// into a pooled buffer so the string is the only allocation.
func String(mangled string) (string, bool) {
	d := pool.Get().(*Demangler)
	b, ok := d.Append(d.buf[:0], mangled)
	var s string
	if ok {
		s = string(b)
		d.buf = b[:0]
	}
	put(d)
	return s, ok
}

// Append is like the package-level Append with d's state.
func (d *Demangler) Append(dst []byte, mangled string) (out []byte, ok bool) {
	if len(mangled) > maxInput || !strings.HasPrefix(mangled, "_Z") || isOldRust(mangled) {
		return dst, false
	}
	d.reset(mangled[2:], dst)
	defer func() {
		if r := recover(); r != nil {
			if _, f := r.(failure); !f {
				panic(r)
			}
			d.out, d.str = nil, "" // dst and mangled belong to the caller
			out, ok = dst, false
		}
	}()
	n := d.encoding(false)
	for len(d.str)-d.pos > 1 && d.peek() == '.' && (isLower(d.at(1)) || isDigit(d.at(1)) || d.at(1) == '_') {
		n = d.cloneSuffix(n)
	}
	if d.pos != len(d.str) {
		d.fail()
	}
	d.print(n)
	res := d.out
	d.out, d.str = nil, ""
	return res, true
}

// isOldRust reports whether the library would try its legacy Rust
// demangler on s; those are left to it.
func isOldRust(s string) bool {
	if !strings.HasPrefix(s, "_ZN") {
		return false
	}
	if strings.IndexByte(s, '.') >= 0 {
		if i := strings.LastIndex(s, "E."); i > 0 {
			s = s[:i+1]
		}
	}
	if !strings.HasSuffix(s, "E") || len(s) <= 23 || s[len(s)-20:len(s)-17] != "17h" {
		return false
	}
	// The library's Rust path needs 16 lower-case hex digits; anything
	// else (say, a C++ member named has_signaling_NaN) is C++ to it.
	for i := len(s) - 17; i < len(s)-1; i++ {
		if c := s[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (d *Demangler) reset(s string, dst []byte) {
	d.str, d.pos, d.depth = s, 0, 0
	d.nodes = d.nodes[:0]
	d.lists = d.lists[:0]
	d.tmp = d.tmp[:0]
	d.subs = d.subs[:0]
	d.tmpl, d.tdepth, d.scope, d.nscope = -1, 0, -1, 0
	d.closure, d.cast = 0, 0
	d.out, d.start = dst, len(dst)
	d.inner = d.inner[:0]
	d.floor = 0
	d.saved = d.saved[:0]
	d.abbrev = -1
	d.lastName = -1
	d.ghost = -1
	d.pdepth = 0
	d.packNode, d.packElem = -1, 0
}

func (d *Demangler) fail() { panic(failure{}) }

func (d *Demangler) peek() byte {
	if d.pos < len(d.str) {
		return d.str[d.pos]
	}
	return 0
}

func (d *Demangler) at(i int) byte {
	if d.pos+i < len(d.str) {
		return d.str[d.pos+i]
	}
	return 0
}

func (d *Demangler) eof() bool { return d.pos >= len(d.str) }

func (d *Demangler) expect(c byte) {
	if d.peek() != c {
		d.fail()
	}
	d.pos++
}

func (d *Demangler) enter() {
	d.depth++
	if d.depth > maxDepth {
		d.fail()
	}
}

func (d *Demangler) leave() { d.depth-- }

func (d *Demangler) add(n node) int32 {
	if len(d.nodes) >= 1<<20 {
		d.fail()
	}
	d.nodes = append(d.nodes, n)
	return int32(len(d.nodes) - 1)
}

func (d *Demangler) mk(k kind, a, b int32, s sref) int32 {
	hasTP := (a >= 0 && d.nodes[a].hasTP) || (b >= 0 && d.nodes[b].hasTP)
	return d.add(node{kind: k, a: a, b: b, lo: 0, hi: 0, s: s, hasTP: hasTP})
}

// list moves tmp[from:] into lists and returns the range.
func (d *Demangler) list(from int) (lo, hi int32, hasTP bool) {
	lo = int32(len(d.lists))
	for _, x := range d.tmp[from:] {
		hasTP = hasTP || d.nodes[x].hasTP
	}
	d.lists = append(d.lists, d.tmp[from:]...)
	d.tmp = d.tmp[:from]
	return lo, int32(len(d.lists)), hasTP
}

// sub is a substitution candidate with the template scope it was parsed
// in: the library rebinds template parameters of a reused candidate to
// the template active at the reference, which only matters when the two
// differ, and then the fast path gives up.
type sub struct {
	n     int32
	scope int32
}

func (d *Demangler) addSub(n int32) {
	d.subs = append(d.subs, sub{n, d.scope})
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// number parses a non-negative decimal number (the library's limit).
func (d *Demangler) number() int {
	if !isDigit(d.peek()) {
		d.fail()
	}
	v := 0
	for isDigit(d.peek()) {
		if v >= 0x80000000/10-10 {
			d.fail()
		}
		v = v*10 + int(d.peek()-'0')
		d.pos++
	}
	return v
}

// compactNumber parses [<number>] _ as the number plus one, or 0.
func (d *Demangler) compactNumber() int {
	if d.peek() == '_' {
		d.pos++
		return 0
	}
	n := d.number()
	d.expect('_')
	return n + 1
}

func (d *Demangler) cloneSuffix(base int32) int32 {
	i := d.pos
	s := d.str
	if i+1 < len(s) && s[i] == '.' && (isLower(s[i+1]) || isDigit(s[i+1]) || s[i+1] == '_') {
		i += 2
		for i < len(s) && (isLower(s[i]) || isDigit(s[i]) || s[i] == '_') {
			i++
		}
	}
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i += 2
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	suffix := s[d.pos:i]
	d.pos = i
	return d.mk(kClone, base, -1, d.in(d.pos-len(suffix), d.pos))
}
