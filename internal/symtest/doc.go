// Package symtest gives the tests of server-side and offline symbol
// resolution (packages symbolize and capture) a reference to compare with:
// it builds a small C program with gcc and asks binutils addr2line about
// it.
//
//	bin := symtest.BuildC(t, t.TempDir(), "prog", "0123abcd", "-O2")
//	addrs := symtest.LineAddrs(t, bin, 200)
//	want := symtest.Addr2Line(t, bin, addrs) // innermost level first
//
// The helpers skip the test when gcc or addr2line is missing.
package symtest
