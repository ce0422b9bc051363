// Package analysis computes from a trace what Tracy 0.14.0 computes for its
// statistics and its command-line exporter: zone statistics per source
// location (count, total, min, max, mean, standard deviation, self times,
// non-reentrant figures), per-zone listings, GPU zone statistics, messages,
// plots (including the memory plots Tracy rebuilds on load), the truncated
// mean, and a count of everything a trace holds. WriteCSV prints exactly
// what tracy-csvexport prints.
//
//	tr, err := tracefile.ReadFile("trace.tracy")
//	...
//	st := analysis.ComputeZoneStats(tr, analysis.StatsOptions{})
//	for _, s := range st.Locations { // in tracy-csvexport's row order
//		sl, _ := tr.SrcLoc(s.SrcLoc)
//		fmt.Println(tr.SrcLocName(sl), s.Count, analysis.FormatTime(s.Mean()))
//	}
//	err = analysis.WriteCSV(os.Stdout, tr, analysis.CSVOptions{SelfTime: true}) // tracy-csvexport -e
//
// Summarize counts every kind of event (what `gotracy info` prints).
//
// Compare pairs the source locations of two traces as Tracy's compare
// window does (zone name, file and line, then name and file, then name)
// and gives both sides' csv figures plus medians, the change and the
// ratio; CompareFrames does the same for frame sets and CompareHist bins
// both traces' durations over a shared range (`gotracy diff`, and the
// viewer's compare page).
//
// The viewer's deep views are computed here too, without HTTP: NewMemIndex
// indexes the memory pools once so usage at a time, the allocations live
// then (or leaked, or made in a range) in any order, a page at a time, and
// call-stack trees of them answer in milliseconds on 10M allocations;
// ZoneFlame and SampleFlame aggregate zones by nesting and call-stack
// samples by caller chain into flame graphs.
//
//	mi := analysis.NewMemIndex(tr)
//	x := mi.Pools[0]
//	u := x.UsageAt(t)          // live count and bytes at t
//	page := x.List(analysis.MemListQuery{MemSelect: analysis.MemSelect{Filter: analysis.MemActive, Time: t},
//		Sort: analysis.MemBySize, Desc: true, Limit: 100})
//	tree := mi.Tree(x, analysis.MemSelect{Filter: analysis.MemLeaks}, true) // bottom-up tree of leaks
//	fg := analysis.ZoneFlame(tr, t0, t1, -1)
//
// It reads a finished model.Trace and never changes it, so it serves a file
// loaded by tracefile and a live capture alike. It imports only package
// model.
//
// # Tracy's rules, kept
//
// Only zones that ended and lasted more than 0 ns count, walked in Tracy's
// order (threads in file order, each thread depth first), and the
// figures follow the real tool's arithmetic, quirks included: the mean is an
// integer division; with SelfTime the standard deviation subtracts the
// self-time mean from sums of full durations, as tracy-csvexport does; a
// zone without text repeats the previous text of its source location in a
// listing. Rows
// come in the real tool's hash-map order, not sorted. The reasons, and how
// that order is reproduced, are in docs/DESIGN.md in the repository.
package analysis
