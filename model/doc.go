// Package model is the in-memory form of a Tracy 0.14 trace: everything a
// .tracy file of version 0.14.0 holds, and nothing the file does not. It is
// what package tracefile reads and writes, what package capture fills from a
// live client, and what package analysis computes statistics from.
//
// Reading a trace (loaded with tracefile.ReadFile, say):
//
//	for _, th := range tr.Threads {
//		fmt.Println(tr.ThreadName(th.ID), th.Zones.Len(), "zones")
//		model.Walk(&th.Zones, func(i, depth int) bool {
//			z := th.Zones.At(i)
//			fmt.Println(depth, tr.ZoneName(z), z.Start(), z.Duration())
//			return true
//		})
//	}
//
// Building one, as a capture or a test does:
//
//	b := model.NewBuilder()
//	loc := b.AddDynSrcLoc(model.SourceLocation{Name: model.IdxRef(b.Intern("update")),
//		File: model.IdxRef(b.Intern("main.go")), Line: 12})
//	th := b.Thread(1) // thread id 1
//	b.BeginZone(th, 1000, loc)
//	b.EndZone(th, 5000) // times in nanoseconds
//	tr := b.Finish()
//
// # Shapes to know
//
//   - A thread's zones are a [ZoneList] in depth-first pre-order. A [Zone]
//     does not hold its children: the children of zone i are i+1, then
//     Next of that, and so on up to Next(i); [Walk], [Roots] and [Children]
//     do that walk. Zone fields are behind accessor methods (Start, End,
//     Duration) because the 22-byte record is bit-packed.
//   - Strings are interned once in [Trace.Strings] and referred to by
//     [StrID] (0 = none); source locations by [SrcLocID], call stacks by a
//     1-based index into the flat [Trace.CallStackFrames].
//   - Rarely used per-zone data (text, name override, colour, call stack) is
//     in [Trace.ZoneExtras], referred to by the zone's Extra index (0 =
//     none).
//   - What the file stores only as an identity or a derived value is not
//     kept: string-table addresses, message ids, source-location count
//     hints, progress totals, and Memory-type plots (rebuilt from the
//     memory events). Package tracefile regenerates them on writing.
//
// A Trace is not safe for concurrent mutation; concurrent reads of a trace
// nobody mutates are safe. Pointers returned by a [Builder] are valid only
// until its next call; the indices it returns stay valid.
//
// Why the records are laid out as they are (a few hundred million zones must
// fit in memory without the garbage collector scanning them) is in
// docs/DESIGN.md in the repository.
package model
