package rustdemangle

import (
	"strings"
	"testing"
)

// Every expectation below is what `c++filt -i` (binutils 2.40) prints;
// ok=false marks the names it leaves unchanged as Rust.
var tableCases = []struct {
	desc, name, want string
	ok               bool
}{
	{"v0 nested closures print innermost first (library bug 1)",
		"_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_", "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}", true},
	{"v0 unit generic argument is kept (library bug 2)",
		"_RNCINvNtNtCsjrHSEGnQ3l9_3std6thread7current17with_current_nameNCNCNvNtB8_9panicking12default_hook00uE0B8_", "std::thread::current::with_current_name::<std::panicking::default_hook::{closure#0}::{closure#0}, ()>::{closure#0}", true},
	{"legacy leading underscores are kept (library bug 3)",
		"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17hb9ccf8bcc7cba902E", "std::sys::backtrace::__rust_begin_short_backtrace", true},
	{"legacy plain",
		"_ZN3foo3bar17h0123456789abcdefE", "foo::bar", true},
	{"legacy escapes and .. as ::",
		"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE", "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>", true},
	{"legacy _$ prefix dropped, all two-letter escapes",
		"_ZN3foo24_$LT$$RF$$BP$$SP$$C$$GT$17h0123456789abcdefE", "foo::<&*@,>", true},
	{"legacy $uXX$ escapes, space and ~",
		"_ZN3foo12a$u20$b$u7e$17h0123456789abcdefE", "foo::a b~", true},
	{"legacy control-character escape prints the rest verbatim",
		"_ZN3foo12a$u1f$b$u7e$17h0123456789abcdefE", "foo::a$u1f$b$u7e$", true},
	{"legacy unknown escape prints the rest verbatim",
		"_ZN3foo6a$zz$b17h0123456789abcdefE", "foo::a$zz$b", true},
	{"legacy single dot kept",
		"_ZN3foo7bar.baz17h0123456789abcdefE", "foo::bar.baz", true},
	{"legacy .llvm suffix dropped",
		"_ZN3foo3bar17h0123456789abcdefE.llvm.1234", "foo::bar", true},
	{"legacy hash with 5 distinct digits",
		"_ZN3foo3bar17h0000000000001234E", "foo::bar", true},
	{"legacy hash with 4 distinct digits is not Rust",
		"_ZN3foo3bar17h0000000000000123E", "", false},
	{"legacy uppercase hash is not Rust",
		"_ZN3foo3bar17h0123456789ABCDEFE", "", false},
	{"C++ name without hash is not Rust",
		"_ZN3foo3barE", "", false},
	{"legacy without E",
		"_ZN3foo3bar17h0123456789abcdef", "", false},
	{"legacy hash only",
		"_ZN17h0123456789abcdefE", "", false},
	{"legacy empty identifier",
		"_ZN0_3bar17h0123456789abcdefE", "", false},
	{"v0 crate disambiguator not printed",
		"_RNvCs1234_7mycrate3foo", "mycrate::foo", true},
	{"v0 closure",
		"_RNCNvC7mycrate3foo0", "mycrate::foo::{closure#0}", true},
	{"v0 closure disambiguator s_ is #1",
		"_RNCNvC7mycrate3foos_0", "mycrate::foo::{closure#1}", true},
	{"v0 closure disambiguator s0_ is #2",
		"_RNCNvC7mycrate3foos0_0", "mycrate::foo::{closure#2}", true},
	{"v0 shim namespace",
		"_RNSNvC7mycrate3foo6vtable", "mycrate::foo::{shim:vtable#0}", true},
	{"v0 other uppercase namespace",
		"_RNvNAC1a1f4name", "a::{A:f#0}::name", true},
	{"v0 inherent impl",
		"_RNvMC7mycrateNtC7mycrate3Foo3new", "<mycrate::Foo>::new", true},
	{"v0 inherent impl with disambiguator and backref",
		"_RNvMs_C1aNtB4_1S1f", "<a::S>::f", true},
	{"v0 trait impl",
		"_RNvXC7mycrateNtC7mycrate3FooNtNtC4core3fmt7Display3fmt", "<mycrate::Foo as core::fmt::Display>::fmt", true},
	{"v0 trait impl with backrefs",
		"_RNvXs0_C1aNtB5_1SNtB5_1T1f", "<a::S as a::T>::f", true},
	{"v0 trait definition",
		"_RNvYNtC7mycrate3FooNtNtC4core5clone5Clone5clone", "<mycrate::Foo as core::clone::Clone>::clone", true},
	{"v0 generics in value position use ::<>",
		"_RINvC7mycrate3fooNtC7mycrate3BarE", "mycrate::foo::<mycrate::Bar>", true},
	{"v0 generics in type position use <>",
		"_RNvMC7mycrateINtC7mycrate3VeclE3new", "<mycrate::Vec<i32>>::new", true},
	{"v0 path backref",
		"_RNvMC7mycrateINtB2_3VeclE3new", "<mycrate::Vec<i32>>::new", true},
	{"v0 basic types",
		"_RINvC1a1fTbcehtmyojaslxnifdzEE", "a::f::<(bool, char, str, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, !)>", true},
	{"v0 placeholder, varargs and unit types",
		"_RINvC1a1fpvuE", "a::f::<_, ..., ()>", true},
	{"v0 tuples of 0, 1 and 2",
		"_RINvC1a1fTETlETlmEE", "a::f::<(), (i32,), (i32, u32)>", true},
	{"v0 references and pointers",
		"_RINvC1a1fRlQlPlOlE", "a::f::<&i32, &mut i32, *const i32, *mut i32>", true},
	{"v0 erased lifetimes on references",
		"_RINvC1a1fRL_lQL_lE", "a::f::<&i32, &mut i32>", true},
	{"v0 array and slice",
		"_RINvC1a1fAlj3_SlE", "a::f::<[i32; 3], [i32]>", true},
	{"v0 fn pointers, unsafe, ABIs",
		"_RINvC1a1fFEuFlElFUKCEuFK6sysv64EuFK9rust_callEuE", "a::f::<fn(), fn(i32) -> i32, unsafe extern \"C\" fn(), extern \"sysv64\" fn(), extern \"rust-call\" fn()>", true},
	{"v0 fn pointer with for<'a>",
		"_RINvC1a1fFG_RL0_lEuE", "a::f::<for<'a> fn(&'a i32)>", true},
	{"v0 binder of two lifetimes",
		"_RINvC1a1fFG0_RL1_RL0_lEuE", "a::f::<for<'a, 'b> fn(&'a &'b i32)>", true},
	{"v0 nested binders",
		"_RINvC1a1fFG_FG_RL0_RL1_lEuEuE", "a::f::<for<'a> fn(for<'b> fn(&'b &'a i32))>", true},
	{"v0 more than 26 bound lifetimes",
		"_RINvC1a1fFGp_RLq_lEuE", "a::f::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, 'n, 'o, 'p, 'q, 'r, 's, 't, 'u, 'v, 'w, 'x, 'y, 'z, '_26> fn(&'a i32)>", true},
	{"v0 ABI hyphen quirk: the byte after a rewritten _ is not rescanned",
		"_RINvC1a1fFK6ab__c_EuE", "a::f::<extern \"ab-_c-\" fn()>", true},
	{"v0 dyn trait",
		"_RINvC1a1fDNtNtC4core3fmt5DebugEL_E", "a::f::<dyn core::fmt::Debug>", true},
	{"v0 dyn trait with associated type",
		"_RINvC1a1fDINtNtNtC4core3ops8function6FnOnceTlEEp6OutputuEL_E", "a::f::<dyn core::ops::function::FnOnce<(i32,), Output = ()>>", true},
	{"v0 dyn for<'a>",
		"_RINvC1a1fDG_INtNtNtC4core3ops8function2FnTRL0_lEEp6OutputuEL_E", "a::f::<dyn for<'a> core::ops::function::Fn<(&'a i32,), Output = ()>>", true},
	{"v0 dyn with two traits",
		"_RINvC1a1fDNtC1a1XNtC1a1YEL_E", "a::f::<dyn a::X + a::Y>", true},
	{"v0 dyn bindings open generics",
		"_RINvC1a1fDNtC1a1XNtC1a1Yp1Tlp1UmEL_E", "a::f::<dyn a::X + a::Y<T = i32, U = u32>>", true},
	{"v0 dyn with unbound lifetime",
		"_RINvC1a1fDNtC1a1XEL0_E", "a::f::<dyn a::X + '_18446744073709551615>", true},
	{"v0 consts: ints, bool, char escapes, placeholder",
		"_RINvC1a1fKlna_Kla_Kb1_Kb0_Kc61_Kc9_Kca_Kcd_Kc27_Kc5c_Kc20_Kc7e_Kc1f600_KpKj0_Khff_Kxnffffffffffffffff_E", "a::f::<-10, 10, true, false, 'a', '\\t', '\\n', '\\r', ''', '\\', '\\u{20}', '\\u{7e}', '\\u{1f600}', _, 0, 255, -18446744073709551615>", true},
	{"v0 const wider than 64 bits: raw digits from the second through _",
		"_RINvC1a1fKo123456789abcdef012_E", "a::f::<0x23456789abcdef012_>", true},
	{"v0 const wider than 64 bits keeps leading zeros",
		"_RINvC1a1fKo00000000000000000000000000000001_E", "a::f::<0x0000000000000000000000000000001_>", true},
	{"v0 const backref",
		"_RINvC1a1fKjff_KB8_E", "a::f::<255, 255>", true},
	{"v0 chars outside Unicode are printed as hex",
		"_RINvC1a1fKc110000_E", "a::f::<'\\u{110000}'>", true},
	{"v0 surrogate char",
		"_RINvC1a1fKcd800_E", "a::f::<'\\u{d800}'>", true},
	{"v0 char of more than 8 digits",
		"_RINvC1a1fKc123456789_E", "", false},
	{"v0 bool other than 0 or 1",
		"_RINvC1a1fKb2_E", "", false},
	{"v0 str const is not supported by binutils 2.40",
		"_RINvC1a1fKRe616263_E", "", false},
	{"v0 structural const is not supported by binutils 2.40",
		"_RINvC1a1fKAtj_tk_EE", "", false},
	{"v0 punycode identifier",
		"_RNvC7mycrateu8gdel_5qa", "mycrate::g\xc3\xb6del", true},
	{"v0 punycode in a closure name",
		"_RNCNvC7mycrateu8gdel_5qau8gdel_5qa", "mycrate::g\xc3\xb6del::{closure:g\xc3\xb6del#0}", true},
	{"v0 punycode producing raw code points",
		"_RNvNvC1a3foou5b_abc", "a::foo::\xc2\x80\xc2\x81b\xc2\x80", true},
	{"v0 instantiating crate not printed",
		"_RNvC1a1fCs_1b", "a::f", true},
	{"v0 junk after instantiating crate",
		"_RNvC1a1fCs_1bu", "", false},
	{"v0 .llvm suffix dropped",
		"_RNvC1a1f.llvm.1234", "a::f", true},
	{"v0 _ after an empty identifier is swallowed",
		"_RNCNvC1a1f0_", "a::f::{closure#0}", true},
	{"v0 @ is not a v0 byte",
		"_RNvC1a1f@plt", "", false},
	{"v0 truncated",
		"_RNvC1a1", "", false},
	{"v0 lowercase after _R",
		"_Rnv", "", false},
	{"v0 empty",
		"_R", "", false},
	{"v0 trailing junk",
		"_RNvC1a1fX", "", false},
	{"v0 self-referential backref hits the nesting limit",
		"_RB_", "", false},
	{"v0 1000 nested types are within binutils' limit",
		"_RINvC1a1f" + strings.Repeat("R", 1000) + "lE", "a::f::<" + strings.Repeat("&", 1000) + "i32>", true},
	{"v0 1100 nested types exceed binutils' limit",
		"_RINvC1a1f" + strings.Repeat("R", 1100) + "lE", "", false},
	{"neither _R nor _ZN",
		"_Z3foov", "", false},
}

