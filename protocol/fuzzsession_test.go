package protocol

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadSession feeds arbitrary bytes as the start of a client stream:
// the handshake either fails with a typed *StreamError or yields a session
// whose welcome (and on-demand payload) encode back to the bytes read, up
// to the insignificant bytes after a text field's NUL (the corpus keeps
// the input that showed those). Seeds in testdata/fuzz/FuzzReadSession:
// the handshakes of the normal and on-demand recordings, cut and
// status-byte variants.
func FuzzReadSession(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSession(bytes.NewReader(data))
		if err != nil {
			if !typedErr(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if s.Size > int64(len(data)) || (s.OnDemand != nil) != (s.Welcome.Flags&FlagOnDemand != 0) {
			t.Fatalf("session of %d bytes from %d: %+v", s.Size, len(data), s)
		}
		back, err := AppendWelcomeReply(nil, &s.Welcome, s.OnDemand)
		if err != nil {
			t.Fatalf("decoded welcome does not encode: %v", err)
		}
		// The fixed-size text fields are C strings: bytes after their first
		// NUL are not kept (Tracy reads them the same way), so the encoding
		// must decode to the same session, not give the same bytes.
		again, err := ReadSession(bytes.NewReader(back))
		if err != nil || again.Size != s.Size || again.Welcome != s.Welcome ||
			(s.OnDemand != nil && *again.OnDemand != *s.OnDemand) {
			t.Fatalf("welcome re-encodes to a different session (%v):\n%+v\n%+v", err, again, s)
		}
	})
}

// FuzzReadServerHello: the server's 12-byte hello parses or fails with
// ErrBadHandshake or ErrProtocolMismatch (plain wrapped errors: nothing of
// a stream has been read yet).
func FuzzReadServerHello(f *testing.F) {
	f.Add(AppendServerHello(nil))
	f.Add([]byte("TracyPrf"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadServerHello(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrBadHandshake) && !errors.Is(err, ErrProtocolMismatch) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(AppendServerHello(nil)[:8], data[:8]) || v == 0 {
			t.Fatalf("accepted hello % x as version %d", data, v)
		}
	})
}
