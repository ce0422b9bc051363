package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// wantUnanswered checks err is an UnansweredError listing exactly want.
func wantUnanswered(t *testing.T, err error, want string) {
	t.Helper()
	var ue *UnansweredError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnanswered) {
		t.Fatalf("err = %v, want an UnansweredError (%s)", err, want)
	}
	if !strings.Contains(err.Error(), "("+want+")") {
		t.Fatalf("err = %v, want the pending list (%s)", err, want)
	}
}

// fakePeer accepts one connection, reads the server's hello and runs
// script on the connection. It returns the address to connect to.
func fakePeer(t *testing.T, script func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var hello [protocol.HandshakeSize]byte
		if _, err := io.ReadFull(c, hello[:]); err != nil {
			return
		}
		script(c)
	}()
	return ln.Addr().String()
}

// hold keeps the connection open, silent, until the server closes it.
func hold(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	io.Copy(io.Discard, c)
}

func welcomeBytes(t *testing.T, mul float64) []byte {
	t.Helper()
	w := protocol.Welcome{TimerMul: mul, InitEnd: 100, ProgramName: "fault"}
	b, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Peers that do not complete the handshake end the capture within the
// handshake timeout, with one error saying what arrived.
func TestHandshakeFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script func(t *testing.T, c net.Conn)
		want   error
		text   []string
	}{
		{"silent", func(t *testing.T, c net.Conn) { hold(c) }, ErrHandshakeTimeout,
			[]string{"accepted the connection but sent nothing within 300ms"}},
		{"half welcome", func(t *testing.T, c net.Conn) {
			c.Write(welcomeBytes(t, 1)[:200])
			hold(c)
		}, ErrHandshakeTimeout, []string{"sent 200 of the 1171 bytes of a Tracy welcome within 300ms"}},
		{"half welcome then close", func(t *testing.T, c net.Conn) {
			c.Write(welcomeBytes(t, 1)[:200])
		}, ErrHandshakeDropped, []string{"closed the connection after 200 of the 1171 bytes"}},
		{"http server", func(t *testing.T, c net.Conn) {
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
			hold(c)
		}, ErrNotTracy, []string{`answered the protocol 82 (Tracy 0.14.0) handshake with "HTTP/1.1 400 Bad"`, "HTTP server"}},
		{"garbage", func(t *testing.T, c net.Conn) {
			c.Write([]byte{0xde, 0xad, 0xbe, 0xef})
			hold(c)
		}, ErrNotTracy, []string{"bytes de ad be ef", "status byte 1, 2 or 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakePeer(t, func(c net.Conn) { tc.script(t, c) })
			start := time.Now()
			res, err := Connect(context.Background(), addr, WithHandshakeTimeout(300*time.Millisecond))
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
			if !errors.Is(err, tc.want) || res != nil {
				t.Fatalf("err = %v (result %v), want %v", err, res, tc.want)
			}
			msg := err.Error()
			for _, s := range tc.text {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
			// One layer: no contradictory second explanation.
			for _, bad := range []string{"bad handshake", "malformed", "HandshakeStatus("} {
				if strings.Contains(msg, bad) {
					t.Errorf("error %q says %q too", msg, bad)
				}
			}
			if tc.want != ErrHandshakeDropped && errors.Is(err, ErrHandshakeDropped) {
				t.Errorf("error %q also claims the handshake was dropped", msg)
			}
		})
	}
}

// A welcome whose timer multiplier cannot convert ticks is refused, live
// and in a replay, instead of being replaced by 1.0.
func TestBadTimerMultiplier(t *testing.T) {
	for _, mul := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		wb := welcomeBytes(t, mul)
		addr := fakePeer(t, func(c net.Conn) {
			c.Write(wb)
			hold(c)
		})
		_, err := Connect(context.Background(), addr, WithHandshakeTimeout(5*time.Second))
		var we *WelcomeError
		if !errors.Is(err, ErrBadWelcome) || !errors.As(err, &we) || !strings.Contains(err.Error(), "timer multiplier") ||
			!strings.Contains(err.Error(), "positive, finite") {
			t.Errorf("live, multiplier %v: %v", mul, err)
		}
		_, err = Replay(context.Background(), bytes.NewReader(append(wb, literalFrame(protocol.AppendTerminate(nil))...)))
		if !errors.Is(err, ErrBadWelcome) || !strings.Contains(err.Error(), "the recording's welcome") {
			t.Errorf("replay, multiplier %v: %v", mul, err)
		}
	}
}

