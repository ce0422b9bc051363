package protocol

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers branch on them with errors.Is; the errors this
// package returns wrap them with context (usually in a *StreamError).
var (
	// ErrUnknownItem: a queue type (or query type) that cannot appear on the
	// wire. The stream has no length for it, so it cannot be resynchronised.
	ErrUnknownItem = errors.New("unknown item type")
	// ErrTruncated: the input ended inside a structure (an item, a frame,
	// the handshake or the welcome).
	ErrTruncated = errors.New("truncated")
	// ErrFrameSize: a frame's compressed size is 0 or above LZ4Size, or it
	// decodes to 0 or more than TargetFrameSize bytes.
	ErrFrameSize = errors.New("bad frame size")
	// ErrCorruptLZ4: the LZ4 block is malformed (bad lengths, or a match
	// reaching before the start of the stream or beyond the 64 KiB window).
	ErrCorruptLZ4 = errors.New("corrupt LZ4 block")
	// ErrBadHandshake: the opening is not "TracyPrf" + version, or the client
	// answered with an unexpected status byte.
	ErrBadHandshake = errors.New("bad handshake")
	// ErrProtocolMismatch: the peer speaks another protocol version.
	ErrProtocolMismatch = errors.New("protocol version mismatch")
	// ErrNotAvailable: the client already served its one session.
	ErrNotAvailable = errors.New("client not available")
	// ErrTooLong: a string or payload does not fit its length field, or an
	// item does not fit a frame.
	ErrTooLong = errors.New("payload too long")
	// ErrBadBroadcast: a UDP discovery datagram of unknown version or size.
	ErrBadBroadcast = errors.New("bad broadcast datagram")
)

// StreamError locates a decoding failure in a stream.
type StreamError struct {
	// Offset is the byte offset in the stream where the failing structure
	// starts: for frame errors the offset of the frame's size field in the
	// compressed stream; for item errors the offset of the item in the
	// decompressed stream.
	Offset int64
	// Compressed is true when Offset counts bytes of the raw (compressed)
	// stream, false when it counts decompressed item bytes.
	Compressed bool
	// Type is the item type being decoded; HasType is false when the
	// failure is not inside an item (frame header, LZ4 block).
	Type    QueueType
	HasType bool
	Err     error // the sentinel, possibly wrapped with detail
}

func (e *StreamError) Error() string {
	where := "decoded offset"
	if e.Compressed {
		where = "stream offset"
	}
	if e.HasType {
		return fmt.Sprintf("protocol: %s %d: item %v: %v", where, e.Offset, e.Type, e.Err)
	}
	return fmt.Sprintf("protocol: %s %d: %v", where, e.Offset, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }
