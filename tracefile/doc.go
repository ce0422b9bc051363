// Package tracefile reads and writes Tracy .tracy trace files (payload
// version 0.14.0), so traces move losslessly between gotracy and the real
// Tracy 0.14 GUI and tools.
//
// A file is a container (package container: magic, LZ4 or Zstd, 1..255
// streams of 64 KiB blocks) around a payload: the trace serialized section
// by section with no tags or lengths (../../shared/spec/tracy-file.md §4).
// This package walks the payload into a *model.Trace and back.
//
// # Reading
//
// The real 0.14.0 loader trusts every count and index in the file. This
// reader checks all of them: every count against the bytes that can still
// follow before anything is allocated (the container gives an upper bound of
// the payload size: chunks × 64 KiB), every index (strings, source
// locations, threads, zone extras, call stacks, frame images, message ids)
// against its table, the exact counts Tracy relies on (child vectors, free
// counts, symbol counts), and that the payload ends exactly after its last
// section. Bad input gives a *CorruptError (matching ErrCorrupt) with the
// payload offset and section, never a panic; a version the 0.14.0 loader
// rejects gives a *VersionError matching ErrUnsupportedVersion or
// ErrLegacyVersion; a file that is not a trace gives ErrNotTrace. Payloads
// of the older versions 0.14.0 accepts (0.9.0 and later) load with the
// differences of §5.1.
//
// The decoder is one buffered little-endian reader; a malformed field
// panics internally with its *CorruptError and ReadPayload recovers it, so
// the section readers are straight lines of field reads like the format.
// Zones are decoded iteratively (no recursion, whatever the nesting depth)
// straight into the model's chunked, 22-byte-per-zone lists, each chunk
// allocated once at its final size from the per-thread zone count.
//
// # Writing
//
// The writer follows Tracy's Worker::Write and its conventions (§7): base
// frame set first, string-table entry i+1 gets the identity ptr i+1,
// message ids are positions + 1, maps are written in key order, count hints
// are recomputed for every source location, and Memory plots are not
// written. Writing a trace read from a file and reading it back gives an
// equal model, and a second write the identical bytes.
package tracefile
