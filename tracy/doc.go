// Package tracy instruments Go programs for the Tracy frame profiler: zones of
// tens of nanoseconds, frames and screenshots, plots, messages, memory and
// lock events, viewed live in the Tracy 0.14 GUI or recorded headless by
// tracy-capture or gotracy capture. It is pure Go (no cgo).
//
// Start the profiler once, mark the end of each frame, and put zones around
// the work you want to see:
//
//	var updateLoc = tracy.NewLoc("update") // once per call site
//
//	func main() {
//		tracy.Start(tracy.WithProgramName("mygame")) // listens on 127.0.0.1:8086 (or the next free port)
//		defer tracy.Stop()                          // delivers everything recorded before exit
//		for {
//			update()
//			tracy.FrameMark()
//		}
//	}
//
//	func update() {
//		defer tracy.Begin(updateLoc).End()
//		...
//	}
//
// Then connect the Tracy GUI to the program, or record it with
// `gotracy capture -a 127.0.0.1 -o trace.tracy`.
//
// Before Start, after Stop, or in a program built with the notracy tag,
// every function does nothing, at about a nanosecond per call, so the
// instrumentation can stay in release code.
//
// # What to call
//
//   - Zones: Begin with a Loc made once by NewLoc (or NewColorLoc, LocAt) is
//     the cheapest; BeginHere takes the location from its caller, at about
//     100 ns more per zone; BeginNamed takes a name chosen at run time;
//     BeginCallstack also records the call stack. End closes the zone, and
//     the zone's methods add text, a value, a colour or a new name.
//   - Frames: FrameMark ends a frame of the main frame set, FrameMarkNamed
//     one of a secondary set, FrameMarkStart and FrameMarkEnd delimit
//     discontinuous frames; FrameImage attaches a screenshot to a frame.
//   - Plots (Plot, PlotInt, PlotFloat, PlotConfig), messages (Message,
//     MessageColor, MessageCallstack; AppInfo for the trace's information
//     window) and parameters the viewer can change (Parameter,
//     OnParameter).
//   - Memory: Alloc and Free, with Named (a pool), Callstack and Secure
//     variants; MemDiscard empties a pool.
//   - Locks: Mutex and RWMutex behave as sync's and show their contention on
//     the viewer's lock timelines.
//
// Each goroutine is a thread in the viewer: "main" for goroutine 1,
// "goroutine N" for the others, or the name given by SetThreadName. Its
// zones nest correctly however the scheduler moves it between OS threads.
//
// # When the server is slower than the program
//
// Nothing is dropped while a server is connected, because a lost zone end
// would make the server refuse the capture and any loss would falsify the
// profile. Events wait in memory up to WithMemoryLimit (256 MiB by
// default); past it, the goroutine that needs more queue memory waits for
// the sender, and ReadStats reports those waits as ProducerWaits. A server
// that accepts nothing for 10 s is disconnected (ErrServerStalled), so no
// wait lasts longer. Frame images are the one exception: while four wait
// for compression a fifth is refused with ErrImageBusy.
//
// # When nobody is profiling
//
// Without WithOnDemand, what the program records before the first server
// connects is kept, compressed, up to WithBacklogLimit (256 MiB), and
// delivered to that server. When the backlog is full, recording stops with
// one warning (ReadStats().BacklogStops) and the program runs on at full
// speed; it resumes when a server connects. With WithOnDemand nothing is
// recorded while no server is connected.
//
// Stop delivers everything to a server that is connected or connects while
// the program stops. When events were recorded and no server ever came, it
// waits for one if TRACY_NO_EXIT=1 is set or WithExitWait was given, and
// otherwise prints one line to stderr saying what it discarded. To write a
// .tracy file without any server, use package tracy/tracyfile.
//
// Call stacks are resolved by the program itself from the Go runtime's
// tables, and the server may see the source of a file only if the program
// named that file to it in a location, frame or symbol.
//
// How the client keeps a zone at about two CPU counter reads (per-goroutine
// queues, one sender, the clock, goroutine ids) is described in
// docs/DESIGN.md in the repository.
package tracy
