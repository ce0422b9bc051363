// Package symbolize resolves the call-stack frames of a trace with package
// symbols: offline, for a saved trace (`gotracy symbolize`, like Tracy's
// `update -r/-R/-p`), and during a capture (`gotracy capture
// --symbols=server`), which share one frame conversion so both produce the
// same frames.
//
// Re-resolving a saved trace against the binaries and debug files of this
// machine:
//
//	tr, err := tracefile.ReadFile("trace.tracy")
//	...
//	r, err := symbols.New(symbols.WithSearchPath("build/"))
//	...
//	rep, err := symbolize.Trace(ctx, tr, r, symbolize.Options{})
//	fmt.Println(rep.Resolved, "of", rep.Candidates, "frames resolved")
//	err = tracefile.WriteFile("trace.sym.tracy", tr)
//
// # Which frames
//
// A Tracy client built with TRACY_SYMBOL_OFFLINE_RESOLVE (or run with
// TRACY_SYMBOL_OFFLINE_RESOLVE=1) answers every call-stack frame query with
// one frame named "[unresolved]", file "[unknown]", line 0, its symbol
// address set to the image-relative address and its image name set to the
// image's full path. Those are the frames Trace resolves. With
// Options.Reset it also re-resolves frames resolved before (by the client
// or an earlier run), wherever the image's load base is known.
//
// A resolved frame becomes one model.InlineFrame per source level,
// innermost first (Tracy's order), each keeping the image-relative address,
// so a later run can resolve the frame again. For images the gotracy Go
// client marks as logical, whose inlined calls are call-stack entries of
// their own, only the innermost level of each answer is kept
// (LogicalFrame), so server-side frames equal the client's own.
//
// Images, with their load bases and build ids when known, are recorded in
// the trace as app-info lines ("gotracy image: base=0x... size=0x...
// id=... path=...", ImageRecord), which every Tracy version loads and shows
// in its trace information window. Trace verifies candidate files against
// those ids; Options.IDs overrides them.
//
// # Failure never makes a trace worse
//
// A frame whose image cannot be found, whose debug file's build id differs
// from the recorded one (symbols.ErrBuildIDMismatch; that file is never
// used), or whose address is covered by no function keeps the state it
// had: an offline frame stays "[unresolved]" with its address, a frame
// resolved before keeps its old answer even with Reset. The Report counts
// each reason per image.
package symbolize
