package itanium

import (
	"debug/elf"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/symbols/internal/demangletest"
	"github.com/ianlancetaylor/demangle"
)

// cases are hand-picked names with the text c++filt -i prints for them
// (comments note where github.com/ianlancetaylor/demangle differs). ok
// says whether the fast path must take the name; for the others want is
// still what binutils prints, to document it.
var cases = []struct {
	mangled, want string
	ok            bool
}{
	{"_ZN12_GLOBAL__N_17anon_fnEi", "(anonymous namespace)::anon_fn(int)", true},
	{"_ZNKSt4lessIN5outer5inner3BoxIdLi3EEEEclERKS3_S6_", "std::less<outer::inner::Box<double, 3> >::operator()(outer::inner::Box<double, 3> const&, outer::inner::Box<double, 3> const&) const", true},
	{"_ZZ4mainENKUlRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEdE_clES6_d", "main::{lambda(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, double)#1}::operator()(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, double) const", true},
	{"_ZNSsC1ERKSs", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string(std::string const&)", true},
	{"_ZNSs4_Rep10_M_destroyERKSaIcE", "std::string::_Rep::_M_destroy(std::allocator<char> const&)", true},
	{"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)", true},
	{"_ZN5outer5innerlsERSoRKNS0_6WidgetE", "outer::inner::operator<<(std::ostream&, outer::inner::Widget const&)", true},
	{"_ZL8clone_meii.constprop.0", "clone_me(int, int) [clone .constprop.0]", true},
	{"_ZL8clone_meii.isra.0.constprop.1", "clone_me(int, int) [clone .isra.0] [clone .constprop.1]", true},
	{"_Z8takes_fpPFiiEMN5outer5inner6WidgetEKFvvERA4_i", "takes_fp(int (*)(int), void (outer::inner::Widget::*)() const, int (&) [4])", true},
	{"_ZNK5outer5inner3BoxIdLi3EEcvbEv", "outer::inner::Box<double, 3>::operator bool() const", true},
	{"_ZNK5outer5inner3BoxIdLi3EEltERKS2_", "outer::inner::Box<double, 3>::operator<(outer::inner::Box<double, 3> const&) const", true},
	{"_Z9count_allIJiRdNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEEmDpOT_", "unsigned long count_all<int, double&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >(int&&, double&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >&&)", true},
	{"_Z9count_allIJEEmDpOT_", "unsigned long count_all<>()", true},
	{"_ZTVN5outer5inner7DerivedE", "vtable for outer::inner::Derived", true},
	{"_ZThn16_N5outer5inner7DerivedD1Ev", "non-virtual thunk to outer::inner::Derived::~Derived()", true},
	{"_ZTv0_n24_NSdD1Ev", "virtual thunk to std::basic_iostream<char, std::char_traits<char> >::~basic_iostream()", true},
	{"_ZGVZ4mainE1x", "guard variable for main::x", true},
	{"_ZNSt10unique_ptrIiSt14default_deleteIiEEaSEOS2_", "std::unique_ptr<int, std::default_delete<int> >::operator=(std::unique_ptr<int, std::default_delete<int> >&&)", true},
	{"_Z5twiceIfET_S0_", "float twice<float>(float)", true},
	{"_ZN5outer5inner6WidgetclEidRKS1_", "outer::inner::Widget::operator()(int, double, outer::inner::Widget const&)", true},
	{"_ZNKR5outer5inner6WidgetclEid", "outer::inner::Widget::operator()(int, double) const &", true},
	{"_Z1fILb1ELc97ELin5ELm7EEvv", "void f<true, (char)97, -5, 7ul>()", true},
	{"_Z1fIDnLDnEEvv", "void f<decltype(nullptr), decltype(nullptr)>()", true},
	// A constructor is named after the last source name (library: the
	// unnamed type).
	{"_ZN3FooUt_C2Ev", "Foo::{unnamed type#1}::Foo()", true},
	{"_ZN1AIN1B1CEEC1Ev", "A<B::C>::A()", true},
	{"_ZNSaIcEC1Ev", "std::allocator<char>::allocator()", true},
	// An empty trailing pack: binutils takes back the ", " but still
	// counts its space as the last character printed, so a '>' before
	// it gets no separating space (library: "<A<int>, >").
	{"_ZSt11make_uniqueIN5gen185StoreIiEEJEENSt8__detail9_MakeUniqIT_E15__single_objectEDpOT0_", "std::__detail::_MakeUniq<gen18::Store<int> >::__single_object std::make_unique<gen18::Store<int>>()", true},
	{"_Z1fIN1AIiEEJEiEvv", "void f<A<int>, , int>()", true},
	{"_Z1fIJEiEvDpT_T0_", "void f<, int>(, int)", true},
	{"_Z1fIJN1AIiEEJEEEvv", "void f<A<int>>()", true},
	{"_Z1fIiJN1AIiEEJEEEvv", "void f<int, A<int>>()", true},
	{"_Z1fPA3_A4_Kc", "f(char const (*) [3][4])", true},
	{"_Z1fM1AFivEPFPFivEvE", "f(int (A::*)(), int (*(*)())())", true},
	{"_Z1fRA2_PKFvvE", "f(void (* (&) [2])() const)", true},
	{"_ZN9__gnu_cxx13new_allocatorIcED2Ev", "__gnu_cxx::new_allocator<char>::~new_allocator()", true},
	{"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructIPKcEEvT_S8_St20forward_iterator_tag", "void std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_construct<char const*>(char const*, char const*, std::forward_iterator_tag)", true},
	{"_ZNSi3getEv", "std::istream::get()", true},
	{"_ZNSoD0Ev", "std::basic_ostream<char, std::char_traits<char> >::~basic_ostream()", true},
	{"_ZNSdC2Ev", "std::basic_iostream<char, std::char_traits<char> >::basic_iostream()", true},
	{"_ZN1AIiE1fB5cxx11Ev", "A<int>::f[abi:cxx11]()", true},
	{"_ZNK3FooltIiEEbRKT_", "bool Foo::operator< <int>(int const&) const", true},
	{"_ZZN1A1fEvE1x_0", "A::f()::x", true},
	{"_ZZ1fvEs", "f()::string literal", true},
	{"_ZN1AdlEPv", "A::operator delete(void*)", true},
	{"_ZN1AnaEm", "A::operator new[](unsigned long)", true},
	{"_Z1fIiJEEvT_DpT0_", "void f<int>(int)", true},
	{"_Z1fIJicEEvDpRKT_", "void f<int, char>(int const&, char const&)", true},
	{"_GLOBAL__sub_I_main", "_GLOBAL__sub_I_main", false},
	{"_ZN1a1bE", "a::b", true},
	{"_Z1fOi", "f(int&&)", true},
	{"_Z1fSt9nullptr_t", "f(std::nullptr_t)", true},
	// Expressions in template arguments: a name with arguments, a pack
	// expansion, and an sr-qualified name, whose qualifiers binutils
	// does not make substitution candidates (the library does, and
	// prints Optional<is_signed> and (is_signed, is_signed)).
	{"_ZSt10__invoke_rIlRZN5gen193runIlEEmiEUliE_JiEENSt9enable_ifIX16is_invocable_r_vIT_T0_DpT1_EES5_E4typeEOS6_DpOS7_", "std::enable_if<is_invocable_r_v<long, gen19::run<long>(int)::{lambda(int)#1}&, int>, long>::type std::__invoke_r<long, gen19::run<long>(int)::{lambda(int)#1}&, int>(gen19::run<long>(int)::{lambda(int)#1}&, int&&)", true},
	{"_ZNSt4pairIKilEC2IJOiEJLm0EEJEJEEERSt5tupleIJDpT_EERS4_IJDpT1_EESt12_Index_tupleIJXspT0_EEESD_IJXspT2_EEE", "std::pair<int const, long>::pair<int&&, 0ul>(std::tuple<int&&>&, std::tuple<>&, std::_Index_tuple<0ul>, std::_Index_tuple<>)", true},
	{"_ZN4llvm10checkedAddIiEENSt9enable_ifIXsr3std9is_signedIT_EE5valueENS_8OptionalIS2_EEE4typeES2_S2_", "std::enable_if<std::is_signed<int>::value, llvm::Optional<int> >::type llvm::checkedAdd<int>(int, int)", true},
	{"_ZNSt8functionIFviEEC2IZ4mainEUliE_vvEEOT_", "std::function<void (int)>::function<main::{lambda(int)#1}, void, void>(main::{lambda(int)#1}&&)", true},
	{"_ZN1AC1ERKS_.cold", "A::A(A const&) [clone .cold]", true},
	{"_ZNKSt9type_infoeqERKS_", "std::type_info::operator==(std::type_info const&) const", true},
	{"_ZN5Outer5InnerD2Ev", "Outer::Inner::~Inner()", true},
	{"_ZTIN10__cxxabiv117__class_type_infoE", "typeinfo for __cxxabiv1::__class_type_info", true},
	{"_ZTSPKc", "typeinfo name for char const*", true},
	{"_ZNSt6vectorIPFvvESaIS1_EE9push_backERKS1_", "std::vector<void (*)(), std::allocator<void (*)()> >::push_back(void (* const&)())", true},
	{"_Z1fPVKi", "f(int const volatile*)", true},
	// Qualifiers over a qualified template argument: the argument's
	// first (the library merges them, outer first).
	{"_Z1fIViEvRKT_", "void f<int volatile>(int volatile const&)", true},
	{"_Z1fIKiEvRKT_", "void f<int const>(int const&)", true},
	{"_Z1fPrKi", "f(int const restrict*)", true},
	{"_ZL1fv", "f()", true},
	{"_Z1fv.part.0", "f() [clone .part.0]", true},
	{"_ZTW1x", "TLS wrapper function for x", true},
	// Left to the library: a template parameter outside any template (it
	// fails there too), generic lambdas, decltype, vector types, Rust.
	{"_ZN1AIiE1fET_", "_ZN1AIiE1fET_", false},
	{"_ZZ1fIiEvvENKUlT_E_clIiEEDaS0_", "auto f<int>()::{lambda(auto:1)#1}::operator()<int>(int) const", false},
	{"_ZN1A1fIiEEDTcl1gfp_EET_", "decltype (g({parm#1})) A::f<int>(int)", false},
	{"_Z1fDv4_f", "f(float __vector(4))", false},
	// Found by mutating real names: a reference to a reference shared
	// through a substitution, a conversion operator inside another's
	// scope. Rust names are left to the symbols package.
	{"_ZN6icu_7216SimpleDateFormat13matchLiteralsERKNS_13UnicodeStringERS3_S4_aaa", "icu_72::SimpleDateFormat::matchLiterals(icu_72::UnicodeString const&, icu_72::UnicodeString const&, icu_72::UnicodeString const&, signed char, signed char, signed char)", false},
	{"_ZNKSt15__exception_ptr13exception_ptrcvr13exception_ptrcvbEv", "std::__exception_ptr::exception_ptr::operator exception_ptr restrict::operator bool() const", false},
	{"_ZN3std2io5stdio6_print17h0123456789abcdefE", "std::io::stdio::_print", false},
}

func TestCases(t *testing.T) {
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.mangled
	}
	if live, err := cxxfilt(names); err == nil {
		for i, c := range cases {
			if live[i] != c.want {
				t.Errorf("%s: table is stale, c++filt -i prints %s", c.mangled, live[i])
			}
		}
	} else if !errors.Is(err, errNoFilt) {
		t.Fatal(err)
	}
	var d Demangler
	for _, c := range cases {
		got, ok := d.Append([]byte("prefix:"), c.mangled)
		if ok != c.ok {
			t.Errorf("%s: ok=%v, want %v", c.mangled, ok, c.ok)
			continue
		}
		if !ok {
			if string(got) != "prefix:" {
				t.Errorf("%s: dst changed on ok=false: %q", c.mangled, got)
			}
			continue
		}
		if string(got) != "prefix:"+c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.mangled, got[len("prefix:"):], c.want)
		}
	}
}

