// Package itanium is a fast path for demangling Itanium C++ ABI names (the
// scheme GCC and Clang use on ELF and Mach-O) into the exact text binutils
// prints: what `addr2line -f -i -C` and `c++filt -i` show. Package symbols
// tries it before the general demangler:
//
//	var d itanium.Demangler // reusable, one per goroutine
//	buf, ok := d.Append(buf[:0], "_ZNSt6vectorIiSaIiEE9push_backERKi")
//	if !ok {
//		// not handled here: use github.com/ianlancetaylor/demangle
//	}
//
// It is deliberately partial. Append reports ok=false for what it does not
// implement (most expressions beyond literals, template parameters, pack
// expansions and plain or sr-qualified names; decltype, generic or
// constrained lambdas, modules, vector and vendor types, legacy Rust names,
// names over 16 KiB, and shapes only mutated names have) and for invalid
// input. Where it says ok, its output is byte-identical to c++filt -i,
// quirks included: a golden corpus checked against live c++filt, mutation
// tests and a fuzz target hold it to that. After warm-up it allocates
// nothing.
//
// Hostile input is bounded: recursion depth, the node arena and the output
// (substitutions can make the text grow exponentially) have limits past
// which the answer is ok=false.
//
// Why a second demangler, and which libiberty quirks it reproduces, is in
// docs/DESIGN.md in the repository.
package itanium
