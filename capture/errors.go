package capture

import (
	"errors"
	"fmt"
	"strings"
	"time"

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
	// ErrNotTracy: the peer answered the handshake with something no Tracy
	// client sends (an HTTP server, an SSH daemon, another protocol).
	ErrNotTracy = errors.New("the peer does not speak Tracy")
	// ErrHandshakeTimeout: the peer accepted the connection but did not
	// complete its side of the handshake in time (WithHandshakeTimeout).
	ErrHandshakeTimeout = errors.New("handshake timed out")
	// ErrNoClient: no client accepted a connection within
	// WithConnectTimeout.
	ErrNoClient = errors.New("no client to capture")
	// ErrBadWelcome: the welcome is complete but holds a value no trace
	// can be built on (see WelcomeError).
	ErrBadWelcome = errors.New("invalid client welcome")
	// ErrIdleTimeout: the client sent nothing for longer than
	// WithIdleTimeout. A live Tracy client sends a keepalive every 5 s
	// when it has nothing else to send.
	ErrIdleTimeout = errors.New("client went silent")
	// ErrUnanswered: the session ended (after the client's Terminate) with
	// queries still unanswered, so the trace lacks what they asked for.
	// See UnansweredError.
	ErrUnanswered = errors.New("queries left unanswered")
)

// WelcomeError is a welcome field with a value that cannot be used. The
// timer multiplier turns every tick into nanoseconds: replacing a bad one
// by a default would scale every time in the trace silently.
type WelcomeError struct {
	Source string // "the client at ADDR" or "the recording"
	Field  string
	Value  string
	Want   string
}

func (e *WelcomeError) Error() string {
	return fmt.Sprintf("%s: %s's welcome gives %s %s; expected %s", ErrBadWelcome, e.Source, e.Field, e.Value, e.Want)
}

func (e *WelcomeError) Unwrap() error { return ErrBadWelcome }

// Pending is one kind of request the session ended with unanswered.
type Pending struct {
	What  string // e.g. "call-stack frames"
	Count int
}

// UnansweredError is a session that ended after the client's Terminate
// while queries were outstanding: a recording cut after Terminate, or a
// client that closed without answering. The trace is kept, but names,
// call-stack frames, source locations and the like that were asked for are
// missing from it.
type UnansweredError struct {
	Pending []Pending
}

func (e *UnansweredError) Total() int {
	n := 0
	for _, p := range e.Pending {
		n += p.Count
	}
	return n
}

func (e *UnansweredError) Error() string {
	var b strings.Builder
	for i, p := range e.Pending {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", p.Count, p.What)
	}
	return fmt.Sprintf("%s: the stream ended after the client's Terminate with %d requests unanswered (%s); the trace lacks what they asked for",
		ErrUnanswered, e.Total(), b.String())
}

func (e *UnansweredError) Unwrap() error { return ErrUnanswered }

// HandshakeError is a handshake that did not open a session: the client
// refused it, dropped it, timed out, or the peer is not a Tracy client. It
// unwraps to ErrProtocolMismatch, ErrNotAvailable, ErrHandshakeDropped,
// ErrHandshakeTimeout or ErrNotTracy.
type HandshakeError struct {
	Addr   string                   // the client's address
	Status protocol.HandshakeStatus // what the client answered (HandshakeDropped if nothing)
	// ClientProtocol is the client's protocol version when known (learned
	// from its UDP discovery broadcast), else 0.
	ClientProtocol uint32
	// Received and Want count the bytes of the client's handshake reply
	// (status, welcome, on-demand payload) read and expected.
	Received, Want int
	// Timeout is the handshake timeout that expired, 0 if none did.
	Timeout time.Duration
	// First holds the first bytes a peer that does not speak Tracy sent.
	First []byte
	Err   error // underlying I/O error for a dropped handshake
}

func (e *HandshakeError) Error() string {
	ours := fmt.Sprintf("protocol %d (Tracy %s)", protocol.ProtocolVersion, protocol.TracyVersion)
	if e.Addr == "" {
		// A recording: nobody to blame but the file.
		switch {
		case e.Status == protocol.HandshakeProtocolMismatch || e.Status == protocol.HandshakeNotAvailable:
			return fmt.Sprintf("%s: the recording holds a refused handshake (%v), not a session", e.Unwrap()[0], e.Status)
		case e.First != nil:
			return fmt.Sprintf("the recording does not hold a Tracy client stream: it starts with %s, where a recording starts with status byte 1", quoteBytes(e.First))
		}
		return fmt.Sprintf("the recording ends after %d of the %d bytes of the client's handshake", e.Received, max(e.Want, 1))
	}
	switch {
	case e.Status == protocol.HandshakeProtocolMismatch:
		theirs := "a different protocol version"
		if e.ClientProtocol != 0 {
			theirs = fmt.Sprintf("protocol %d", e.ClientProtocol)
		}
		return fmt.Sprintf("%s: the client at %s speaks %s, gotracy speaks %s; build the client with Tracy %s",
			ErrProtocolMismatch, e.Addr, theirs, ours, protocol.TracyVersion)
	case e.Status == protocol.HandshakeNotAvailable:
		return fmt.Sprintf("%s: the client at %s (%s) already sent its data to another server; restart it, or build it with TRACY_ON_DEMAND",
			ErrNotAvailable, e.Addr, ours)
	case e.First != nil:
		return fmt.Sprintf("the peer at %s does not speak Tracy: it answered the %s handshake with %s, where a Tracy client sends status byte 1, 2 or 3%s",
			e.Addr, ours, quoteBytes(e.First), guessPeer(e.First))
	case e.Timeout > 0:
		what := "nothing"
		if e.Received > 0 {
			what = fmt.Sprintf("%d of the %d bytes of a Tracy welcome", e.Received, e.Want)
		}
		return fmt.Sprintf("the peer at %s accepted the connection but sent %s within %v, where a Tracy client answers the handshake at once (is it a Tracy client, and is it stuck?)",
			e.Addr, what, e.Timeout)
	default:
		msg := fmt.Sprintf("the client at %s closed the connection after %d of the %d bytes of the %s handshake",
			e.Addr, e.Received, max(e.Want, 1), ours)
		if e.Err != nil && !errors.Is(e.Err, protocol.ErrTruncated) {
			msg += ": " + e.Err.Error()
		}
		return msg
	}
}

func (e *HandshakeError) Unwrap() []error {
	var s error
	switch {
	case e.Status == protocol.HandshakeProtocolMismatch:
		s = ErrProtocolMismatch
	case e.Status == protocol.HandshakeNotAvailable:
		s = ErrNotAvailable
	case e.First != nil:
		s = ErrNotTracy
	case e.Timeout > 0:
		s = ErrHandshakeTimeout
	default:
		s = ErrHandshakeDropped
	}
	if e.Err != nil {
		return []error{s, e.Err}
	}
	return []error{s}
}

// quoteBytes shows a peer's first bytes as text when they are printable.
func quoteBytes(b []byte) string {
	printable := true
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\r' && c != '\n' && c != '\t' {
			printable = false
		}
	}
	if printable && len(b) > 1 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("bytes % x", b)
}

// guessPeer names well-known protocols, so the user sees at once that the
// address or port is wrong.
func guessPeer(b []byte) string {
	s := string(b)
	switch {
	case strings.HasPrefix(s, "HTTP/"):
		return " (it is an HTTP server: check the address and port)"
	case strings.HasPrefix(s, "SSH-"):
		return " (it is an SSH server: check the address and port)"
	}
	return " (check the address and port)"
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
