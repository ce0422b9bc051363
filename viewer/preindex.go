package viewer

import (
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
)

// IndexWhileReading lets the level-of-detail index of a file's trace be
// built while the file is read (lod.Stream): pass read to the load
// (tracefile.ReadFile) and use to New; call abort instead of New when the
// load fails. On two cores the index then costs little after the load:
// the decoder fills one core and the index walk follows it on the other.
// New's index is the same as without (lod.Build of the trace).
func IndexWhileReading() (read tracefile.Option, use Option, abort func()) {
	s := lod.NewStream()
	read = tracefile.WithThreadZones(model.ZoneChunkLen, func(tz *tracefile.ThreadZones) {
		s.Add(lod.Batch{Thread: tz.Thread, Chunks: tz.Chunks, Len: tz.Len, Open: tz.Open, Want: tz.Want, LastTime: tz.LastTime, Done: tz.Done})
	})
	return read, func(c *config) { c.stream = s }, s.Abort
}
