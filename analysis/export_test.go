package analysis

// SetParallelSummaryZones sets the zone count from which Summarize counts
// threads on several goroutines, for tests of both paths; it returns a
// function that restores the old value.
func SetParallelSummaryZones(n uint64) (restore func()) {
	old := parallelSummaryZones
	parallelSummaryZones = n
	return func() { parallelSummaryZones = old }
}
