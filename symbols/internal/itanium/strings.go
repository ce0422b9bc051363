package itanium

// Node text is an sref, not a string, so the node arena holds no
// pointers: the garbage collector never scans it, and a node stays 32
// bytes. Text is either a slice of the mangled name or one of the fixed
// strings interned below at package initialisation.

// sref is a node's text: d.str[off:off+n] when n >= 0, statics[off]
// when n < 0. The zero sref is the empty string.
type sref struct{ off, n int32 }

func (r sref) empty() bool { return r.n == 0 }

// statics holds the fixed strings; it is only appended to during package
// initialisation.
var statics []string

func intern(s string) sref {
	statics = append(statics, s)
	return sref{int32(len(statics) - 1), -1}
}

// in is the sref of d.str[i:j].
func (d *Demangler) in(i, j int) sref { return sref{int32(i), int32(j - i)} }

// text returns r's string.
func (d *Demangler) text(r sref) string {
	if r.n < 0 {
		return statics[r.off]
	}
	return d.str[r.off : r.off+r.n]
}

var (
	sStd           = intern("std")
	sStringLiteral = intern("string literal")
	sAuto          = intern("auto")
	sDecltypeAuto  = intern("decltype(auto)")
	sAnonymous     = intern("(anonymous namespace)")

	sAllocator     = intern("allocator")
	sCharTraits    = intern("char_traits")
	sBasicString   = intern("basic_string")
	sString        = intern("string")
	sIstream       = intern("istream")
	sBasicIstream  = intern("basic_istream")
	sOstream       = intern("ostream")
	sBasicOstream  = intern("basic_ostream")
	sIostream      = intern("iostream")
	sBasicIostream = intern("basic_iostream")

	sVtable       = intern("vtable for ")
	sVTT          = intern("VTT for ")
	sTypeinfo     = intern("typeinfo for ")
	sTypeinfoName = intern("typeinfo name for ")
	sNVThunk      = intern("non-virtual thunk to ")
	sVThunk       = intern("virtual thunk to ")
	sCovThunk     = intern("covariant return thunk to ")
	sTLSInit      = intern("TLS init function for ")
	sTLSWrapper   = intern("TLS wrapper function for ")
	sGuard        = intern("guard variable for ")
	sHiddenAlias  = intern("hidden alias for ")
	sTxClone      = intern("transaction clone for ")
	sNonTxClone   = intern("non-transaction clone for ")

	sDecimal32  = intern("decimal32")
	sDecimal64  = intern("decimal64")
	sDecimal128 = intern("decimal128")
	sHalf       = intern("half")
	sChar8      = intern("char8_t")
	sChar16     = intern("char16_t")
	sChar32     = intern("char32_t")
	sNullptr    = intern("decltype(nullptr)")
)

// A qualifier list is what the library keeps for a CV-qualifier set: the
// qualifiers in print order, without repeats. It is coded in a byte, two
// bits a slot from the low end (1 const, 2 volatile, 3 restrict, 0 end).
// Mangled qualifiers print innermost first (rVK is "const volatile
// restrict"), and merging a qualified type into a qualified template
// argument appends the argument's new qualifiers after the outer ones.

// qualListRef is the text of each qualifier list code.
var qualListRef = func() (t [64]sref) {
	names := [4]string{"", "const", "volatile", "restrict"}
	for code := 1; code < 64; code++ {
		text := ""
		for c := code; c != 0; c >>= 2 {
			if c&3 == 0 {
				text = "" // a gap: not a valid list
				break
			}
			if text != "" {
				text += " "
			}
			text += names[c&3]
		}
		if text != "" {
			t[code] = intern(text)
		}
	}
	return t
}()

// stackQuals returns the list binutils prints for qualifiers outer
// applied to a type already qualified by inner (a substitution or a
// template argument). binutils pushes outer's qualifiers, then each of
// inner's that is not pending already (it prints a qualifier only once),
// and prints them innermost-pushed first. A list code holds qualifiers
// in print order, two bits each, so the last parsed is lowest. ok=false
// never happens for distinct qualifiers; it guards the three-entry limit.
func stackQuals(inner, outer uint8) (uint8, bool) {
	var push [6]uint8
	n := 0
	add := func(code uint8) {
		var parse [3]uint8
		k := 0
		for c := code; c != 0 && k < 3; c >>= 2 {
			parse[k] = c & 3
			k++
		}
		for k--; k >= 0; k-- { // highest first: parse order
			q := parse[k]
			dup := false
			for _, e := range push[:n] {
				dup = dup || e == q
			}
			if !dup {
				push[n] = q
				n++
			}
		}
	}
	add(outer)
	add(inner)
	if n > 3 {
		return 0, false
	}
	var code uint8
	for i := 0; i < n; i++ {
		code |= push[n-1-i] << (2 * i)
	}
	return code, true
}

// builtinRef maps a <builtin-type> letter to its name.
var builtinRef = func() (t [128]sref) {
	for c, s := range map[byte]string{
		'a': "signed char", 'b': "bool", 'c': "char", 'd': "double",
		'e': "long double", 'f': "float", 'g': "__float128",
		'h': "unsigned char", 'i': "int", 'j': "unsigned int", 'l': "long",
		'm': "unsigned long", 'n': "__int128", 'o': "unsigned __int128",
		's': "short", 't': "unsigned short", 'v': "void", 'w': "wchar_t",
		'x': "long long", 'y': "unsigned long long", 'z': "...",
	} {
		t[c] = intern(s)
	}
	return t
}()

// opRef maps an <operator-name> code to the library's spelling
// (including its trailing space on keyword operators, which the printer
// trims). Literal, vendor and cast operators are handled elsewhere.
var opRef = func() map[[2]byte]sref {
	m := map[[2]byte]sref{}
	for _, p := range [...][2]string{
		{"nw", "new"}, {"na", "new[]"}, {"dl", "delete "}, {"da", "delete[] "},
		{"ps", "+"}, {"pl", "+"}, {"ng", "-"}, {"mi", "-"}, {"ad", "&"},
		{"an", "&"}, {"de", "*"}, {"ml", "*"}, {"co", "~"}, {"dv", "/"},
		{"rm", "%"}, {"or", "|"}, {"eo", "^"}, {"aS", "="}, {"pL", "+="},
		{"mI", "-="}, {"mL", "*="}, {"dV", "/="}, {"rM", "%="}, {"aN", "&="},
		{"oR", "|="}, {"eO", "^="}, {"ls", "<<"}, {"rs", ">>"}, {"lS", "<<="},
		{"rS", ">>="}, {"eq", "=="}, {"ne", "!="}, {"lt", "<"}, {"gt", ">"},
		{"le", "<="}, {"ge", ">="}, {"ss", "<=>"}, {"nt", "!"}, {"aa", "&&"},
		{"oo", "||"}, {"pp", "++"}, {"mm", "--"}, {"cm", ","}, {"pm", "->*"},
		{"pt", "->"}, {"cl", "()"}, {"ix", "[]"}, {"aw", "co_await "},
	} {
		m[[2]byte{p[0][0], p[0][1]}] = intern(p[1])
	}
	return m
}()