func TestTable(t *testing.T) {
	for _, c := range tableCases {
		got, ok := Append(nil, c.name)
		if ok != c.ok || string(got) != c.want {
			t.Errorf("%s: %.120s\n got: %q, %v\nwant: %q, %v", c.desc, c.name, got, ok, c.want, c.ok)
		}
		if IsRust(c.name) != c.ok {
			t.Errorf("%s: IsRust = %v", c.desc, !c.ok)
		}
		// Append appends, and leaves dst alone on failure.
		dst := []byte("prefix:")
		got, ok = Append(dst, c.name)
		if want := "prefix:" + c.want; string(got) != want || ok != c.ok {
			t.Errorf("%s: appending got %q, want %q", c.desc, got, want)
		}
	}
}

// TestNUL: binutils reads a C string, so a NUL ends the name.
func TestNUL(t *testing.T) {
	got, ok := Append(nil, "_RNvC1a1f\x00junk")
	if !ok || string(got) != "a::f" {
		t.Errorf("got %q, %v", got, ok)
	}
	if _, ok := Append(nil, "_R\x00NvC1a1f"); ok {
		t.Error("name cut to _R accepted")
	}
}

// TestOutputBound: backreferences make output exponential in the input;
// Append gives up at MaxOutput instead of exhausting memory.
func TestOutputBound(t *testing.T) {
	// Level 0 is (i32,); each further level is a tuple of two backrefs to
	// the level before it, so the output doubles per level: 40 levels
	// would be terabytes.
	build := func(levels int) string {
		var b strings.Builder
		b.WriteString("_RINvC1a1f")
		prev := b.Len() - 2 // backref positions count from after "_R"
		b.WriteString("TlE")
		for range levels {
			pos := b.Len() - 2
			b.WriteString("TB" + int62(prev) + "B" + int62(prev) + "E")
			prev = pos
		}
		b.WriteString("E")
		return b.String()
	}
	if _, ok := Append(nil, build(40)); ok {
		t.Fatal("exponential name accepted")
	}
	if IsRust(build(40)) {
		t.Fatal("IsRust accepted exponential name")
	}
	got, ok := Append(nil, build(2))
	if want := "a::f::<(i32,), ((i32,), (i32,)), (((i32,), (i32,)), ((i32,), (i32,)))>"; !ok || string(got) != want {
		t.Errorf("two levels: got %q, %v, want %q", got, ok, want)
	}
}

// int62 is the v0 encoding of backref position p.
func int62(p int) string {
	if p == 0 {
		return "_"
	}
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	p--
	var s []byte
	for {
		s = append([]byte{digits[p%62]}, s...)
		p /= 62
		if p == 0 {
			break
		}
	}
	return string(s) + "_"
}

func TestNoAllocs(t *testing.T) {
	names := []string{
		tableCases[1].name, // v0 with backrefs and generics
		tableCases[4].name, // legacy with escapes
		"_RNvC7mycrateu8gdel_5qa",
		"_ZN3foo3barE", // rejected
	}
	buf := make([]byte, 0, 4096)
	for _, n := range names {
		allocs := testing.AllocsPerRun(100, func() {
			buf, _ = Append(buf[:0], n)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per call", n, allocs)
		}
		allocs = testing.AllocsPerRun(100, func() { IsRust(n) })
		if allocs != 0 {
			t.Errorf("IsRust(%s): %v allocations per call", n, allocs)
		}
	}
}
