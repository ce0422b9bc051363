// Package tracy instruments Go programs for the Tracy frame profiler: zones of
// tens of nanoseconds, frames and screenshots, plots, messages, memory and
// lock events, viewed live in the real Tracy 0.14 GUI or recorded by
// tracy-capture or gotracy capture. It is pure Go (no cgo) and speaks Tracy's
// wire protocol 82 through the protocol package.
//
//	func main() {
//		tracy.Start()            // listen on 127.0.0.1:8086 (or the next free port)
//		defer tracy.Stop()       // deliver everything before exit
//		for {
//			update()
//			tracy.FrameMark()
//		}
//	}
//
//	var updateLoc = tracy.NewLoc("update") // once per call site
//
//	func update() {
//		defer tracy.Begin(updateLoc).End()
//		...
//	}
//
// Before Start, after Stop, or in a program built with the notracy tag,
// every function does nothing, at about a nanosecond per call.
//
// # Transport: one queue per goroutine, one sender
//
// A profiler that slows the program it measures measures the wrong program,
// so producers never touch the network and never take a lock for thread-bound
// events (zones, zone annotations, messages, plots). Each goroutine owns a
// single-producer/single-consumer queue of chunks: it appends a compact
// record (kind, raw time, fields; 17 bytes for a zone begin, 9 for an end)
// and publishes the new length with one release store (a plain MOV on amd64,
// STLR on arm64, about 1 ns, against 6 ns for sync/atomic's XCHG). A zone
// begin or end is one assembly call that writes the record, reads the
// counter and publishes, because each call into assembly costs a couple of
// nanoseconds and the counter read itself about 11. One
// sender goroutine walks the queues, turns records into protocol items
// (adding ThreadContext and the compact 16/32/64-bit time deltas, which
// depend on everything sent before and so can only be computed in one
// place), answers the server's queries in between, and writes LZ4 frames
// of at most 256 KiB through protocol.FrameWriter. Runs of zone records,
// the bulk of any capture, are converted inline into a pre-sized buffer,
// and the batches go to FrameWriter.WriteTrustedItems, which does not check
// again items the sender built itself: it never splits a batch, and the
// sender hands over batches only between records and smaller than a frame,
// so frames still hold whole items. The sender pauses 0.5 ms
// between passes unless queue memory is filling up: reading a queue's
// length while its goroutine writes the next record would bounce that
// cache line between cores on every record, which costs the producer more
// than the record itself. Queue chunks double from 1 KiB to 64 KiB, so a
// goroutine that emits little holds little, and the states of goroutines
// idle for five seconds are retired. Because each goroutine's
// records stay in its own queue, its zones nest correctly however the
// scheduler moves it between OS threads, and 1,000 goroutines emitting at
// once never contend.
//
// Events whose order matters across goroutines (lock wait/obtain/release,
// memory allocation and free, frame marks and images, configuration) go
// through one mutex-protected serial queue with the time read inside the
// mutex, as in Tracy's own client, so each lock's and each pool's events
// reach the server in time order.
//
// # Back-pressure: bounded memory, nothing dropped
//
// When the server (or the network) is slower than the program, queue memory
// grows up to the limit of WithMemoryLimit (256 MiB by default); past it, a
// producer that needs a new chunk waits, sleeping 50 us at a time,
// until the sender has freed one, and ReadStats().ProducerWaits counts
// those waits. Dropping events instead would unbalance zones (the server
// refuses a zone end without its begin) and silently falsify the profile;
// blocking keeps the capture exact and makes the slowdown visible where it
// happens; a server that accepts nothing for 10 s is disconnected
// (ErrServerStalled), so no wait is unbounded. Frame images are the one
// exception: at most four wait for the compressor, and a fifth is refused
// with ErrImageBusy, because a lost screenshot corrupts nothing. Before the
// first server connects (without WithOnDemand) the sender keeps
// compressing into an in-memory backlog bounded by WithBacklogLimit; when
// it is full, recording stops with one warning (Stats.BacklogStops) rather
// than the program, and resumes when a server connects. With WithOnDemand
// nothing is recorded while nobody is connected.
//
// # Clock: the CPU's counter, calibrated once
//
// Reading the Go runtime's monotonic clock costs about 29 ns on a VM with
// kvm-clock, which would dominate a zone; the CPU's invariant TSC costs
// about 11 ns. Like Tracy, the client reads the counter with a one-
// instruction assembly function (RDTSC on amd64, CNTVCT_EL0 on arm64),
// timestamps everything in raw ticks, and sends the multiplier (ns per
// tick) in the welcome message, measured between Start and the server's
// connection (at least 50 ms, so the two clock reads' error is below
// 1e-6). On amd64 the counter is used only when CPUID leaf 0x80000007
// reports an invariant TSC (EDX bit 8); otherwise, on other architectures,
// and with the purego build tag, ticks are runtime nanoseconds and the
// multiplier is 1.
//
// # Goroutine identity
//
// Each goroutine is a thread in the viewer, with its goroutine id as thread
// id ("goroutine N", "main" for goroutine 1, or a name set with
// SetThreadName). The runtime hides goroutine ids, but the id is a field of
// the runtime's g structure and an assembly helper reads a word of the
// running goroutine's g in about 1 ns. The field's offset changes between Go
// versions, so it is never hard-coded: at start-up the package compares the
// words of g with the id runtime.Stack prints, in several goroutines, and
// uses the offset only if exactly one matches in all of them. A lock-free
// open-addressing table maps ids to queues (about 3 ns); Begin returns a
// Zone holding the queue, so End and the zone annotations need no lookup
// at all. Without the assembly (purego, other architectures) the id comes
// from runtime.Stack, correct but about 1 us per Begin. Goroutine ids above
// 2^32 would wrap in the viewer's 32-bit thread ids.
//
// # Source locations and strings
//
// Tracy names zones through source locations that the server asks for once
// per connection and caches, and it refuses captures with more than 32767
// of them. A Loc is created once per call site (NewLoc, typically a
// package-level variable) and is then free to use. BeginHere takes its
// location from the caller's program counter, interned once per call site.
// BeginNamed interns a location per distinct run-time name, up to 8192
// names; later names share one location and travel with each zone, so a
// capture of hours with unbounded names neither grows client memory nor
// breaks the server's limit (seed 002: one location per function, never one
// per call).
//
// # Call stacks and symbols
//
// Call stacks are runtime.Callers program counters. When the server asks
// about an address, the answer comes from the runtime's own tables
// (runtime.CallersFrames: inlined frames innermost first, the function
// itself last, with its entry address as symbol). The server may then ask
// for source files; the client sends a file only if it named that file to
// the server itself (in a location, a frame or a symbol answer, all taken
// from the binary's pclntab), never an arbitrary path.
package tracy
