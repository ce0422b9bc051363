// Package analysis computes what Tracy 0.14.0 computes from a loaded trace
// for its statistics and its command-line exporter: zone statistics per
// source location (count, total, min, max, mean, standard deviation, self
// times, non-reentrant figures), per-zone listings, GPU zone statistics,
// messages, plots (including the memory plots Tracy rebuilds on load), the
// truncated mean, and a count of everything a trace holds.
//
// It imports only package model: it reads a finished trace and never
// changes it, so it serves a file loaded by tracefile and a live capture
// alike.
//
// # Matching tracy-csvexport byte for byte
//
// WriteCSV reproduces tracy-csvexport's output exactly, which pins down
// several things that look arbitrary:
//
//   - Row order. The real tool prints source locations in the iteration
//     order of a robin_hood::unordered_flat_map keyed by the int16
//     source-location id, not sorted. hashorder.go replays the same hash
//     (murmur3 finaliser times the table's multiplier), table geometry
//     (reserve for index entries + dynamic locations, 80 % load, 2^n
//     buckets plus overflow slots) and insertions, so the order falls out
//     of the same arithmetic. The file's count-hint list, whose order Tracy
//     inserts, is not kept by the model; inserting the same ids in
//     ascending order yields the same table unless two ids share a bucket
//     and five hash bits, which the fixtures confirm. Memory plots and GPU
//     per-thread timelines are ordered by the same emulation of their maps.
//   - Zones counted. Only zones that ended and lasted more than 0 ns enter
//     statistics and -u listings, in Tracy's walk order: threads in file
//     order, each thread depth first.
//   - Arithmetic. The mean is an unsigned integer division; the standard
//     deviation is computed from a float64 sum of squares accumulated in
//     walk order, and with -e subtracts the self-time mean from sums of
//     full durations (the real tool's formula, kept); self time for the
//     statistics clamps children at 0 ns while -e -u and -t subtract raw
//     child durations (GetZoneChildTimeFast). Floats print like C's "%f"
//     (six decimals, "inf", "-nan").
//   - Text. Zone text is printed unquoted, embedded newlines included, and
//     a zone without text repeats the previous zone's text within the same
//     source location, because the real tool reuses its row buffer.
//   - Threads. The thread column is Tracy's local thread index: the file's
//     thread table, extended while loading by every zone-bearing thread it
//     lacks, in thread order (real files omit such threads).
//   - Names. The CPU-usage plot and the default memory pool's plot are
//     named by client key 0, which Tracy resolves to "Frame".
//
// # Cost
//
// ComputeZoneStats is one sequential pass over the zones (the summation
// order must be Tracy's for the last digits of the standard deviation to
// match) with no allocation per zone; per-zone lists (8 bytes a zone, like
// Tracy's) are built only when a listing or a percentile needs them, each
// allocated once at its exact size after a counting pass.
package analysis
