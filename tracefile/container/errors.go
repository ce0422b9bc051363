package container

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers branch on them with errors.Is; every error the
// package returns for bad input matches exactly one of ErrNotTrace or
// ErrCorrupt (a truncated file matches both ErrCorrupt and ErrTruncated).
var (
	// ErrNotTrace means the file does not start with one of the three
	// container magics, or names a compression type Tracy does not know.
	// Tracy 0.14.0 reports the same inputs as NotTracyDump.
	ErrNotTrace = errors.New("not a Tracy trace file")

	// ErrCorrupt means the container framing or a compressed block is
	// malformed. The concrete error is a *CorruptError carrying the file
	// offset of the bad chunk.
	ErrCorrupt = errors.New("corrupt Tracy trace file")

	// ErrTruncated means the file ends inside the header or a chunk: it was
	// cut short (an interrupted copy or save). The real reader hangs on such
	// files; this package reports them.
	ErrTruncated = errors.New("truncated Tracy trace file")

	// ErrChecksum means a Zstd chunk decoded but its content checksum does
	// not match what it decoded to: its bytes were altered. It comes inside
	// a *CorruptError naming the chunk (so it also matches ErrCorrupt).
	// Only files with checksummed frames (the ones this package writes) can
	// fail this way; Tracy's own files carry no checksum.
	ErrChecksum = errors.New("content checksum mismatch")

	// ErrClosed is returned by a Reader or Writer used after Close.
	ErrClosed = errors.New("tracy container: use after Close")

	// ErrInvalidOption is returned by NewWriter and NewReader for an option
	// value out of range (a Zstd level outside 1..22, a stream count outside
	// 1..255).
	ErrInvalidOption = errors.New("tracy container: invalid option")
)

// CorruptError locates malformed or truncated input. Offset is the byte
// offset in the file of the chunk (its 4-byte size field) or header field at
// fault, so a user can look at the file with a hex viewer.
type CorruptError struct {
	Offset int64 // byte offset in the file
	Chunk  int   // chunk index, or -1 for the header
	Err    error // what is wrong; may wrap ErrTruncated or a codec error
}

func (e *CorruptError) Error() string {
	if e.Chunk >= 0 {
		return fmt.Sprintf("corrupt Tracy trace file: chunk %d at offset %d: %v", e.Chunk, e.Offset, e.Err)
	}
	return fmt.Sprintf("corrupt Tracy trace file at offset %d: %v", e.Offset, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Is makes every CorruptError match ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(off int64, chunk int, format string, args ...any) error {
	return &CorruptError{Offset: off, Chunk: chunk, Err: fmt.Errorf(format, args...)}
}

func truncatedf(off int64, chunk int, format string, args ...any) error {
	return &CorruptError{Offset: off, Chunk: chunk, Err: fmt.Errorf("%w: "+format, append([]any{ErrTruncated}, args...)...)}
}
