// Package capture is Tracy's server worker in Go: it connects to a Tracy
// 0.14 client (protocol 82), performs the handshake, reads the client's LZ4
// event stream, asks for everything the trace needs, and fills a
// model.Trace that tracefile writes as a .tracy file identical in content
// to what the real tracy-capture stores for the same stream. Replay runs
// the same pipeline over a recorded client-to-server stream.
//
// # Pipeline
//
// Two goroutines, as in Tracy's server (a network thread and one worker):
//
//   - the reader reads frames (u32 size + raw LZ4 block), decompresses them
//     with protocol.FrameReader (64 KiB history across frames) and copies
//     each into one of three 256 KiB buffers handed to the consumer over a
//     channel. Three buffers bound memory and read-ahead (Tracy's server also
//     reads at most two frames ahead), and when the consumer falls behind
//     the reader stops reading, so TCP back-pressure slows the client
//     instead of the server buffering without limit.
//   - the consumer (the worker) applies every item in stream order: items
//     depend on each other through the time references, the thread context
//     and the one-item "payload before event" slots, so decoding cannot be
//     split across goroutines. After each frame it sends the queries it
//     queued, and checks whether the session may end.
//
// The worker owns all of its state (no locks); the only shared data are the
// atomic counters behind the live status line.
//
// # Queries and flow control
//
// The first time the worker meets a key (a string or source-location
// pointer, thread id, plot or frame-set name, code address, symbol) it
// queues a query, exactly in the order Tracy's server does: a replay of the
// fixture recordings sends the same queries in the same order as the real
// capture did (source-file transfers aside: they depend on which files
// this machine has). That includes the call-stack frames of every
// instruction and direct branch target of the symbol code the client sends,
// which Tracy finds with Capstone and this package with golang.org/x/arch
// (disasm.go), so that the assembly view of a capture has its source lines,
// inline frames and call-target names. Queries go into a priority FIFO
// (types 0-8) and a normal FIFO and are sent after each frame within a
// budget of min(SO_SNDBUF/13, 8192) - 4 packets, one unit returned per
// counted answer: both sides send with blocking writes on one socket, and the budget
// guarantees the client can always read what the server sent. The budget
// never grows above its start, so unsolicited answers cannot inflate it. In
// a replay queries go nowhere and the budget is unlimited.
//
// Answers are matched by key, except SourceLocation answers, which carry no
// key and are matched to the oldest unanswered query. Answers nobody asked
// for are stored anyway (a recording holds the answers to its own server's
// queries, which a differently configured replay may not ask).
//
// # Ending
//
// On the client's Terminate the worker keeps going until nothing is
// outstanding and every zone stack is empty (Tracy's termination check),
// then sends ServerQueryTerminate and closes. Ctrl-C (context), the time
// limit and the memory limit send ServerQueryTerminate at once. A lost
// connection, a malformed frame or an instrumentation failure (zone ended
// twice, free of unknown memory, ...) stop the capture with a typed error
// (ErrConnectionLost, ErrMalformed, ErrInstrumentation), and so does a
// client silent for longer than WithIdleTimeout (ErrIdleTimeout). A
// session that ends after Terminate with queries still unanswered (a
// recording cut short, a client that closed early) returns
// *UnansweredError, counting what is missing. In every case the trace built
// so far is returned: a capture never throws data away.
//
// # Timeouts
//
// Every wait on the network is bounded: WithConnectTimeout for a client to
// accept (default: until ctx ends, as tracy-capture waits), then
// WithHandshakeTimeout for its welcome (default 10 s: a silent peer, half a
// welcome), WithIdleTimeout between reads once connected (default 60 s; a
// Tracy client sends a keepalive every 5 s) and, with the same bound, for
// each write of queries. A peer that answers with bytes no Tracy client
// sends is ErrNotTracy; a welcome whose timer multiplier is not a positive,
// finite number is ErrBadWelcome, never silently replaced.
//
// # Symbols
//
// WithSymbols chooses where call-stack frames are resolved. SymbolsClient
// (the default) stores them as the client sent them, as tracy-capture does.
// SymbolsServer resolves, through package symbols, the frames a client left
// in TRACY_SYMBOL_OFFLINE_RESOLVE form ("[unresolved]", symAddr = image-
// relative address, image = full path): finished frame answers are batched
// after each transport frame and handed to Resolver.ResolveAsync (at most
// four batches in flight; later frames accumulate into bigger batches), and
// the consumer merges each finished batch into the trace when it arrives,
// through the same select that receives transport frames, so the model
// keeps one writer and ingest never waits for DWARF to be parsed. Batches
// still running when the stream ends are waited for (also after Ctrl-C:
// resolution is local and bounded). Result.Symbols reports what was
// resolved and why the rest was not. SymbolsNone resolves nothing.
//
// With SymbolsServer or SymbolsNone, a gotracy Go client that advertises
// protocol.ExtImagesHostInfo in its HostInfo is asked for its image list
// (protocol.ServerQueryGotracyImages) before any other query; it then
// answers frame queries in offline form and the server verifies the
// executable's build id from the list. The images are recorded in the
// trace as app-info lines (symbolize.ImageRecord) for later offline
// re-resolution. A Tracy client never advertises the line and is never
// sent the query.
//
// # Storage decisions
//
//   - Times are converted as Tracy does, (tick - initBegin) * timerMul in
//     double precision, truncated; the base frame set gets Tracy's synthetic
//     frames at 0 and at initEnd (and at the connection time on demand),
//     which is why a capture of N frame marks has N+2 (N+3) frames.
//   - Zones are appended in begin order, which is the model's depth-first
//     pre-order; the open stack holds indices. Each zone is written once,
//     in place (model.ZoneList.AppendZero), into the chunked list the trace
//     keeps: chunks never move, so growth copies nothing, and finish only
//     trims the last chunk and hands the list to the trace (22 bytes per
//     zone, no final copy, no second copy alive at the peak).
//   - Call stacks are de-duplicated on arrival by the XXH3 hash of their
//     packed frames, confirmed by comparing the frames, and referenced by
//     a 1-based 24-bit index; only a new stack queries its addresses.
//   - Strings are interned by content; pointer keys map to interned ids.
//     Plots and frame sets join the trace when their names arrive, and two
//     keys naming the same text are merged, as Tracy's StringDiscovery.
//   - Frame images are kept as Tracy's server keeps them: standard BC1 after
//     Tracy's FixOrder and rate-distortion pass (texture.Prepare), then
//     Zstd level 3 (model.FrameImage.Packed; the demo's 320x180 frames take
//     about 9.4 KB instead of 28,800 bytes). The blocks wait for their size
//     in one reused buffer and are compressed by texture's shared Packer
//     into another, so an image costs one exact-size allocation and a
//     capture no Zstd state of its own. The file writer unpacks them, since
//     a .tracy file stores the prepared bytes uncompressed.
//   - Messages are appended as they come and sorted once at the end in
//     Tracy's order (time; among equal times, the later arrival first).
package capture
