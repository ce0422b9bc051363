// Package rustdemangle turns Rust symbol names, both the legacy scheme
// (_ZN...17h<hash>E) and v0 (_R...), into the exact text binutils prints
// for them with DMGL_PARAMS|DMGL_ANSI and without DMGL_VERBOSE, which is
// what `addr2line -f -i -C` and `c++filt -i` show.
//
// The symbols package is tested against addr2line, so "close to rustc's
// own demangler" is not good enough: binutils has its own conventions
// (crate disambiguators dropped, `{closure#N}`, `{shim:vtable#0}`,
// consts without type suffixes, wide integers printed as a raw hex
// string) and its own quirks (a `_` after an empty v0 identifier is
// swallowed, hyphens restored in ABI names skip one character, legacy
// names keep `.` verbatim, str and structural consts are rejected). This
// package reproduces the rules of binutils 2.40's libiberty demangler:
// written from the Rust mangling specifications, with the printing rules
// learnt from libiberty, and checked against c++filt over a corpus of
// real and mutated names.
//
// Append prints straight into the caller's buffer and keeps all other
// state on the stack (punycode is decoded in the tail of that buffer),
// so after the buffer has grown it allocates nothing.
//
// Rust versus C++: binutils tries the Rust demangler first and falls back
// to the Itanium C++ demangler only if it fails. Callers should do the
// same: when Append reports ok=false for a _ZN name, demangle it as C++;
// when it reports ok=false for an _R name, print the name unchanged (the
// C++ demangler rejects _R names, so binutils prints them raw).
//
// Two bounds that binutils does not have keep hostile input cheap: a
// demangled name longer than MaxOutput bytes, or one that needs more than
// about two million parse steps (backreferences can make output
// exponential in the input), reports ok=false. binutils' own nesting limit (1024 levels of
// paths, types and consts) is reproduced exactly.
package rustdemangle
