// Package itanium is a fast path for demangling Itanium C++ ABI names
// (the scheme GCC and Clang use on ELF and Mach-O) into the exact text
// github.com/ianlancetaylor/demangle prints in its default GNU style.
//
// The library builds a pointer AST, copies it to simplify it and then
// prints it; for the template-heavy names of a large C++ binary that is
// most of the cost of symbolizing an address. This package parses into a
// small arena of nodes addressed by int32 indices that a Demangler keeps
// between calls, and prints straight into the caller's buffer, so after
// warm-up it allocates nothing.
//
// It is deliberately partial. Append reports ok=false for anything it
// does not implement (most expressions: it knows literals, template
// parameters, pack expansions and plain or sr-qualified names, which is
// what library code puts in enable_if; also decltype, generic or
// constrained lambdas, modules, vector and vendor types, legacy Rust
// names, names over 16 KiB) and for invalid input; the caller then falls
// back to the library. Where it says ok, its output is byte-identical to
// demangle.Filter followed by replacing ", >" with ">" (the symbols
// package's convention), including the library's quirks; differential
// tests over real binaries and a fuzz target hold it to that.
//
// Hostile input is bounded: parse and print recursion (maxDepth), the
// arena and the output (maxOutput; substitutions can make the text grow
// exponentially) all have limits past which the answer is ok=false.
package itanium
