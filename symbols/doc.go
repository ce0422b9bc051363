// Package symbols turns (image, image-relative address) pairs into source
// frames: function, file, line, column, and the chain of inlined calls,
// innermost first, as `addr2line -f -i` prints them. It resolves the call
// stacks of Tracy clients that leave symbol resolution to the server,
// re-resolves saved traces (package symbolize), and is the engine of the
// `gotracy symbols` commands. It imports nothing else from gotracy.
//
//	r, err := symbols.New(symbols.WithSearchPath("/srv/debug"))
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	img := symbols.Image{Path: "/usr/bin/game", ID: id} // id from the trace; zero trusts the path
//	res := r.Lookup(img, 0x4012a0)
//	if res.Err != nil {
//		return res.Err // wraps ErrImageNotFound, ErrBuildIDMismatch, ErrNoDebugInfo, ...
//	}
//	for _, f := range res.Frames {
//		fmt.Println(f.Function, f.File, f.Line, f.Inlined)
//	}
//
// Resolve answers a batch on several goroutines (WithWorkers) and
// ResolveAsync does so without blocking the caller. A Resolver caches every
// image it opened and is safe for concurrent use; opening a large binary
// reads only what the index needs, and each compile unit is indexed the
// first time an address falls in it.
//
// # Formats
//
// ELF with DWARF 4 and 5 (compressed sections included), with the symbol
// table as fallback; Go binaries through DWARF, or through the pclntab when
// stripped (inlined frames included); Mach-O with DWARF in the image or a
// dSYM bundle; PE/COFF through DWARF (MinGW, Go), the COFF symbol table and
// the export directory. PDB files are not read: an MSVC binary resolves to
// exported names only, and its Result says ErrNoDebugInfo. Names are
// demangled (C++, Rust) as binutils prints them, unless WithDemangle(false).
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
// # Identity
//
// Every file carries an ID: the GNU build id, the Go build id, the Mach-O
// LC_UUID or the PE CodeView GUID and age. A candidate whose id differs
// from the requested image's is never used, wherever it was found; the
// Result then wraps ErrBuildIDMismatch, and a *MismatchError says which
// file and which ids, so a caller can tell "stale binary" from "not
// found". A zero ID trusts the path, as Tracy's update tool does.
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
// directory (checked by CRC when there is no build id), then from
// WithDebuginfod. WithConfinement restricts all of this to the search
// directories, for servers answering untrusted requests.
//
// # Symbol server
//
// Server (NewServer) answers the symbolication API v5 of the Firefox
// profiler and samply (POST /symbolicate/v5) and serves compact symbol
// tables (GET /symbol-table/v1/DEBUGNAME/BREAKPADID); `gotracy symbols
// serve` runs it.
//
// # addr2line mode and trace frames
//
// By default frames are what a Tracy client would have sent for the
// address: DWARF names, paths normalised as Tracy's client normalises
// them. WithAddr2line selects binutils 2.40 addr2line's answers instead,
// bugs included (raw DWARF paths, its smallest-range rule for inlined
// code, ELF-symbol names for functions without a linkage name, which
// depend on the queries before, so they come from an Addr2line session).
// `gotracy symbols resolve` uses that mode; docs/DESIGN.md lists the rules
// and the few cases not reproduced.
//
// How the index is laid out for fast cold resolution, and why the package
// has its own DWARF reader and demanglers, is in docs/DESIGN.md in the
// repository.
package symbols
