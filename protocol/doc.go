// Package protocol is Tracy 0.14.0's wire protocol, version 82: the contract
// between an instrumented program (the client) and the Tracy GUI or capture
// tool (the server). It is a leaf package: it imports only the standard
// library, so both the Go client (tracy) and the capture server (capture)
// can share one implementation of every byte layout, and neither can drift
// from the other.
//
// # One table
//
// Specs describes all 132 queue types (size, field offsets and kinds, time
// reference, thread binding). The decoder's size lookup, the typed
// accessors, the time references, the text form and the generated
// Append<Type> encoders (append_gen.go, produced from Specs by
// internal/genappend) are all derived from it, and a test checks every
// entry against the specification document.
//
// # Items
//
// ItemDecoder walks a decompressed frame and hands out Item values: the type
// and a view of the item's raw bytes inside the frame. Nothing is copied or
// allocated per item; a fixed-size item, nearly all of a real stream, costs
// one table lookup and a bounds check. (A variant that pre-indexed item
// boundaries so Next could be inlined measured 40% slower: the extra pass
// over memory costs more than the call it saves.) Items never span frames,
// so a frame is self-contained for splitting; cross-item state (the time
// references, the thread context, pending strings and payloads) is the
// caller's. Typed accessors are generated per type (it.ZoneBegin() returns
// time and srcloc), plus generic ones driven by the table (Field, Payload,
// Ptr, Thread) and a stable text form (AppendText, used by gotracy dump).
//
// Encoders are append-style (AppendZoneBegin(dst, ...)) so a client can build
// items straight into its staging buffer with no allocation after warm-up.
// String and payload encoders are generic over string and []byte for the
// same reason, and refuse lengths the 0.14.0 server cannot take (ErrTooLong)
// rather than truncating silently. Composite answers (a callstack-frame
// answer, a symbol answer, a frame image with its data) have helpers that
// emit the whole item sequence in the order the server expects.
//
// # Time
//
// TimeRefs implements the four per-connection time references (R_T reset by
// every ThreadContext, R_S, R_C, R_G) and the compact 16/32/64-bit zone and
// sample encodings in both directions. The client encodes with the same
// code the server decodes with, because the two must apply exactly the same
// sequence of updates; a mismatch corrupts every later timestamp silently.
//
// # Frames
//
// After the handshake the client sends u32 size + raw LZ4 block frames whose
// matches may reach 64 KiB back into earlier frames. FrameReader and
// FrameWriter use this package's own LZ4 block codec working in place over a
// history buffer of 64 KiB + 4 frames: decoding writes each frame right
// after the bytes before it, so the dictionary is free and the buffer only
// moves its last 64 KiB to the front every fourth frame or so; encoding
// keeps the previous 64 KiB it sent as a prefix dictionary, as Tracy's own
// client does, and matches its compression (heavy10m re-encoded: 2,958,626
// bytes against Tracy's 2,960,619). A dedicated codec also means neither
// side allocates per frame and neither needs a second copy of the data to
// build a dictionary. pierrec/lz4 is used only in tests, as an independent
// oracle for both directions.
//
// FrameReader reads exactly what it needs from its io.Reader (a u32, then
// the block); on a network connection wrap it in a bufio.Reader. The
// handshake helpers (ServerHandshake, ClientHandshake, ReadSession) read
// exactly the handshake bytes, so the same reader continues with frames.
//
// # Errors
//
// Malformed input never panics. Errors wrap the sentinels (ErrUnknownItem,
// ErrTruncated, ErrFrameSize, ErrCorruptLZ4, ErrBadHandshake,
// ErrProtocolMismatch, ...) in a *StreamError that names the byte offset and
// item type, because a stream with an unknown tag cannot be resynchronised
// and the offset is what a user needs to look at the bytes.
package protocol

//go:generate go run ./internal/genappend
