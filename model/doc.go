// Package model is the in-memory form of a Tracy 0.14 trace: everything a
// .tracy file of version 0.14.0 holds, and nothing the file does not.
//
// The model is deliberately close to the file (see
// ../shared/spec/tracy-file.md §4) so that model -> file -> model is
// lossless and a reader or writer is a straight walk over the sections. It
// imports only the standard library: it is the data contract between the
// capture server, the file reader/writer and the analysis code.
//
// # Layout for scale
//
// A trace may hold hundreds of millions of CPU zones, so the hot records are
// small, fixed-size and pointer-free, and refer to each other by integer
// indices instead of pointers. Slices of pointer-free structs are allocated
// as "noscan" spans: the garbage collector never walks them, however large
// they grow.
//
//   - [Zone] is 22 bytes, the size of Tracy's packed ZoneEvent: 48-bit start
//     and end times, an int16 source location, a 32-bit zone-extra index and a
//     32-bit subtree-end index. Go would pad int64 fields to 8-byte alignment
//     (40 bytes), so the times and indices are stored as uint16 triples and
//     pairs (alignment 2) behind accessor methods.
//   - Each thread's zones are one [ZoneList] in depth-first pre-order,
//     which is the order a capture appends them (a zone is appended when it
//     begins) and the order the file serializes them. The list keeps them
//     in fixed 256K-zone chunks that never move, so a capture writes each
//     zone once, where it stays, and never copies a growing array. Instead
//     of child vectors, each zone stores Next: the index just past its
//     subtree. The children of zone i are i+1, then Next of that, ... until
//     Next(i); the next sibling of zone i is Next(i). This costs 4 bytes per
//     zone instead of a pointer-bearing vector per parent.
//   - Rarely used per-zone data (text, name override, colour, call stack) is
//     in the shared [Trace.ZoneExtras] table, referenced by a 32-bit index,
//     exactly as Tracy does; index 0 means "none".
//   - Strings are interned once into [Trace.Strings]; records hold a 32-bit
//     [StrID] (0 = no string), which is the file's 24-bit "sidx" value.
//   - Call stacks are stored flat ([Trace.CallStackFrames] with offsets) and
//     addressed by a 1-based index that fits Tracy's 24 bits; the [Builder]
//     de-duplicates them by a hash of their frames.
//
// Less numerous records (messages, plot points, memory events, locks, GPU
// zones, context switches) are plain structs with natural alignment: they are
// still pointer-free, only not bit-packed.
//
// # What is not in the model
//
// Values that are identities rather than data in the file are not kept:
// string-table heap addresses, message ids, source-location zone-count hints,
// the "total" progress counters, and Memory-type plots (rebuilt from memory
// events). A writer regenerates them; see package tracefile.
//
// # Building
//
// A capture fills a trace through [Builder], which keeps the interning maps,
// open-zone stacks and active allocations that a finished trace does not
// need. Readers of a finished trace use the exported fields and the helpers
// in iter.go. A Trace is not safe for concurrent mutation; concurrent reads
// of a trace nobody mutates are safe.
package model
