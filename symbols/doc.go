// Package symbols turns (image, image-relative address) pairs into source
// frames: function, file, line, column, and the chain of inlined calls,
// innermost first, as `addr2line -f -i` prints them. It is the server-side
// half of Tracy's "resolve in the profiler" mode, the engine of offline
// re-symbolication and of the `gotracy symbols` commands, and it imports
// nothing else from gotracy.
//
// # Formats
//
// ELF with DWARF 4 and 5 (compressed sections included), with the symbol
// table as fallback; Go binaries through DWARF, or through the pclntab when
// stripped; Mach-O with DWARF in the image or a dSYM bundle; PE/COFF through
// DWARF (MinGW, Go), the COFF symbol table and the export directory. PDB
// files are not read: an MSVC binary resolves to exported names only, and
// its Result says ErrNoDebugInfo. Names are demangled (C++, Rust) unless
// WithDemangle(false).
//
// # Identity
//
// Every file carries an ID: the GNU build id, the Go build id, the Mach-O
// LC_UUID or the PE CodeView GUID and age. A candidate whose id differs
// from the requested image's is never used, whether it was found by path,
// in a search directory, in a build-id tree, beside the image as a
// .gnu_debuglink target (checked by CRC when there is no build id), as a
// dSYM, or downloaded from debuginfod. The Result then wraps
// ErrBuildIDMismatch (and MismatchError says which file and which ids), so
// the caller can tell "stale binary" from "not found". A zero ID trusts the
// path, as Tracy's update tool does.
//
// # Search
//
// For an image recorded as /build/out/libfoo.so the Resolver tries, in
// order: the recorded path; each WithSubstitution rewrite of it (Tracy's
// `update -p`); SEARCHDIR/libfoo.so and SEARCHDIR/build/out/libfoo.so for
// each WithSearchPath directory; ROOT/.build-id/xx/rest for search
// directories and WithDebugDirs roots (default /usr/lib/debug). When the
// image has no DWARF, its split debug file is looked for in the build-id
// layout (ROOT/.build-id/xx/rest.debug), then by .gnu_debuglink beside the
// image, in its .debug directory, under each debug root and in each search
// directory, then from WithDebuginfod. WithConfinement restricts all of
// this to the search directories, for servers answering untrusted requests.
//
// # Addresses
//
// An image-relative address is the runtime address minus the image's load
// bias (ELF: dlpi_addr, which makes it the link-time address addr2line
// takes) or its base (PE: an RVA; Mach-O: the offset from the Mach-O
// header). That is what Tracy clients built with
// TRACY_SYMBOL_OFFLINE_RESOLVE send. Module.Base converts from file
// addresses, Module.ServerBase from the symbol server's module offsets.
//
// # Performance
//
// Opening an image reads only the DWARF sections the index uses (never
// location lists or frame tables; compressed ones are inflated with the
// klauspost decoders), the unit headers with their root DIEs, and the
// symbol table (on a goroutine of its own, names sharing the string
// table). A compile unit's line table (flattened into one sorted row
// array, sequences kept apart by end rows) and its function tree
// (subprograms and inlined subroutines with their ranges; outermost
// functions in a sorted range table) are built the first time an address
// falls in it, once each: the first worker to need the unit reads its
// function tree while a second one reads its line table. The DWARF reader
// is our own and allocates nothing per DIE: abbreviations are decoded
// once into arrays with each attribute's action and size, uninteresting
// DIEs are skipped by precomputed size or DW_AT_sibling, and names of
// abstract origins are memoised per build. The index arrays hold no
// pointers, so the collector never scans them: 24-byte line rows,
// 40-byte function nodes that name their function by a reference into a
// string section, and 24-byte range entries that carry how far back an
// overlapping range may start. They are built in scratch space the index
// reuses for its next unit and copied out at their exact size.
// debug/dwarf is kept in the tests only, as the oracle the index must
// agree with.
//
// Go binaries are answered from the pclntab and the runtime's inline tree
// (FUNCDATA_InlTree, PCDATA_InlTreeIndex), which give the same frames as
// their DWARF and need no inflating; the DWARF is read only for addresses
// the pclntab cannot answer (cgo code, padding). Stripped Go binaries get
// the same inlined frames.
//
// Every later lookup is a few branch-free binary searches and a short
// walk down the inline tree. Opened images are cached per (path, id) for
// the life of the Resolver. Resolve spreads a batch over WithWorkers
// goroutines (so the units a batch touches are indexed in parallel); each
// worker remembers the last image and the names it demangled, and appends
// its results' frames to shared slabs, so a batch allocates a few hundred
// times, not once per address. ResolveAsync does the same without
// blocking the caller. All methods are safe for concurrent use.
//
// # Symbol server
//
// Server implements the symbolication API v5 of the Firefox profiler and
// samply (POST /symbolicate/v5) and serves compact symbol tables
// (GET /symbol-table/v1/DEBUGNAME/BREAKPADID), the profiler's
// SymbolTableAsTuple: sorted library-relative addresses, byte offsets into
// one UTF-8 buffer of names.
//
// # Compatibility notes
//
// binutils addr2line differs from this package in two places, both binutils
// quirks: for a C++ function whose DWARF entry has no linkage name it
// prints the ELF symbol covering the address the first time it meets the
// function (and the DWARF name afterwards, so its output depends on query
// order), and binutils 2.40 names the wrong file for DWARF 5 line rows that
// rely on the initial file register. `gotracy symbols resolve` prints the
// DWARF answer in both cases (llvm-symbolizer agrees with it).
package symbols