// libstdcxx finds the shared libstdc++ on this machine, if any.
func libstdcxx(t testing.TB) string {
	if out, err := exec.Command("g++", "-print-file-name=libstdc++.so.6").Output(); err == nil {
		if p := strings.TrimSpace(string(out)); strings.HasPrefix(p, "/") {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib64/libstdc++.so.6", "/usr/lib/libstdc++.so.6"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("libstdc++.so.6 not found (install g++ to run this test)")
	return ""
}

func TestLibstdcxx(t *testing.T) {
	f, err := elf.Open(libstdcxx(t))
	if err != nil {
		t.Skipf("libstdc++: %v", err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Skipf("libstdc++ dynamic symbols: %v", err)
	}
	seen := map[string]bool{}
	var names []string
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "_Z") && !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	fast := checkLive(t, names)
	t.Logf("%d/%d (%.2f%%) took the fast path", fast, len(names), 100*float64(fast)/float64(len(names)))
	if fast*100 < len(names)*99 {
		t.Errorf("fast path took only %d of %d libstdc++ names", fast, len(names))
	}
}

// TestMutations is a deterministic cousin of FuzzAppend: it damages
// real names (drop, replace, insert a byte, duplicate a span) and checks
// every mutant the fast path accepts against live c++filt -i. Mutants
// are where the corner cases live.
func TestMutations(t *testing.T) {
	names := goldenNames(t)
	if len(names) > 4000 {
		names = names[:4000]
	}
	rng := rand.New(rand.NewSource(1))
	const alphabet = "SIJETKPRONZLXDpsrtv_0123456789abcdefghijklmnopqrstuvwxyzCAB."
	var mutants []string
	for round := 0; round < 3; round++ {
		for _, s := range names {
			b := []byte(s)
			for k := 1 + rng.Intn(4); k > 0 && len(b) > 3; k-- {
				i := 2 + rng.Intn(len(b)-2)
				switch rng.Intn(4) {
				case 0:
					b = append(b[:i:i], b[i+1:]...)
				case 1:
					b[i] = alphabet[rng.Intn(len(alphabet))]
				case 2:
					j := 2 + rng.Intn(len(b)-2)
					if j > i {
						i, j = j, i
					}
					b = append(b[:i:i], append(append([]byte(nil), b[j:i]...), b[i:]...)...)
				case 3:
					b = append(b[:i:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, b[i:]...)...)
				}
			}
			mutants = append(mutants, string(b))
		}
	}
	fast := checkLive(t, mutants)
	t.Logf("%d mutants, %d took the fast path", len(mutants), fast)
}

// TestQualifierCombinations is a generated differential test of the
// inside-out printer: qualifiers, pointers, references and arrays around
// template parameters bound to qualified, array and function types, and
// substitutions of them.
func TestQualifierCombinations(t *testing.T) {
	quals := []string{"", "K", "V", "r", "VK", "rK", "rV", "rVK", "KV", "KK"}
	var names []string
	for _, q1 := range quals {
		for _, q2 := range quals {
			for _, ptr := range []string{"", "R", "P", "PP", "A3_", "O"} {
				for _, tail := range []string{"", "S2_", "S3_", "S1_S2_", "S4_", q2 + "S_", "RS2_"} {
					for _, arg := range []string{"i", "A2_i", "PFvvE", "Pi", "M1AFivE"} {
						names = append(names, "_Z1fI"+q1+arg+"Ev"+ptr+q2+"T_"+tail)
					}
				}
			}
		}
	}
	n := len(names)
	fast := checkLive(t, names)
	t.Logf("%d/%d took the fast path", fast, n)
	if fast < n/3 {
		t.Errorf("only %d of %d generated names took the fast path", fast, n)
	}
}

// TestMalformed feeds invalid and hostile names: the fast path must say
// ok=false (or agree with c++filt -i) and never panic.
func TestMalformed(t *testing.T) {
	long := func(unit string, n int) string { return strings.Repeat(unit, n) }
	inputs := []string{
		"", "_", "_Z", "_ZN", "_ZNE", "_Z1", "_Z3fo", "_Z99999999999999999999f",
		"_Z2147483647a", "_ZN3fooE_", "_ZS_", "_ZS9999999999_", "_ZT_", "_Z1fT_",
		"_Z1fIiET9999999999_", "_Z1fILi", "_ZNSt6vectorIiSaIiEE9push_backERK",
		"_Z1f" + long("P", 10000) + "i",
		"_Z1f" + long("A1_", 3000) + "i",
		"_ZN" + long("1a", 5000) + "E",
		"_Z1fI" + long("I", 5000) + "i" + long("E", 5000) + "E",
		"_ZZ" + long("Z1f", 2000) + "v" + long("E1xv", 2000),
		// Each parameter doubles the printed size through substitutions.
		"_Z1fSt4pairIiiE" + long("S_", 10) + "St4pairIS0_S0_E" + long("St4pairIS1_S1_E", 40),
		"_ZL3foo.", "_ZL3foov.", "_ZL3foov.1x", "_ZN1AC1Ev.", "_ZTv0_n", "_ZThn", "_ZGV",
		"_Z1fDp", "_Z1fIJEEvDpT_", "_ZN1ADnE", "_Z1fIXadL_Z1gvEEEvv", "_Z1fUlvE_",
	}
	for _, s := range inputs {
		if len(s) > maxInput {
			t.Fatalf("input of %d bytes is over maxInput and would not reach the parser", len(s))
		}
	}
	checkLive(t, inputs)
}

// TestDeep checks that nesting beyond maxDepth is refused rather than
// followed (the library would recurse as deep as the input goes).
func TestDeep(t *testing.T) {
	for _, s := range []string{
		"_Z1f" + strings.Repeat("P", 10000) + "i",
		"_Z1f" + strings.Repeat("A1_", 3000) + "i",
		"_Z1fI" + strings.Repeat("I", 5000) + "i" + strings.Repeat("E", 5000) + "E",
		"_ZZ" + strings.Repeat("Z1f", 2000) + "v" + strings.Repeat("E1xv", 2000),
		"_Z1f" + strings.Repeat("PFv", 3000) + "i" + strings.Repeat("E", 3000),
	} {
		var d Demangler
		if _, ok := d.Append(nil, s); ok {
			t.Errorf("%.40s... (%d bytes): ok=true, want a depth failure", s, len(s))
		}
	}
}

func TestTooLong(t *testing.T) {
	s := "_ZN" + strings.Repeat("1a", maxInput) + "E"
	if _, ok := Append(nil, s); ok {
		t.Error("a name over maxInput took the fast path")
	}
}

// TestNoAllocs checks the append path allocates nothing once warm.
func TestNoAllocs(t *testing.T) {
	names := goldenNames(t)[:200]
	var d Demangler
	buf := make([]byte, 0, 4096)
	for _, s := range names {
		buf, _ = d.Append(buf[:0], s)
	}
	allocs := testing.AllocsPerRun(5, func() {
		for _, s := range names {
			buf, _ = d.Append(buf[:0], s)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run of %d names, want 0", allocs, len(names))
	}
}

// FuzzAppend: the fast path never panics, and what it accepts is what
// c++filt -i prints (the stored expectation for table names, live
// c++filt for the rest when binutils is installed).
func FuzzAppend(f *testing.F) {
	stored := map[string]string{}
	for _, c := range cases {
		f.Add(c.mangled)
		stored[c.mangled] = c.want
	}
	_, haveFilt := demangletest.CxxFilt()
	f.Fuzz(func(t *testing.T, s string) {
		var d Demangler
		out, ok := d.Append(nil, s)
		if !ok {
			return
		}
		want, known := stored[s]
		if !known {
			if !haveFilt || !filtable(s) {
				return
			}
			live, err := cxxfilt([]string{s})
			if err != nil {
				t.Fatal(err)
			}
			want = live[0]
		}
		if string(out) != want {
			t.Errorf("%q\n got: %s\nwant: %s", s, out, want)
		}
	})
}

func benchNames(b *testing.B) ([]string, int) {
	names := goldenNames(b)
	n := 0
	for _, s := range names {
		n += len(s)
	}
	return names, n
}

// BenchmarkAppend and BenchmarkLibrary demangle the same corpus; the
// ratio of their ns/op is the fast path's speed-up.
func BenchmarkAppend(b *testing.B) {
	names, n := benchNames(b)
	var d Demangler
	buf := make([]byte, 0, 4096)
	for _, s := range names { // warm-up: grow the arena once
		buf, _ = d.Append(buf[:0], s)
	}
	b.ReportAllocs()
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range names {
			buf, _ = d.Append(buf[:0], s)
		}
	}
}

func BenchmarkLibrary(b *testing.B) {
	names, n := benchNames(b)
	b.ReportAllocs()
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range names {
			// What the symbols package does when the fast path declines.
			_ = strings.ReplaceAll(demangle.Filter(s), ", >", ">")
		}
	}
}
