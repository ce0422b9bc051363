package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// DefaultPort is the data port a Tracy client listens on when none is
// configured.
const DefaultPort = 8086

// JoinAddr builds host:port, accepting a host that already has a port.
func JoinAddr(host string, port int) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// dial connects to addr and keeps retrying until a client listens there,
// ctx ends or wait (if positive) has passed, as Tracy's capture tool waits
// for a program that is not started yet. Only "nobody is listening yet"
// style errors are retried; a malformed address fails at once.
func dial(ctx context.Context, addr string, retry, wait time.Duration) (net.Conn, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("capture: bad address %q: %w", addr, err)
	}
	parent := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, wait, ErrNoClient)
		defer cancel()
	}
	gaveUp := func() error {
		if parent.Err() == nil && errors.Is(context.Cause(ctx), ErrNoClient) {
			return fmt.Errorf("%w: nothing accepted a connection at %s within %v (is the program running, built with Tracy, and listening on that address and port?)", ErrNoClient, addr, wait)
		}
		return fmt.Errorf("capture: connecting to %s: %w", addr, parent.Err())
	}
	var d net.Dialer
	for {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetNoDelay(true)
			}
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, gaveUp()
		}
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && !dnsErr.IsTemporary && !dnsErr.IsTimeout {
			return nil, fmt.Errorf("capture: connecting to %s: %w", addr, err)
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, gaveUp()
		case <-t.C:
		}
	}
}

// hello is what the client sends raw before its LZ4 stream.
type hello struct {
	welcome  protocol.Welcome
	onDemand *protocol.OnDemandPayload // nil unless FlagOnDemand
	size     int64                     // stream bytes before the first frame
}

// sendHandshake writes the server's 12-byte opening in a single write.
func sendHandshake(w io.Writer) error {
	_, err := w.Write(protocol.AppendServerHello(make([]byte, 0, protocol.HandshakeSize)))
	return err
}

// countReader counts what the handshake read, for the error messages.
type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// readHello reads the status byte, the welcome and, for on-demand clients,
// the on-demand payload, and checks the welcome can carry a trace. A
// recorded stream starts the same way, so replay uses it unchanged (addr
// "" names the recording). timeout is the deadline the caller set on the
// connection, for the message when it expires. When the first byte is not a
// Tracy status, up to 15 more are read (the caller bounds how long with
// peek) to show the user what the peer is.
func readHello(r io.Reader, addr string, timeout time.Duration, peek func()) (hello, error) {
	cr := &countReader{r: r}
	s, err := protocol.ReadSession(cr)
	if err != nil {
		want := 1 + protocol.WelcomeSize
		if s != nil && s.Welcome.Flags&protocol.FlagOnDemand != 0 {
			want += protocol.OnDemandSize
		}
		he := &HandshakeError{Addr: addr, Status: protocol.HandshakeDropped, Received: cr.n, Want: want, Err: err}
		var ne net.Error
		switch {
		case s != nil && (s.Status == protocol.HandshakeProtocolMismatch || s.Status == protocol.HandshakeNotAvailable):
			he.Status, he.Err = s.Status, nil
		case s != nil && s.Status != protocol.HandshakeWelcome:
			he.First = []byte{byte(s.Status)}
			if peek != nil {
				peek()
			}
			var more [15]byte
			n, _ := io.ReadAtLeast(r, more[:], 1)
			he.First = append(he.First, more[:n]...)
			he.Err = nil
		case errors.As(err, &ne) && ne.Timeout():
			he.Timeout, he.Err = timeout, nil
		}
		return hello{}, he
	}
	if m := s.Welcome.TimerMul; !(m > 0) || math.IsInf(m, 0) {
		src := "the recording"
		if addr != "" {
			src = "the client at " + addr
		}
		return hello{}, &WelcomeError{Source: src, Field: "timer multiplier", Value: strconv.FormatFloat(m, 'g', -1, 64),
			Want: "a positive, finite number of nanoseconds per tick"}
	}
	return hello{welcome: s.Welcome, onDemand: s.OnDemand, size: s.Size}, nil
}

// idleReader reads the connection with a deadline renewed before every
// read: the client must send something (a Tracy client sends a keepalive
// after 5 s without events) within d, or the read fails with
// ErrIdleTimeout. The deadline only runs while we wait on the socket, so a
// consumer that is slow to take frames never trips it.
type idleReader struct {
	c net.Conn
	d time.Duration
}

func (r idleReader) Read(p []byte) (int, error) {
	r.c.SetReadDeadline(time.Now().Add(r.d))
	n, err := r.c.Read(p)
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("%w: nothing arrived for %v (a Tracy client sends a keepalive every 5 s when idle; the client hung, or the network did)", ErrIdleTimeout, r.d)
	}
	return n, err
}

// sendBufferSize returns the kernel's SO_SNDBUF for c, which sets the query
// budget; 0 when it cannot be read.
func sendBufferSize(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	raw.Control(func(fd uintptr) { n = getSndBuf(fd) })
	return n
}
