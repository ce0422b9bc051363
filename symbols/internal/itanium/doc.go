// Package itanium is a fast path for demangling Itanium C++ ABI names
// (the scheme GCC and Clang use on ELF and Mach-O) into the exact text
// binutils prints: `addr2line -f -i -C`, which is `c++filt -i` (libiberty's
// cp-demangle without DMGL_VERBOSE).
//
// The library github.com/ianlancetaylor/demangle builds a pointer AST,
// copies it to simplify it and then prints it; for the template-heavy
// names of a large C++ binary that is most of the cost of symbolizing an
// address. This package parses into a small arena of nodes addressed by
// int32 indices that a Demangler keeps between calls, and prints straight
// into the caller's buffer, so after warm-up it allocates nothing.
//
// Output follows libiberty, quirks included: a list element that prints
// nothing (an empty pack) takes back its ", " but leaves the last-printed
// character a space, so "<A<int>>" gets no space before its '>'; a
// constructor is named after the last source name parsed outside template
// arguments; sr-qualifiers are not substitution candidates; a template
// parameter bound to a pack outside an expansion prints one element;
// qualifiers stacked on a qualified argument print in push order.
//
// It is deliberately partial. Append reports ok=false for anything it
// does not implement (most expressions: it knows literals, template
// parameters, pack expansions and plain or sr-qualified names, which is
// what library code puts in enable_if; also decltype, generic or
// constrained lambdas, modules, vector and vendor types, legacy Rust
// names, names over 16 KiB, and shapes only mutated names have where
// binutils prints in ways not reproduced here) and for invalid input; the
// caller then falls back to the library. Where it says ok, its output is
// byte-identical to c++filt -i: a golden corpus checked against live
// c++filt, mutation tests and a fuzz target hold it to that.
//
// Hostile input is bounded: parse and print recursion (maxDepth), the
// arena and the output (maxOutput; substitutions can make the text grow
// exponentially) all have limits past which the answer is ok=false.
package itanium
