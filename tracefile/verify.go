package tracefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gotracy/gotracy/tracefile/container"
)

// Integrity is what Verify found out about a file: which checks could be
// made (a checksum exists only in Zstd chunks written as whole checksummed
// frames, which is how gotracy writes them; Tracy's own files and every LZ4
// file have none) and the first failure.
type Integrity struct {
	Compression string // "LZ4" or "Zstd"; "" if the header is unreadable
	Streams     int
	FileBytes   int64
	Chunks      int // chunks in the file, from the framing walk (0 if it failed)
	// ChunksRead is how many chunks decompressed and passed their checks
	// before the first failure (Chunks when the container is intact).
	ChunksRead int
	// ChecksummedChunks of ChunksRead had their content verified by a
	// checksum; the others were checked for structure only (framing, block
	// sizes, codec validity).
	ChecksummedChunks int
	// PayloadBytes parsed and Version, when the container is intact and the
	// payload header readable.
	PayloadBytes int64
	Version      uint32
	// PayloadOK: the payload parsed completely, every count, index and
	// reference in range.
	PayloadOK bool
	// Err is the first failure (nil for an intact file); it matches the
	// package's sentinels, and a chunk failure wraps a
	// *container.CorruptError naming the chunk.
	Err      error
	Duration time.Duration
}

// Unchecksummed is how many chunks that were read had no checksum.
func (v *Integrity) Unchecksummed() int { return v.ChunksRead - v.ChecksummedChunks }

// Verify reads the whole file at path through every check the loader
// makes (header, chunk framing, decompression, checksums where present,
// the payload structure) and reports what was checked. The returned error
// is Integrity.Err: nil only for an intact file. Verify needs the memory
// of a load, since the payload is parsed.
func Verify(path string) (*Integrity, error) {
	start := time.Now()
	v := &Integrity{}
	defer func() { v.Duration = time.Since(start) }()
	cr, err := container.Open(path)
	if err != nil {
		v.Err = mapContainerErr(err)
		if errors.Is(err, container.ErrCorrupt) || errors.Is(err, container.ErrNotTrace) {
			// The header may be fine and the framing walk the failure.
			if f, oerr := os.Open(path); oerr == nil {
				if st, serr := f.Stat(); serr == nil {
					v.FileBytes = st.Size()
					if h, herr := container.ReadHeader(f, st.Size()); herr == nil {
						v.Compression, v.Streams = h.Compression.String(), h.Streams
					}
				}
				f.Close()
			}
		}
		return v, v.Err
	}
	defer cr.Close()
	h := cr.Header()
	v.Compression, v.Streams, v.FileBytes, v.Chunks = h.Compression.String(), h.Streams, cr.Size(), cr.Chunks()
	var rep Report
	_, err = ReadPayload(errReader{cr}, cr.PayloadSizeBound(), WithReport(&rep))
	v.ChunksRead, v.ChecksummedChunks = cr.ChunksRead(), cr.ChecksummedChunks()
	var cerr *container.CorruptError
	switch {
	case err == nil:
		// The payload ended where it should; the container must end there
		// too (a payload that stops early leaves chunks unread).
		if n, err := io.Copy(io.Discard, errReader{cr}); err != nil {
			v.Err = err
		} else if n > 0 {
			v.Err = &CorruptError{Offset: rep.PayloadBytes, Section: "end", Err: fmt.Errorf("%d bytes follow the end of the trace", n)}
		}
		v.ChunksRead = cr.ChunksRead()
		v.ChecksummedChunks = cr.ChecksummedChunks()
		v.PayloadOK = v.Err == nil
		v.PayloadBytes, v.Version = rep.PayloadBytes, rep.Version
	case errors.As(err, &cerr):
		// A chunk failed: the chunks before it were good.
		v.Err = err
		v.ChunksRead = cerr.Chunk
	default:
		v.Err = err
	}
	return v, v.Err
}
