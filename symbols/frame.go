package symbols

// Frame is one source-level frame at an address. An address inside inlined
// code yields several frames, innermost first (the order `addr2line -i`
// prints): only the last one is a real machine frame.
type Frame struct {
	// Function is the (demangled, unless the Resolver was told not to)
	// function name; "" when unknown.
	Function string
	// File is the source path as recorded in the debug information
	// (directory joined with the file name); "" when unknown.
	File string
	// EmptyFile is set when File is "" because the debug information
	// names the file with an empty string (an LTO object's STT_FILE
	// symbol) rather than not at all: addr2line then prints ":" where it
	// prints "??:" otherwise.
	EmptyFile bool
	// Line and Column are 1-based; 0 means unknown.
	Line   int
	Column int
	// Discriminator is the line table's discriminator for the innermost
	// frame (addr2line prints it); 0 when absent.
	Discriminator int
	// Inlined is true when this frame was inlined into the next one.
	Inlined bool
	// FuncAddr is the image-relative entry address of the enclosing real
	// (non-inlined) function when known; the symbol server's
	// function_offset is the address minus this.
	FuncAddr uint64
	// HasFuncAddr tells FuncAddr==0 apart from "unknown".
	HasFuncAddr bool
}

// Image names one loaded binary as a profiler recorded it.
type Image struct {
	// Path is the path the image was loaded from on the profiled machine.
	Path string
	// ID is the build id the client reported; zero when unknown, in which
	// case a file found by path is trusted (Tracy's update-tool behaviour).
	ID ID
}

// Request asks for the frames at one image-relative address: the runtime
// address minus the image's load bias (ELF: dlpi_addr, so for ELF this is
// the link-time virtual address addr2line takes), or minus the module base
// (PE: an RVA; Mach-O: offset from the Mach-O header). This is what Tracy's
// TRACY_SYMBOL_OFFLINE_RESOLVE clients send.
type Request struct {
	Image Image
	Addr  uint64

	// a2lUnit is the unit an Addr2line session found binutils would
	// answer from: its index + 1, -1 for none, 0 when not chosen.
	a2lUnit int32
}

// Result is the answer for one Request. When Err is non-nil Frames may still
// hold a partial answer (a symbol-table name without a line); Err wraps one
// of the package's sentinel errors so the reason is machine-readable.
type Result struct {
	Frames []Frame
	Err    error

	a2l []a2lMeta // addr2line mode: one per frame, for Addr2line sessions
}
