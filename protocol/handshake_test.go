package protocol

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// TestHandshakeBothSides runs the client and server helpers against each
// other over a real connection pair, with and without on-demand.
func TestHandshakeBothSides(t *testing.T) {
	for _, od := range []*OnDemandPayload{nil, {Frames: 9, CurrentTime: 77}} {
		c, s := net.Pipe()
		w := Welcome{TimerMul: 1, ProgramName: "app", PID: 5}
		if od != nil {
			w.Flags = FlagOnDemand
		}
		done := make(chan error, 1)
		go func() { done <- ClientHandshake(c, &w, od); c.Close() }()
		sess, err := ServerHandshake(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if sess.Status != HandshakeWelcome || sess.Welcome != w || (od != nil) != (sess.OnDemand != nil) ||
			(od != nil && *sess.OnDemand != *od) {
			t.Errorf("session %+v", sess)
		}
		want := int64(1 + WelcomeSize)
		if od != nil {
			want += OnDemandSize
		}
		if sess.Size != want {
			t.Errorf("session size %d", sess.Size)
		}
		s.Close()
	}
}

// rw reads a canned hello and records what is written back.
type rw struct {
	in  io.Reader
	out bytes.Buffer
}

func (x *rw) Read(p []byte) (int, error)  { return x.in.Read(p) }
func (x *rw) Write(p []byte) (int, error) { return x.out.Write(p) }

func TestClientHandshakeRejects(t *testing.T) {
	w := Welcome{}
	// Wrong version: reply 02.
	x := &rw{in: bytes.NewReader([]byte("TracyPrf\x51\x00\x00\x00"))}
	if err := ClientHandshake(x, &w, nil); !errors.Is(err, ErrProtocolMismatch) || x.out.String() != "\x02" {
		t.Errorf("mismatch: %v, replied %q", err, x.out.String())
	}
	// Wrong shibboleth: no reply.
	x = &rw{in: bytes.NewReader([]byte("TracyPrX\x52\x00\x00\x00"))}
	if err := ClientHandshake(x, &w, nil); !errors.Is(err, ErrBadHandshake) || x.out.Len() != 0 {
		t.Errorf("bad shibboleth: %v, replied %q", err, x.out.String())
	}
	// Short hello.
	x = &rw{in: bytes.NewReader([]byte("Tracy"))}
	if err := ClientHandshake(x, &w, nil); !errors.Is(err, ErrBadHandshake) || !errors.Is(err, ErrTruncated) {
		t.Errorf("short: %v", err)
	}
	// Flag without payload.
	if _, err := AppendWelcomeReply(nil, &Welcome{Flags: FlagOnDemand}, nil); !errors.Is(err, ErrBadHandshake) {
		t.Error(err)
	}
}

func TestReadSessionStatuses(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want error
	}{
		{[]byte{2}, ErrProtocolMismatch}, {[]byte{3}, ErrNotAvailable}, {[]byte{0}, ErrBadHandshake},
		{[]byte{9}, ErrBadHandshake}, {nil, ErrTruncated}, {[]byte{1, 0, 0}, ErrTruncated},
	} {
		_, err := ReadSession(bytes.NewReader(c.in))
		var se *StreamError
		if !errors.Is(err, c.want) || !errors.As(err, &se) {
			t.Errorf("% x: %v", c.in, err)
		}
	}
	// Welcome with the on-demand flag but no payload.
	b := []byte{1}
	b, _ = (&Welcome{Flags: FlagOnDemand}).AppendBinary(b)
	if _, err := ReadSession(bytes.NewReader(b)); !errors.Is(err, ErrTruncated) {
		t.Error(err)
	}
	if got := AppendServerHello(nil); string(got) != "TracyPrf\x52\x00\x00\x00" {
		t.Errorf("hello % x", got)
	}
}
