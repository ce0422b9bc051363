package capture

import (
	"errors"
	"fmt"

	"github.com/gotracy/gotracy/protocol"
)

// Sentinel errors. Every error a capture returns wraps one of them, so a
// caller can branch with errors.Is while the message keeps the context
// (address, byte offset, item type).
var (
	// ErrProtocolMismatch: the client answered the handshake with
	// HandshakeProtocolMismatch, so it speaks another wire protocol version.
	ErrProtocolMismatch = errors.New("client uses another Tracy protocol version")
	// ErrNotAvailable: the client already served its one session (a client
	// not built for on-demand profiling accepts a single capture).
	ErrNotAvailable = errors.New("client is no longer available for capture")
	// ErrHandshakeDropped: the connection closed or failed during the
	// handshake, before the welcome was read in full.
	ErrHandshakeDropped = errors.New("client dropped the connection during the handshake")
	// ErrConnectionLost: the stream ended, or the socket failed, before the
	// client finished its session with Terminate. The data received before
	// the cut is kept.
	ErrConnectionLost = errors.New("connection lost before the client terminated the session")
	// ErrMalformed: the client-to-server stream is not valid protocol 82
	// (bad LZ4 block, unknown item type, impossible size). Nothing after the
	// bad frame can be decoded.
	ErrMalformed = errors.New("malformed client stream")
	// ErrInstrumentation: the stream is well-formed but breaks an invariant
	// of the trace (zone ended twice, free of unknown memory, ...); Tracy's
	// server stops the capture on these "instrumentation failures" and so
	// do we. See InstrumentationError for the details.
	ErrInstrumentation = errors.New("instrumentation failure")
	// ErrMemoryLimitUnsupported: a memory limit in percent of RAM was asked
	// for on a system whose RAM size is unknown.
	ErrMemoryLimitUnsupported = errors.New("physical memory size unknown on this system")
)

// HandshakeError is a handshake the client refused or dropped. It unwraps to
// ErrProtocolMismatch, ErrNotAvailable or ErrHandshakeDropped.
type HandshakeError struct {
	Addr   string                   // the client's address
	Status protocol.HandshakeStatus // what the client answered (HandshakeDropped if nothing)
	// ClientProtocol is the client's protocol version when known (learned
	// from its UDP discovery broadcast), else 0.
	ClientProtocol uint32
	Err            error // underlying I/O error for a dropped handshake
}

func (e *HandshakeError) Error() string {
	ours := fmt.Sprintf("protocol %d (Tracy %s)", protocol.ProtocolVersion, protocol.TracyVersion)
	switch e.Status {
	case protocol.HandshakeProtocolMismatch:
		theirs := "a different protocol version"
		if e.ClientProtocol != 0 {
			theirs = fmt.Sprintf("protocol %d", e.ClientProtocol)
		}
		return fmt.Sprintf("%s: the client at %s speaks %s, gotracy speaks %s; build the client with Tracy %s",
			ErrProtocolMismatch, e.Addr, theirs, ours, protocol.TracyVersion)
	case protocol.HandshakeNotAvailable:
		return fmt.Sprintf("%s: the client at %s (%s) already sent its data to another server; restart it, or build it with TRACY_ON_DEMAND",
			ErrNotAvailable, e.Addr, ours)
	default:
		msg := fmt.Sprintf("%s: the client at %s closed the connection before completing the %s handshake", ErrHandshakeDropped, e.Addr, ours)
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
		return msg
	}
}

func (e *HandshakeError) Unwrap() []error {
	var s error
	switch e.Status {
	case protocol.HandshakeProtocolMismatch:
		s = ErrProtocolMismatch
	case protocol.HandshakeNotAvailable:
		s = ErrNotAvailable
	default:
		s = ErrHandshakeDropped
	}
	if e.Err != nil {
		return []error{s, e.Err}
	}
	return []error{s}
}

// InstrumentationError is one of Tracy's "instrumentation failures": the
// client sent events that cannot form a valid trace. The capture stops at
// the first one, as Tracy's does, and keeps what it had.
type InstrumentationError struct {
	Reason string // Tracy's wording of the failure
	Thread uint64 // the client thread involved, 0 if none
	Detail string // extra context (zone text, value)
}

func (e *InstrumentationError) Error() string {
	s := fmt.Sprintf("%s: %s", ErrInstrumentation, e.Reason)
	if e.Thread != 0 {
		s += fmt.Sprintf(" (thread %d)", e.Thread)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *InstrumentationError) Unwrap() error { return ErrInstrumentation }

// The failure reasons, worded as Tracy's server words them.
const (
	failZoneStack        = "Invalid order of zone begin and end events."
	failZoneDoubleEnd    = "Zone is ended twice."
	failZoneText         = "Zone text transfer destination doesn't match active zone."
	failZoneValue        = "Zone value transfer destination doesn't match active zone."
	failZoneColor        = "Zone color transfer destination doesn't match active zone."
	failZoneName         = "Zone name transfer destination doesn't match active zone."
	failMemFree          = "Memory free event without a matching allocation."
	failMemAllocTwice    = "Memory allocation event was reported for an address that is already tracked and not freed."
	failFrameEnd         = "Discontinuous frame begin/end mismatch."
	failFrameImageIndex  = "Frame image offset is invalid."
	failFrameImageTwice  = "Multiple frame images were sent for a single frame."
	failFiberLeave       = "Fiber execution stopped on a thread which is not executing a fiber."
	failTooManyThreads   = "Too many threads: a trace indexes at most 65535 threads."
	failSourceLocOverflw = "Too many source locations. You cannot have more than 32K static or dynamic source locations."
)

// malformed builds an ErrMalformed error with the stream position.
func malformed(frame uint64, off int, format string, args ...any) error {
	return fmt.Errorf("%w: frame %d, offset %d: %s", ErrMalformed, frame, off, fmt.Sprintf(format, args...))
}
