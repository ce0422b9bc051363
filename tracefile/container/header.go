package container

import (
	"fmt"
	"io"
)

// Compression is the codec of a container, the type byte of the current
// header form.
type Compression uint8

const (
	// LZ4 is the raw LZ4 block format (type 0). It covers Tracy's fast, HC
	// and extreme modes; the file does not say which one wrote it.
	LZ4 Compression = 0
	// Zstd is one Zstandard stream per container stream (type 1).
	Zstd Compression = 1
)

func (c Compression) String() string {
	switch c {
	case LZ4:
		return "LZ4"
	case Zstd:
		return "Zstd"
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// Form is the magic a container starts with.
type Form uint8

const (
	// FormMultiStream is 't' 'r' 0xFD 'P' followed by the compression type
	// and stream count: what every Tracy writer since 0.11.0 writes.
	FormMultiStream Form = iota
	// FormLegacyLZ4 is 't' 'l' 'Z' 0x04: one LZ4 stream, writers before 0.11.0.
	FormLegacyLZ4
	// FormLegacyZstd is 't' 'Z' 's' 't': one Zstd stream, writers 0.7 to 0.10.
	FormLegacyZstd
)

func (f Form) String() string {
	switch f {
	case FormMultiStream:
		return `tr\xFDP`
	case FormLegacyLZ4:
		return "tlZ4"
	case FormLegacyZstd:
		return "tZst"
	}
	return fmt.Sprintf("Form(%d)", uint8(f))
}

// The three magics (TracyFileHeader.hpp).
var (
	magicMulti      = [4]byte{'t', 'r', 0xFD, 'P'}
	magicLegacyLZ4  = [4]byte{'t', 'l', 'Z', 4}
	magicLegacyZstd = [4]byte{'t', 'Z', 's', 't'}
)

const (
	// BlockSize is the uncompressed size of every block but the last
	// (Tracy's FileBufSize).
	BlockSize = 64 << 10
	// MaxChunkSize is the largest compressed chunk a real writer can emit:
	// its output buffer, max(LZ4 bound, Zstd bound) of one block (Tracy's
	// FileBoundSize). Larger size fields are rejected as corrupt.
	MaxChunkSize = 65824
	// MaxStreams is the largest stream count the header byte can hold.
	MaxStreams = 255
	// maxZstdWindow is the largest Zstd window libzstd accepts by default;
	// the real tools abort on larger ones, so readers reject and writers
	// stay below it.
	maxZstdWindow = 1 << 27
)

// Header describes a container.
type Header struct {
	Form        Form
	Compression Compression
	// Streams is the number of independent compression streams, 1..255.
	// Legacy forms have one.
	Streams int
	// Legacy is true for the single-stream forms written before 0.11.0.
	Legacy bool
	// DataOffset is where the first chunk starts: 6, or 4 for legacy forms.
	DataOffset int64
}

// parseHeader reads and checks the header at the start of r.
func parseHeader(r io.ReaderAt, size int64) (Header, error) {
	var b [6]byte
	n, err := r.ReadAt(b[:min(int64(len(b)), max(size, 0))], 0)
	if n < 4 {
		if err != nil && err != io.EOF {
			return Header{}, fmt.Errorf("tracy container: reading header: %w", err)
		}
		return Header{}, fmt.Errorf("%w: file is %d bytes, shorter than a header", ErrNotTrace, max(size, 0))
	}
	var m [4]byte
	copy(m[:], b[:4])
	switch m {
	case magicLegacyLZ4:
		return Header{Form: FormLegacyLZ4, Compression: LZ4, Streams: 1, Legacy: true, DataOffset: 4}, nil
	case magicLegacyZstd:
		return Header{Form: FormLegacyZstd, Compression: Zstd, Streams: 1, Legacy: true, DataOffset: 4}, nil
	case magicMulti:
	default:
		return Header{}, fmt.Errorf("%w: unknown magic % x", ErrNotTrace, m[:])
	}
	if n < 6 {
		if err != nil && err != io.EOF {
			return Header{}, fmt.Errorf("tracy container: reading header: %w", err)
		}
		return Header{}, truncatedf(int64(n), -1, "header ends before its compression type and stream count")
	}
	h := Header{Form: FormMultiStream, Compression: Compression(b[4]), Streams: int(b[5]), DataOffset: 6}
	if h.Compression > Zstd {
		return Header{}, fmt.Errorf("%w: unknown compression type %d", ErrNotTrace, b[4])
	}
	if h.Streams == 0 {
		return Header{}, corruptf(5, -1, "stream count is 0")
	}
	return h, nil
}

// appendHeader appends the current-form header.
func appendHeader(dst []byte, c Compression, streams int) []byte {
	dst = append(dst, magicMulti[:]...)
	return append(dst, byte(c), byte(streams))
}

// ReadHeader parses only the header of the size bytes of r, for tools that
// report on a file whose chunks fail NewReader's framing walk.
func ReadHeader(r io.ReaderAt, size int64) (Header, error) { return parseHeader(r, size) }
