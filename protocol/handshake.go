package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// AppendServerHello appends the 12 bytes a server opens with: the
// shibboleth and ProtocolVersion.
func AppendServerHello(dst []byte) []byte {
	dst = append(dst, Shibboleth...)
	return binary.LittleEndian.AppendUint32(dst, ProtocolVersion)
}

// ReadServerHello reads a server's 12-byte opening (client side). A wrong
// shibboleth is ErrBadHandshake (the C++ client closes without replying);
// a version other than ProtocolVersion is returned with
// ErrProtocolMismatch (the client should answer HandshakeProtocolMismatch).
// Timeouts are the caller's: set a deadline on the connection first (the
// C++ client allows 2 s per read).
func ReadServerHello(r io.Reader) (version uint32, err error) {
	var b [HandshakeSize]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, fmt.Errorf("protocol: reading server hello: %w: %w", ErrBadHandshake, truncErr(err))
	}
	if string(b[:len(Shibboleth)]) != Shibboleth {
		return 0, fmt.Errorf("protocol: server hello %q is not %q: %w", b[:len(Shibboleth)], Shibboleth, ErrBadHandshake)
	}
	version = binary.LittleEndian.Uint32(b[len(Shibboleth):])
	if version != ProtocolVersion {
		return version, fmt.Errorf("protocol: server speaks protocol %d, not %d: %w", version, ProtocolVersion, ErrProtocolMismatch)
	}
	return version, nil
}

// AppendWelcomeReply appends what a client sends once the hello is valid:
// HandshakeWelcome, the welcome and, when w has FlagOnDemand, the on-demand
// payload (od must then be non-nil).
func AppendWelcomeReply(dst []byte, w *Welcome, od *OnDemandPayload) ([]byte, error) {
	if (w.Flags&FlagOnDemand != 0) != (od != nil) {
		return dst, fmt.Errorf("protocol: on-demand flag and payload disagree: %w", ErrBadHandshake)
	}
	dst = append(dst, byte(HandshakeWelcome))
	dst, _ = w.AppendBinary(dst)
	if od != nil {
		dst, _ = od.AppendBinary(dst)
	}
	return dst, nil
}

// ClientHandshake performs the client's side on a fresh connection: it reads
// the hello and answers it. On a version mismatch it sends
// HandshakeProtocolMismatch and returns ErrProtocolMismatch; on a bad
// shibboleth it sends nothing and returns ErrBadHandshake. In both cases the
// caller closes the connection and keeps listening.
func ClientHandshake(rw io.ReadWriter, w *Welcome, od *OnDemandPayload) error {
	if _, err := ReadServerHello(rw); err != nil {
		if errors.Is(err, ErrProtocolMismatch) {
			if _, werr := rw.Write([]byte{byte(HandshakeProtocolMismatch)}); werr != nil {
				return fmt.Errorf("%w (and replying failed: %v)", err, werr)
			}
		}
		return err
	}
	reply, err := AppendWelcomeReply(make([]byte, 0, 1+WelcomeSize+OnDemandSize), w, od)
	if err != nil {
		return err
	}
	if _, err := rw.Write(reply); err != nil {
		return fmt.Errorf("protocol: sending welcome: %w", err)
	}
	return nil
}

// ServerHandshake performs the server's side: it sends the hello and reads
// the status, welcome and on-demand payload. The returned Session's Size is
// the stream offset of the first frame; hand rw to NewFrameReader with it.
func ServerHandshake(rw io.ReadWriter) (*Session, error) {
	if _, err := rw.Write(AppendServerHello(make([]byte, 0, HandshakeSize))); err != nil {
		return nil, fmt.Errorf("protocol: sending hello: %w", err)
	}
	return ReadSession(rw)
}
