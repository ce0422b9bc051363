// Package capture is a Tracy server in Go, without the GUI: it connects to
// a program instrumented with Tracy 0.14 (C, C++, Rust, Zig, or Go through
// package tracy), receives its events, asks it for everything the trace
// needs (names, source locations, call-stack frames, code), and builds a
// model.Trace that package tracefile saves as the .tracy file the real
// tracy-capture would store for the same session. Replay runs the same
// pipeline over a recorded client stream.
//
// Capturing until the program exits, Ctrl-C or a time limit:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//	defer stop()
//	res, err := capture.Connect(ctx, "127.0.0.1:8086", capture.WithTimeLimit(time.Minute))
//	if res != nil && res.Trace != nil {
//		if werr := tracefile.WriteFile("trace.tracy", res.Trace); werr != nil {
//			return werr
//		}
//	}
//	if err != nil {
//		return err // the trace so far was saved above
//	}
//	fmt.Println(res.Stop, res.Trace.ZoneCount(), "zones")
//
// Connect waits for the program to listen. WithRecord also keeps every byte
// the client sent, which Replay (and `gotracy replay`) turns into the same
// trace later; WithMemoryLimit stops before the capture exhausts memory;
// WithProgress reports live statistics.
//
// # Ending, and what is kept
//
// A capture ends when the client says it is done and every answer it owes
// has arrived, or at once on context cancellation, the time limit or the
// memory limit (Result.Stop says which). A lost connection, a malformed
// stream, a client silent for longer than WithIdleTimeout, or an
// instrumentation error in the profiled program (a zone ended twice, memory
// freed that was never allocated, ...) stop it with an error matching
// ErrConnectionLost, ErrMalformed, ErrIdleTimeout or ErrInstrumentation; a
// refused handshake is a *HandshakeError naming both protocol versions. A
// session that ends after Terminate with queries still unanswered (a
// recording cut short, a client that closed early) returns *UnansweredError,
// counting what is missing. In every case Result.Trace holds what was
// received: a capture never throws data away.
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
// WithSymbols chooses where call-stack frames are resolved. SymbolsClient,
// the default, stores them as the client sent them, as tracy-capture does.
// SymbolsServer resolves, with package symbols on this machine, the frames
// of a client that leaves resolution to the server (Tracy's
// TRACY_SYMBOL_OFFLINE_RESOLVE, or the gotracy Go client, which is asked for
// its image list and build ids); Result.Symbols reports what was resolved
// and why the rest was not. SymbolsNone resolves nothing, for
// `gotracy symbolize` to do later. Resolution runs beside the capture and
// never slows its intake.
//
// How the pipeline, the queries and their flow control follow Tracy's own
// server, and how the trace is stored in memory, is in docs/DESIGN.md in the
// repository.
package capture
