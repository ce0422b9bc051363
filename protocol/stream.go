package protocol

import (
	"fmt"
	"io"
)

// Session is what precedes the frames of a client-to-server stream.
type Session struct {
	Status   HandshakeStatus
	Welcome  Welcome
	OnDemand *OnDemandPayload // nil unless Welcome.Flags has FlagOnDemand
	// Size is the number of stream bytes the status, welcome and on-demand
	// payload took (the offset of the first frame).
	Size int64
}

// ReadSession reads the client's side of the handshake: the status byte and,
// when it is HandshakeWelcome, the welcome and the on-demand payload. A
// status other than HandshakeWelcome is returned with ErrProtocolMismatch,
// ErrNotAvailable or ErrBadHandshake.
func ReadSession(r io.Reader) (*Session, error) {
	var b [WelcomeSize]byte
	s := &Session{}
	if _, err := io.ReadFull(r, b[:1]); err != nil {
		return nil, &StreamError{Offset: 0, Compressed: true, Err: fmt.Errorf("handshake status: %w", truncErr(err))}
	}
	s.Status = HandshakeStatus(b[0])
	s.Size = 1
	switch s.Status {
	case HandshakeWelcome:
	case HandshakeProtocolMismatch:
		return s, &StreamError{Offset: 0, Compressed: true, Err: fmt.Errorf("client answered %v: %w", s.Status, ErrProtocolMismatch)}
	case HandshakeNotAvailable:
		return s, &StreamError{Offset: 0, Compressed: true, Err: fmt.Errorf("client answered %v: %w", s.Status, ErrNotAvailable)}
	default:
		return s, &StreamError{Offset: 0, Compressed: true, Err: fmt.Errorf("client answered %v: %w", s.Status, ErrBadHandshake)}
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return s, &StreamError{Offset: 1, Compressed: true, Err: fmt.Errorf("welcome: %w", truncErr(err))}
	}
	if err := s.Welcome.UnmarshalBinary(b[:]); err != nil {
		return s, &StreamError{Offset: 1, Compressed: true, Err: err}
	}
	s.Size += WelcomeSize
	if s.Welcome.Flags&FlagOnDemand != 0 {
		if _, err := io.ReadFull(r, b[:OnDemandSize]); err != nil {
			return s, &StreamError{Offset: s.Size, Compressed: true, Err: fmt.Errorf("on-demand payload: %w", truncErr(err))}
		}
		s.OnDemand = new(OnDemandPayload)
		_ = s.OnDemand.UnmarshalBinary(b[:OnDemandSize])
		s.Size += OnDemandSize
	}
	return s, nil
}

func truncErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}
