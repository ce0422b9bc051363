package container

import "fmt"

// ProgressFunc is told how far an operation has got. For a Reader, done and
// total are compressed file bytes (total is the file size); for a Writer they
// are payload bytes handed to it, and total is the size announced with
// WithSizeHint or -1 when unknown. It is called from the goroutine that calls
// Read or Write, at most once per 64 KiB block, and once more at the end.
type ProgressFunc func(done, total int64)

// ReadOption configures NewReader and Open.
type ReadOption interface{ applyRead(*readConfig) error }

// WriteOption configures NewWriter.
type WriteOption interface{ applyWrite(*writeConfig) error }

// Option is an option that applies to both readers and writers.
type Option interface {
	ReadOption
	WriteOption
}

type readConfig struct {
	progress  ProgressFunc
	readAhead int
	noMmap    bool
}

type writeConfig struct {
	progress    ProgressFunc
	total       int64
	compression Compression
	lz4Mode     lz4Mode
	zstdLevel   int
	streams     int
	// zstdStream writes Tracy's unchecksummed one-frame-per-stream layout
	// (tests only: it is what the real tools write).
	zstdStream bool
}

type lz4Mode uint8

const (
	lz4Fast lz4Mode = iota
	lz4HC
	lz4Extreme
)

type progressOption ProgressFunc

func (p progressOption) applyRead(c *readConfig) error   { c.progress = ProgressFunc(p); return nil }
func (p progressOption) applyWrite(c *writeConfig) error { c.progress = ProgressFunc(p); return nil }

// WithProgress reports progress to fn; see ProgressFunc.
func WithProgress(fn ProgressFunc) Option { return progressOption(fn) }

type readOptionFunc func(*readConfig) error

func (f readOptionFunc) applyRead(c *readConfig) error { return f(c) }

type writeOptionFunc func(*writeConfig) error

func (f writeOptionFunc) applyWrite(c *writeConfig) error { return f(c) }

// WithReadAhead sets how many decompressed blocks each stream may hold ready
// ahead of the consumer (default 2, range 1..16). Memory is about
// streams × (n+3) × 64 KiB.
func WithReadAhead(n int) ReadOption {
	return readOptionFunc(func(c *readConfig) error {
		if n < 1 || n > 16 {
			return fmt.Errorf("%w: read-ahead %d outside 1..16", ErrInvalidOption, n)
		}
		c.readAhead = n
		return nil
	})
}

// WithoutMmap makes Open read the file with ReadAt instead of mapping it.
func WithoutMmap() ReadOption {
	return readOptionFunc(func(c *readConfig) error { c.noMmap = true; return nil })
}

// WithLZ4 selects LZ4 with the fast compressor (Tracy's default "LZ4"
// choice and the import tools' format).
func WithLZ4() WriteOption {
	return writeOptionFunc(func(c *writeConfig) error { c.compression, c.lz4Mode = LZ4, lz4Fast; return nil })
}

// WithLZ4HC selects LZ4 with the high-compression compressor (Tracy's
// "LZ4 HC", tracy-update -h). Readers cannot tell it from WithLZ4.
func WithLZ4HC() WriteOption {
	return writeOptionFunc(func(c *writeConfig) error { c.compression, c.lz4Mode = LZ4, lz4HC; return nil })
}

// WithLZ4Extreme selects LZ4 HC at its deepest search (Tracy's
// "LZ4 HC extreme", tracy-update -e).
func WithLZ4Extreme() WriteOption {
	return writeOptionFunc(func(c *writeConfig) error { c.compression, c.lz4Mode = LZ4, lz4Extreme; return nil })
}

// WithZstd selects Zstd at level 1..22 (Tracy's slider; 3 is the default of
// tracy-capture and the save dialog).
func WithZstd(level int) WriteOption {
	return writeOptionFunc(func(c *writeConfig) error {
		if level < 1 || level > 22 {
			return fmt.Errorf("%w: Zstd level %d outside 1..22", ErrInvalidOption, level)
		}
		c.compression, c.zstdLevel = Zstd, level
		return nil
	})
}

// WithStreams sets the number of streams compressed in parallel, 1..255
// (Tracy's GUI offers 1..64; the file format allows 255). Default 4, as
// tracy-capture writes.
func WithStreams(n int) WriteOption {
	return writeOptionFunc(func(c *writeConfig) error {
		if n < 1 || n > MaxStreams {
			return fmt.Errorf("%w: %d streams outside 1..%d", ErrInvalidOption, n, MaxStreams)
		}
		c.streams = n
		return nil
	})
}

// WithSizeHint announces the payload size to the progress function.
func WithSizeHint(n int64) WriteOption {
	return writeOptionFunc(func(c *writeConfig) error { c.total = n; return nil })
}

// withTracyZstdLayout makes Zstd streams one never-ended frame each, as
// Tracy writes them, instead of one checksummed frame per chunk.
func withTracyZstdLayout() WriteOption {
	return writeOptionFunc(func(c *writeConfig) error { c.zstdStream = true; return nil })
}
