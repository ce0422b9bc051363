package tracy

import "errors"

// This file holds the parts of the API shared by normal builds and builds
// with the notracy tag.

// Lifecycle errors.
var (
	// ErrRunning: Start was called while the profiler runs.
	ErrRunning = errors.New("tracy: already started")
	// ErrNoPort: no port of the range could be bound.
	ErrNoPort = errors.New("tracy: cannot listen")
	// ErrNotRunning: the call needs a started profiler.
	ErrNotRunning = errors.New("tracy: not started")
	// ErrDisabled: the program was built with the notracy tag.
	ErrDisabled = errors.New("tracy: disabled at build time (notracy)")
	// ErrEnvironment: a TRACY_* environment variable holds a value the
	// client cannot use.
	ErrEnvironment = errors.New("tracy: bad environment variable")
)

// Frame image errors.
var (
	// ErrImageSize: width and height must be non-zero multiples of 4, the
	// DXT1 data must fit one 256 KiB transport frame, and rgba must hold
	// w*h*4 bytes.
	ErrImageSize = errors.New("tracy: bad frame image size")
	// ErrImageBusy: the compressor is behind; the image was dropped.
	ErrImageBusy = errors.New("tracy: frame image dropped, compressor busy")
)

// PlotFormat is how the viewer labels a plot's values.
type PlotFormat uint8

const (
	PlotNumber     PlotFormat = 0
	PlotMemory     PlotFormat = 1
	PlotPercentage PlotFormat = 2
)

// Stats describes the profiler's work so far (see ReadStats).
type Stats struct {
	Sessions      int    // sessions started (servers served)
	BytesSent     int64  // compressed bytes written to servers
	RawBytes      int64  // decompressed item bytes sent
	Frames        int64  // transport frames sent
	Queries       int64  // server queries answered
	ProducerWaits uint64 // times a producer waited for queue memory
	ImagesDropped uint64 // frame images dropped because the compressor was busy
	QueueBytes    int64  // memory held by goroutine queues now
	BacklogBytes  int64  // compressed data held for the first server now
	BacklogLimit  int64  // WithBacklogLimit
	// BacklogStops counts the times recording stopped because the
	// pre-connection backlog was full and no server had connected (see
	// WithBacklogLimit); the first server to connect resumes it.
	BacklogStops uint64
	Goroutines   int   // goroutine states alive now
	LastError    error // what ended the last session abnormally, if anything
}
