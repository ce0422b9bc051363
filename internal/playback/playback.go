// Package playback plays a recorded Tracy client session to a server over
// loopback, for benchmarks and tests of the live capture path:
//
//	addr := playback.Client(b, raw) // raw: a .c2s.bin recording
//	res, err := capture.Connect(ctx, addr)
package playback

import (
	"io"
	"net"
	"testing"

	"github.com/gotracy/gotracy/protocol"
)

// Client is a Tracy client on loopback that plays a recorded session
// (a client-to-server stream, such as the real C++ client's heavy10m bytes)
// to the first server that connects, as fast as the socket takes them, and
// returns the address to connect to. It reads the server's handshake,
// discards whatever the server sends (queries), and stays until the server
// closes, as a client does. It serves one connection.
func Client(tb testing.TB, raw []byte) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var hello [protocol.HandshakeSize]byte
		io.ReadFull(c, hello[:])
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, c); close(done) }() // the server's queries
		c.Write(raw)
		<-done // a client stays until the server closes
	}()
	return ln.Addr().String()
}
