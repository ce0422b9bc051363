// Package demangletest holds what the tests of the two demanglers
// (internal/itanium, internal/rustdemangle) share: the binutils release
// their goldens were recorded with, finding that release's c++filt, and the
// golden format (gzipped lines of a mangled name, a tab, the expected text).
//
//	for _, e := range demangletest.ReadGolden(t, "testdata/binutils.txt.gz") {
//		got, _ := itanium.String(e.Name)
//		if got != e.Want { ... }
//	}
//	if cxxfilt, ok := demangletest.CxxFilt(); ok {
//		// also compare with the live c++filt of that binutils release
//	}
package demangletest
