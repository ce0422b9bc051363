package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// dial connects to addr and keeps retrying until a client listens there or
// ctx ends, as Tracy's capture tool waits for a program that is not started
// yet. Only "nobody is listening yet" style errors are retried; a malformed
// address fails at once.
func dial(ctx context.Context, addr string, retry time.Duration) (net.Conn, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("capture: bad address %q: %w", addr, err)
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
			return nil, fmt.Errorf("capture: connecting to %s: %w", addr, ctx.Err())
		}
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && !dnsErr.IsTemporary && !dnsErr.IsTimeout {
			return nil, fmt.Errorf("capture: connecting to %s: %w", addr, err)
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("capture: connecting to %s: %w", addr, ctx.Err())
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

// readHello reads the status byte, the welcome and, for on-demand clients,
// the on-demand payload. A recorded stream starts the same way, so replay
// uses it unchanged.
func readHello(r io.Reader, addr string) (hello, error) {
	s, err := protocol.ReadSession(r)
	if err != nil {
		he := &HandshakeError{Addr: addr, Status: protocol.HandshakeDropped, Err: err}
		if s != nil && (s.Status == protocol.HandshakeProtocolMismatch || s.Status == protocol.HandshakeNotAvailable) {
			he.Status, he.Err = s.Status, nil
		}
		return hello{}, he
	}
	return hello{welcome: s.Welcome, onDemand: s.OnDemand, size: s.Size}, nil
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