// A client that goes quiet after its welcome ends the capture after the
// idle timeout, with the trace kept.
func TestIdleTimeout(t *testing.T) {
	wb := welcomeBytes(t, 1)
	addr := fakePeer(t, func(c net.Conn) {
		c.Write(wb)
		fw := protocol.NewFrameWriter(c)
		fw.WriteItems(protocol.AppendFrameMarkMsg(nil, 500, 0))
		fw.Flush()
		hold(c)
	})
	start := time.Now()
	res, err := Connect(context.Background(), addr, WithIdleTimeout(300*time.Millisecond))
	if !errors.Is(err, ErrIdleTimeout) || !strings.Contains(err.Error(), "nothing arrived for 300ms") {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	if res == nil || res.Trace == nil || res.Stop != StopError || len(res.Trace.FrameSets[0].Frames) != 3 {
		t.Fatalf("result %+v", res)
	}
}

// Without a listener, WithConnectTimeout gives up with ErrNoClient.
func TestConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	res, err := Connect(context.Background(), addr, WithConnectTimeout(300*time.Millisecond), WithRetryInterval(20*time.Millisecond))
	if !errors.Is(err, ErrNoClient) || res != nil || !strings.Contains(err.Error(), "nothing accepted a connection at "+addr+" within 300ms") {
		t.Fatalf("err = %v, res %v", err, res)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
}

// A recording cut right after the client's Terminate, before the answers
// to the server's queries: the replay keeps the trace but reports every
// unanswered request instead of ending as a success.
func TestReplayUnansweredAfterTerminate(t *testing.T) {
	var refs protocol.TimeRefs
	b := refs.AppendThreadContext(nil, 7)
	frames := make([]uint64, 100)
	for i := range frames {
		frames[i] = 0x1000 + uint64(i)*16
	}
	b = mustAppend(protocol.AppendCallstackPayloadFrames(b, 1, frames))
	b = protocol.AppendCallstack(b)
	b = refs.AppendZoneBeginCallstack(b, 1000, 0x100)
	b = refs.AppendZoneEnd(b, 2000)
	b = protocol.AppendTerminate(b)
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	wantUnanswered(t, err, "100 call-stack frames, 1 thread names, 1 source locations")
	if res == nil || res.Trace == nil || res.Trace.ZoneCount() != 1 {
		t.Fatalf("trace not kept: %+v", res)
	}
	var ue *UnansweredError
	errors.As(err, &ue)
	if ue.Total() != 102 {
		t.Errorf("total %d", ue.Total())
	}
}

// The same live: a client that closes after Terminate without answering.
func TestLiveUnansweredAfterTerminate(t *testing.T) {
	wb := welcomeBytes(t, 1)
	addr := fakePeer(t, func(c net.Conn) {
		c.Write(wb)
		var refs protocol.TimeRefs
		b := refs.AppendThreadContext(nil, 7)
		b = refs.AppendZoneBegin(b, 1000, 0x100)
		b = refs.AppendZoneEnd(b, 2000)
		b = protocol.AppendTerminate(b)
		fw := protocol.NewFrameWriter(c)
		fw.WriteItems(b)
		fw.Flush()
		time.Sleep(100 * time.Millisecond)
	})
	res, err := Connect(context.Background(), addr)
	wantUnanswered(t, err, "1 thread names, 1 source locations")
	if res == nil || res.Trace == nil || res.Trace.ZoneCount() != 1 {
		t.Fatalf("trace not kept: %+v", res)
	}
}

// gotracy's Go client did not send keepalives before it advertised them:
// its silence is not cut by the idle timeout; a client advertising
// ExtKeepAliveHostInfo is held to it.
func TestIdleTimeoutGoClient(t *testing.T) {
	for _, tc := range []struct {
		host string
		cut  bool
	}{
		{"OS: linux\n" + protocol.ExtImagesHostInfo + "\n", false},
		{"OS: linux\n" + protocol.ExtImagesHostInfo + "\n" + ExtKeepAliveHostInfo + "\n", true},
	} {
		w := protocol.Welcome{TimerMul: 1, InitEnd: 100, ProgramName: "go", HostInfo: tc.host}
		wb, err := protocol.AppendWelcomeReply(nil, &w, nil)
		if err != nil {
			t.Fatal(err)
		}
		addr := fakePeer(t, func(c net.Conn) {
			c.Write(wb)
			time.Sleep(800 * time.Millisecond) // idle, longer than the timeout
			fw := protocol.NewFrameWriter(c)
			fw.WriteItems(protocol.AppendTerminate(protocol.AppendFrameMarkMsg(nil, 500, 0)))
			fw.Flush()
			hold(c)
		})
		_, err = Connect(context.Background(), addr, WithIdleTimeout(200*time.Millisecond))
		if tc.cut != errors.Is(err, ErrIdleTimeout) || (!tc.cut && err != nil) {
			t.Errorf("host info %q: err = %v, want cut %v", tc.host, err, tc.cut)
		}
	}
}
