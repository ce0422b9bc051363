// Package symbolize resolves the call-stack frames of a trace through
// package symbols: offline, for a saved trace (`gotracy symbolize`, Tracy's
// `update -r/-R/-p`), and during a capture (`gotracy capture
// --symbols=server`), which shares the frame conversion below so that both
// produce the same frames.
//
// # Which frames
//
// A Tracy client built with TRACY_SYMBOL_OFFLINE_RESOLVE (or run with
// TRACY_SYMBOL_OFFLINE_RESOLVE=1) answers every call-stack frame query with
// one frame named "[unresolved]", file "[unknown]", line 0, its symAddr set
// to the image-relative address (the return address minus the image's load
// base) and the image name set to the image's full path. Those are the
// frames this package resolves. The frame id (the absolute address) minus
// that offset is the image's load base, which is how an already resolved
// frame of the same image can be re-resolved with Reset.
//
// # What is written
//
// A resolved frame becomes one model.InlineFrame per source level,
// innermost first (Tracy's order: the last one is the real machine
// frame), each with symAddr kept as the image-relative address. Tracy's
// update tool also keeps symAddr, and for the same reason: it is the only
// place a .tracy file keeps the offset, so a later run (another debug file,
// --reset) can resolve the frame again.
//
// Go's runtime.Callers lists every inlined call as a call-stack entry of
// its own, so for images the gotracy Go client lists as "logical"
// (ImageRecord.Logical) only the innermost level of each answer is kept
// (LogicalFrame): the outer levels are the next entries of the stack, and
// this is what makes server-side frames equal the client's own.
//
// Images and their load bases (and build ids, when known) are recorded as
// app-info lines "gotracy image: base=0x... size=0x... id=... path=..."
// (ImageRecord). A .tracy file has no image table; app-info lines are
// plain strings every Tracy version loads and shows in its trace
// information window, so the file stays readable by the real tools. The
// ids in those lines are what Trace verifies candidate files against.
//
// # Failure never makes a trace worse
//
// A frame whose image cannot be found, whose debug file's build id differs
// from the recorded one (symbols.ErrBuildIDMismatch; that file is never
// used), or whose address is covered by no function keeps the state it
// had: an offline frame stays "[unresolved]" with its offset, a frame
// resolved before keeps its old answer even with Reset. The Report counts
// each reason per image.
package symbolize
