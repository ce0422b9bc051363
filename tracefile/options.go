package tracefile

import (
	"time"

	"github.com/gotracy/gotracy/model"
)

// Progress is reported to a WithProgress callback while a trace is loaded
// or saved. Done and Total count payload (uncompressed) bytes; Total is an
// upper bound while loading (chunks × 64 KiB) and -1 when unknown.
type Progress struct {
	Op    string // "load" or "save"
	Done  int64
	Total int64
}

// Report describes a completed load or save.
type Report struct {
	Version      uint32        // payload version of the file read
	Compression  string        // "LZ4" or "Zstd" (container reads and writes)
	Streams      int           // container streams
	FileBytes    int64         // compressed file size
	PayloadBytes int64         // uncompressed payload size
	Decode       time.Duration // time spent in the payload reader or writer
	Duration     time.Duration // whole operation
	Zones        int64         // CPU zones loaded or saved
	GpuZones     int64         // GPU zones loaded or saved
}

// ZonesPerSec is the CPU-zone throughput of the whole operation.
func (r *Report) ZonesPerSec() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Zones) / r.Duration.Seconds()
}

// PayloadMBps is the payload throughput of the operation in MB/s (10^6).
func (r *Report) PayloadMBps() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.PayloadBytes) / 1e6 / r.Duration.Seconds()
}

// Option configures a read or write.
type Option func(*options)

type options struct {
	progress func(Progress)
	report   *Report
	// threadZones is WithThreadZones's callback, called about every
	// threadZonesEvery zones of a thread.
	threadZones      func(*ThreadZones)
	threadZonesEvery int
	lz4              bool
	zstd             int // level; 0 = default
	streams          int
	release          bool
	// threadLoaded is WithThreadLoaded's callback.
	threadLoaded func(t *model.Trace, th *model.Thread, i int)
	// version is the payload version to write; 0 = Version. Only tests
	// set it, to produce the older layouts the reader accepts (0.9.0 and later).
	version uint32
}

func newOptions(opts []Option) *options {
	o := &options{}
	for _, f := range opts {
		if f != nil {
			f(o)
		}
	}
	return o
}

// WithReleaseZones lets the writer release each thread's zone chunks
// (model.ZoneList.Release) as soon as it has written them, so a trace
// written once (a flight recorder's snapshot, whose lists are Share
// copies the capture does not hold) stops holding its window chunk by
// chunk while it is saved. The trace's zones cannot be read afterwards
// (their counts can).
func WithReleaseZones() Option { return func(o *options) { o.release = true } }

// WithProgress calls fn periodically (about every 4 MiB of payload) during a
// load or save, and once at the end. fn runs on the reading or writing
// goroutine and must be quick.
func WithProgress(fn func(Progress)) Option { return func(o *options) { o.progress = fn } }

// ThreadZones is what a WithThreadZones callback is told about one
// thread's zones while a load decodes them.
type ThreadZones struct {
	Thread int            // index into Trace.Threads
	Chunks [][]model.Zone // a copy of the zone list's chunk table (the zones are shared)
	Len    int            // zones decoded so far, held by Chunks
	// Open lists, in increasing order, the zones of the Len whose end and
	// Next are still to come (the thread's open zones, outermost first).
	// Every other one is final: the load never writes it again.
	Open     []uint32
	Want     int   // how many zones the file says the thread holds (a hint)
	LastTime int64 // Metadata.LastTime (the metadata precede the zones)
	Done     bool  // the thread's zones are complete; Open is empty
}

// WithThreadZones calls fn while a trace is loaded with each thread's
// zones so far: about every `every` zones of a thread, and once when the
// thread's zones are complete. fn runs on the reading goroutine and must
// be quick; it may keep what it is given and read the final zones from
// another goroutine while the load goes on (lod.Stream indexes them so).
// The zones it was told of stay valid if the load fails, but the trace is
// not returned.
func WithThreadZones(every int, fn func(*ThreadZones)) Option {
	return func(o *options) { o.threadZones, o.threadZonesEvery = fn, max(every, 1) }
}

// WithReport fills r when the operation succeeds.
func WithReport(r *Report) Option { return func(o *options) { o.report = r } }

// WithLZ4 writes an LZ4 container (Tracy's fast mode).
func WithLZ4() Option { return func(o *options) { o.lz4 = true; o.zstd = 0 } }

// WithZstd writes a Zstd container at level (1..22; Tracy's default is 3).
func WithZstd(level int) Option { return func(o *options) { o.zstd = level; o.lz4 = false } }

// WithStreams sets the number of container streams (1..255; default 4, as
// tracy-capture).
func WithStreams(n int) Option { return func(o *options) { o.streams = n } }

// WithThreadLoaded calls fn on the reading goroutine each time a load has
// read the whole record of thread i (its zones, messages and samples), so
// a caller can start on the thread's zones while later threads load.
// When fn runs, every section of t before the zones (strings, source
// locations, locks, messages, zone extras) is complete, and neither they
// nor *th change again; t.Threads itself may still grow (and move), so
// another goroutine must use th, not t.Threads. fn must be quick (hand the
// thread on); a load that fails after it has run still fails.
func WithThreadLoaded(fn func(t *model.Trace, th *model.Thread, i int)) Option {
	return func(o *options) { o.threadLoaded = fn }
}
