//go:build !notracy

package tracy

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// acceptLoop serves one connection at a time, as Tracy does: while a session
// runs it does not accept, so further servers wait in the backlog.
func (p *profiler) acceptLoop() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // listener closed by Stop
		}
		// Stop serves a server that connects while it delivers, so the
		// loop runs until the sender has finished, not until Stop begins.
		p.handshaking.Add(1)
		ok := p.handshake(c)
		if !ok {
			p.handshaking.Add(-1)
			continue
		}
		select {
		case p.conns <- c:
			p.handshaking.Add(-1)
		case <-p.done:
			p.handshaking.Add(-1)
			c.Close()
			return
		}
		select {
		case <-p.sessDone:
		case <-p.done:
			return
		}
	}
}

// handshake reads the server's shibboleth and version and answers a
// mismatch or "not available" itself; it reports whether the connection
// should start a session (the sender then sends the welcome).
func (p *profiler) handshake(c net.Conn) bool {
	var b [protocol.HandshakeSize]byte
	timeout := 2 * time.Second
	if p.served.Load() {
		timeout = time.Second
	}
	c.SetReadDeadline(time.Now().Add(timeout))
	if _, err := io.ReadFull(c, b[:len(protocol.Shibboleth)]); err != nil || string(b[:8]) != protocol.Shibboleth {
		c.Close()
		return false
	}
	if p.served.Load() {
		// A non-on-demand client serves one session only.
		c.Write([]byte{byte(protocol.HandshakeNotAvailable)})
		c.Close()
		return false
	}
	if _, err := io.ReadFull(c, b[8:]); err != nil {
		c.Close()
		return false
	}
	if binary.LittleEndian.Uint32(b[8:]) != protocol.ProtocolVersion {
		c.Write([]byte{byte(protocol.HandshakeProtocolMismatch)})
		c.Close()
		return false
	}
	c.SetReadDeadline(time.Time{})
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return true
}

// broadcastPort is where the GUI listens for announcements (a variable for
// tests).
var broadcastPort = 8086

// broadcastLoop announces the client every 3 s while no session runs, so the
// viewer lists it; the last datagram (activeTime -1) says it is gone.
func (p *profiler) broadcastLoop() {
	defer close(p.bcastDone)
	dst := "255.255.255.255"
	if ip := net.ParseIP(p.cfg.addr); ip != nil && ip.IsLoopback() {
		dst = "127.255.255.255"
	}
	conn, err := listenBroadcast()
	if err != nil {
		return
	}
	defer conn.Close()
	port := broadcastPort
	if p.cfg.broadcastPort > 0 {
		port = p.cfg.broadcastPort
	}
	to, err := net.ResolveUDPAddr("udp4", net.JoinHostPort(dst, strconv.Itoa(port)))
	if err != nil {
		return
	}
	send := func(active int32) {
		b := protocol.Broadcast{
			Version:         protocol.BroadcastVersion,
			ListenPort:      uint16(p.port),
			ProtocolVersion: protocol.ProtocolVersion,
			PID:             uint64(os.Getpid()),
			ActiveTime:      active,
			ProgramName:     p.program,
		}
		msg, err := b.Append(nil)
		if err == nil {
			conn.WriteTo(msg, to)
		}
	}
	t := time.NewTicker(3 * time.Second)
	defer t.Stop()
	wasBusy := false
	for {
		busy := p.busy.Load()
		if busy && !wasBusy {
			send(-1) // busy from now on
		}
		wasBusy = busy
		if !busy {
			send(int32(time.Now().Unix() - p.startUnix))
		}
		select {
		case <-p.done:
			// Announced until the sender has finished: Stop may be
			// waiting for a viewer to connect (TRACY_NO_EXIT).
			if !p.busy.Load() {
				send(-1)
			}
			return
		case <-t.C:
		}
	}
}
