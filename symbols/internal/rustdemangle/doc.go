// Package rustdemangle turns Rust symbol names, both the legacy scheme
// (_ZN...17h<hash>E) and v0 (_R...), into the exact text binutils 2.40
// prints for them: what `addr2line -f -i -C` and `c++filt -i` show.
//
//	buf, ok := rustdemangle.Append(buf[:0], name)
//	if !ok && strings.HasPrefix(name, "_ZN") {
//		// a C++ name after all: demangle it as C++
//	} else if !ok {
//		// print name unchanged, as binutils does
//	}
//
// That is binutils' own order: it tries the Rust demangler first and falls
// back to the C++ demangler only when it fails, and since the C++ demangler
// rejects _R names, binutils prints those raw.
//
// The output follows binutils' conventions and quirks rather than rustc's
// demangler, because the symbols package is tested against addr2line; a
// corpus of real and mutated names checked against c++filt holds it to
// that. Append prints straight into the caller's buffer and, once the
// buffer has grown, allocates nothing.
//
// Two bounds that binutils does not have keep hostile input cheap: a
// demangled name longer than MaxOutput bytes, or one that needs more than
// about two million parse steps (backreferences can make output
// exponential in the input), reports ok=false. binutils' own nesting limit
// (1024 levels of paths, types and consts) is reproduced exactly.
//
// Which conventions and quirks, and how they were learnt, is in
// docs/DESIGN.md in the repository.
package rustdemangle
