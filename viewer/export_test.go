package viewer

import "time"

// BuildRecord is buildRecord for the external tests and benchmarks.
type BuildRecord = buildRecord

// BuildLog is the last builds of l, oldest first.
func (l *Live) BuildLog() []BuildRecord {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	return append([]BuildRecord(nil), l.buildLog...)
}

var _ = time.Second
