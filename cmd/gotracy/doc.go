// Command gotracy is the Tracy 0.14 toolkit on the command line: it captures
// Tracy clients headless, inspects, converts and exports .tracy files as the
// real Tracy tools do, resolves symbols, and runs an instrumented demo.
//
// Build it from a clone with `go install ./cmd/gotracy`, or run it in place
// with `go run ./cmd/gotracy`.
//
// A session from capture to statistics:
//
//	gotracy capture -a 127.0.0.1 -o trace.tracy   # until the program exits or Ctrl-C
//	gotracy info trace.tracy                      # what the trace holds
//	gotracy csv trace.tracy > zones.csv           # tracy-csvexport's output
//	gotracy save trace.tracy -o small.tracy --zstd 19
//
// Try it without a program of your own: `gotracy demo -o demo.tracy` profiles
// a built-in Go workload and captures it in-process.
//
// `gotracy help` lists the commands and `gotracy help COMMAND` shows a
// command's flags. Flags may also follow the positional arguments. Usage
// errors exit with status 2, other failures with status 1, with the reason
// on standard error.
package main
